package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/toolhost/toolhost/tools"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Input repair: models trained on Claude Code make a few slips Claude Code
// quietly repairs — another agent's field names (old_str, path), numbers and
// booleans sent as strings, an extra field the tool does not know, limit: 0.
// The pipeline tries the repair only when the input as sent fails
// validation, and uses the repaired input only when it then passes, so a
// valid input is never touched and a repair can never let a wrong input
// through. Canonical names stay Claude Code's in every schema.

// fieldAliases maps a slipped field name to the canonical one it stands
// for. The rename applies only when the tool's schema has the canonical
// field and lacks the slipped one, and the input does not already carry
// the canonical field.
var fieldAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"path":               "file_path",
		"filePath":           "file_path",
		"old_str":            "old_string",
		"new_str":            "new_string",
		"target_string":      "old_string",
		"replacement_string": "new_string",
		"oldString":          "old_string",
		"newString":          "new_string",
		"replaceAll":         "replace_all",
		// BashOutput's and KillShell's field, for their successors' calls.
		"bash_id":  "task_id",
		"shell_id": "task_id",
		// Other agents' names for the folder a search or listing starts in
		// (Glob, Grep, LS, Tree): honoured as path, which the workspace jail
		// resolves like every path. Where a tool has no path (Bash), they are
		// acting fields, below.
		"directory": "path",
		"dir":       "path",
		"cwd":       "path",
		"workdir":   "path",
		// Other agents' names for Bash's run_in_background.
		"background":    "run_in_background",
		"is_background": "run_in_background",
	}
})

// actingFields are names other agents give fields that change where or how
// a call acts: Goa's Bash workdir and env, another agent's cwd, Write's
// append. Dropped, the call would run anyway and act elsewhere or
// otherwise (`rm -rf build` in the root instead of sub/); so a tool that
// lacks such a field is refused before anything runs, with how to say the
// same thing in its own input. Each maps to its kind, which picks the
// advice.
var actingFields = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"workdir": "folder", "cwd": "folder", "working_directory": "folder", "working_dir": "folder",
		"dir": "folder", "directory": "folder",
		"env": "env", "environment": "env", "env_vars": "env", "envs": "env",
		"stdin":    "stdin",
		"shell":    "shell",
		"append":   "append",
		"encoding": "encoding",
	}
})

// actingFieldRefusal is why input cannot run as sent when it carries an
// acting field its tool does not have and no alias repairs (nil
// otherwise): the refusal names the field and how to say it in the tool's
// own input.
func actingFieldRefusal(tool string, schema, input json.RawMessage) *tools.Result {
	sh, good := parseShape(schema)
	if !good {
		return nil
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var found []string
	for name := range in {
		if _, known := sh.props[name]; known {
			continue
		}
		if canonical, ok := fieldAliases()[name]; ok {
			if _, want := sh.props[canonical]; want {
				continue
			}
		}
		if _, acting := actingFields()[name]; acting {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.Strings(found)
	_, command := sh.props["command"]
	var advice []string
	for _, name := range found {
		var a string
		switch kind := actingFields()[name]; {
		case kind == "folder" && command:
			a = "to run in another folder, start the command with `cd DIR && ` (DIR inside the workspace)"
		case kind == "folder":
			a = "give paths relative to the workspace root, or absolute"
		case kind == "env" && command:
			a = "to set variables, write them in the command (`NAME=value command`, or `export NAME=value; …`)"
		case kind == "stdin" && command:
			a = "to feed input, pipe it in the command (`printf '%s' … | command`)"
		case kind == "shell" && command:
			a = "the command runs in bash; run another shell inside it (`zsh -c '…'`)"
		case kind == "append":
			a = "Write replaces the whole file: Read it and Write the whole new content, or use Edit"
		case kind == "encoding":
			a = "text is written as UTF-8 as given"
		}
		if a != "" && !slices.Contains(advice, a) {
			advice = append(advice, a)
		}
	}
	msg := fmt.Sprintf("%s has no input field %s, and ignoring it would change where or how the call acts, so nothing was run.", tool, strings.Join(found, ", "))
	if len(advice) > 0 {
		joined := strings.Join(advice, "; ")
		msg += " " + strings.ToUpper(joined[:1]) + joined[1:] + "."
	}
	return tools.ErrorResult("%s Its fields are %s.", msg, strings.Join(sh.properties, ", "))
}

// schemaShape is what repair needs of a tool's input schema: the top-level
// properties with their types and minimums, and whether others are allowed.
type schemaShape struct {
	props      map[string]propShape
	closed     bool
	properties []string
}

type propShape struct {
	types   []string
	minimum *float64
}

func (s propShape) is(t string) bool {
	for _, x := range s.types {
		if x == t {
			return true
		}
	}
	return false
}

func parseShape(schema json.RawMessage) (*schemaShape, bool) {
	var raw struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if json.Unmarshal(schema, &raw) != nil || raw.Properties == nil {
		return nil, false
	}
	sh := &schemaShape{props: map[string]propShape{}, closed: bytes.Equal(bytes.TrimSpace(raw.AdditionalProperties), []byte("false"))}
	for name, def := range raw.Properties {
		var d struct {
			Type    json.RawMessage `json:"type"`
			Minimum *float64        `json:"minimum"`
		}
		_ = json.Unmarshal(def, &d)
		var ps propShape
		var one string
		if json.Unmarshal(d.Type, &one) == nil {
			ps.types = []string{one}
		} else {
			_ = json.Unmarshal(d.Type, &ps.types)
		}
		ps.minimum = d.Minimum
		sh.props[name] = ps
		sh.properties = append(sh.properties, name)
	}
	sort.Strings(sh.properties)
	return sh, true
}

// repairInput returns input with Claude Code's repairs applied, and notes
// for the model about what was dropped. ok is false when nothing changed.
// keepUnknown leaves fields the schema does not have (tools.StrictInput).
func repairInput(schema, input json.RawMessage, keepUnknown bool) (out json.RawMessage, notes []string, ok bool) {
	sh, good := parseShape(schema)
	if !good {
		return nil, nil, false
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil || in == nil {
		return nil, nil, false
	}
	changed := false
	// Renamed fields.
	for slip, canonical := range fieldAliases() {
		v, has := in[slip]
		if !has {
			continue
		}
		if _, known := sh.props[slip]; known {
			continue
		}
		if _, want := sh.props[canonical]; !want {
			continue
		}
		if _, dup := in[canonical]; dup {
			continue
		}
		in[canonical] = v
		delete(in, slip)
		changed = true
	}
	// Read's line range as another agent gives it: start_line..end_line.
	if _, hasOffset := sh.props["offset"]; hasOffset {
		if _, hasLimit := sh.props["limit"]; hasLimit {
			changed = lineRange(sh, in) || changed
		}
	}
	// Scalars sent as strings, and limit: 0 meaning "no limit given".
	for name, v := range in {
		ps, known := sh.props[name]
		if !known {
			continue
		}
		if fixed, did := coerce(ps, v); did {
			in[name] = fixed
			changed = true
		}
		if ps.minimum != nil && *ps.minimum > 0 && isZero(in[name]) && ps.is("integer") {
			delete(in, name)
			changed = true
		}
	}
	// Fields the tool does not have.
	if sh.closed && !keepUnknown {
		var unknown []string
		for name := range in {
			if _, known := sh.props[name]; !known && !isSlip(name) {
				unknown = append(unknown, name)
			}
		}
		sort.Strings(unknown)
		for _, name := range unknown {
			delete(in, name)
			changed = true
		}
		if len(unknown) > 0 {
			notes = append(notes, "[The input field(s) "+strings.Join(unknown, ", ")+" are not part of this tool's input and were ignored; its fields are "+strings.Join(sh.properties, ", ")+".]")
		}
	}
	if !changed {
		return nil, nil, false
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, nil, false
	}
	return b, notes, true
}

// isSlip reports whether name is one of the slipped names repaired above.
// One left over could not be repaired (both names given, an end line before
// the start): it is not dropped, so the call is refused and the model sees
// which field is wrong, rather than running with half its intent.
func isSlip(name string) bool {
	_, ok := fieldAliases()[name]
	_, acting := actingFields()[name]
	return ok || acting || name == "start_line" || name == "end_line"
}

// lineRange turns start_line/end_line (1-based, inclusive) into offset and
// limit when the input gives no offset or limit of its own.
func lineRange(sh *schemaShape, in map[string]json.RawMessage) bool {
	_, known := sh.props["start_line"]
	startRaw, hasStart := in["start_line"]
	endRaw, hasEnd := in["end_line"]
	if known || (!hasStart && !hasEnd) {
		return false
	}
	if _, dup := in["offset"]; dup {
		return false
	}
	if _, dup := in["limit"]; dup {
		return false
	}
	start, end := 1, 0
	if hasStart {
		n, ok := intValue(startRaw)
		if !ok {
			return false
		}
		start = max(n, 1)
	}
	if hasEnd {
		n, ok := intValue(endRaw)
		if !ok || n < start {
			return false
		}
		end = n
	}
	if hasStart {
		in["offset"] = json.RawMessage(strconv.Itoa(start))
	}
	if hasEnd {
		in["limit"] = json.RawMessage(strconv.Itoa(end - start + 1))
	}
	delete(in, "start_line")
	delete(in, "end_line")
	return true
}

// intValue reads a JSON number or a string holding one.
func intValue(v json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, false
		}
		n = json.Number(strings.TrimSpace(s))
	}
	i, err := n.Int64()
	return int(i), err == nil
}

func isZero(v json.RawMessage) bool {
	var f float64
	return json.Unmarshal(v, &f) == nil && f == 0
}

// coerce turns a string into the number, boolean, array or object the
// property wants, when the string holds exactly that.
func coerce(ps propShape, v json.RawMessage) (json.RawMessage, bool) {
	if ps.is("string") || len(v) == 0 || v[0] != '"' {
		return nil, false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	s = strings.TrimSpace(s)
	switch {
	case ps.is("integer"):
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(i, 10)), true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int64(f)) {
			return json.RawMessage(strconv.FormatInt(int64(f), 10)), true
		}
	case ps.is("number"):
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
	case ps.is("boolean"):
		switch strings.ToLower(s) {
		case "true":
			return json.RawMessage("true"), true
		case "false":
			return json.RawMessage("false"), true
		}
	case ps.is("array"), ps.is("object"):
		open := byte('[')
		if !ps.is("array") {
			open = '{'
		}
		if s != "" && s[0] == open && json.Valid([]byte(s)) {
			return json.RawMessage(s), true
		}
	}
	return nil, false
}

// withNotes returns res with notes appended as text blocks. res may be
// shared (a tool's cache), so it is copied, never changed.
func withNotes(res *tools.Result, notes []string) *tools.Result {
	if res == nil || len(notes) == 0 {
		return res
	}
	out := *res
	out.Content = append(make([]tools.Content, 0, len(res.Content)+len(notes)), res.Content...)
	for _, n := range notes {
		out.Content = append(out.Content, tools.Content{Type: "text", Text: n})
	}
	return &out
}
