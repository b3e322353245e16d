package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// utf8BOM is the byte-order mark some editors (Notepad, older Visual
// Studio) put at the start of a UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// TrimBOM drops a leading UTF-8 byte-order mark, which JSON does not allow
// but which a settings file saved on Windows often starts with: without
// this, the whole file (deny rules included) would be ignored.
func TrimBOM(raw []byte) []byte { return bytes.TrimPrefix(raw, utf8BOM) }

// DecodeFile decodes the bytes of a JSON configuration file into v the way
// every settings file is read: a leading byte-order mark is dropped, and
// what decoding would drop without an error (a key written twice in one
// object, bytes that are not UTF-8) comes back as problems of source. The
// error is the JSON's own (not valid JSON, a value of the wrong type).
// .mcp.json is read by it too, so its problems read like the settings'.
func DecodeFile(source string, raw []byte, v any) ([]Problem, error) {
	raw = TrimBOM(raw)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return shapeProblems(source, raw), nil
}

// maxDuplicateReports caps how many duplicate keys one file reports.
const maxDuplicateReports = 20

// DuplicateKeys lists, as dotted paths ("permissions", "hooks.PreToolUse"),
// the keys that appear more than once in the same object of the JSON
// document raw. Decoding keeps the last of them and drops the others
// without a word, so a deny rule written in the first "permissions" of a
// file that has two would silently not apply. raw must be valid JSON (the
// caller decoded it first); the walk is iterative.
func DuplicateKeys(raw []byte) []string {
	type frame struct {
		object  bool
		path    string
		seen    map[string]bool
		wantKey bool
		key     string
		index   int
	}
	var stack []*frame
	var dups []string
	reported := map[string]bool{}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for len(dups) < maxDuplicateReports {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			valueDone()
			continue
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			key, _ := tok.(string)
			if top.seen[key] {
				if p := joinKey(top.path, key); !reported[p] {
					reported[p] = true
					dups = append(dups, p)
				}
			}
			top.seen[key] = true
			top.key, top.wantKey = key, false
			continue
		}
		path := ""
		switch {
		case top == nil:
		case top.object:
			path = joinKey(top.path, top.key)
		default:
			path = fmt.Sprintf("%s[%d]", top.path, top.index)
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{object: d == '{', path: path, seen: map[string]bool{}, wantKey: d == '{'})
			continue
		}
		valueDone()
	}
	return dups
}
