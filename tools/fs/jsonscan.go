package fs

import (
	"bytes"
	"encoding/json"
)

// The scanners below walk a JSON document already checked with json.Valid,
// finding the byte range of values without decoding them: a notebook of a
// hundred megabytes is looked into cell by cell, not turned into maps.

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// at i.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// valueEnd returns the index just past the value that starts at i.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = stringEnd(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// members calls fn with the key and value range of each member of the
// object at sp, in order, until fn returns false.
func members(data []byte, sp span, fn func(key string, val span) bool) {
	i := skipSpace(data, sp.start)
	if i >= sp.end || data[i] != '{' {
		return
	}
	for i = skipSpace(data, i+1); i < sp.end && data[i] == '"'; {
		kEnd := stringEnd(data, i)
		key := jsonKey(data[i:kEnd])
		v := skipSpace(data, skipSpace(data, kEnd)+1) // past the colon
		vEnd := valueEnd(data, v)
		if !fn(key, span{v, vEnd}) {
			return
		}
		i = skipSpace(data, vEnd)
		if i < sp.end && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
}

// elements calls fn with the range of each element of the array at sp.
func elements(data []byte, sp span, fn func(i int, val span) bool) {
	i := skipSpace(data, sp.start)
	if i >= sp.end || data[i] != '[' {
		return
	}
	i = skipSpace(data, i+1)
	for n := 0; i < sp.end && data[i] != ']'; n++ {
		end := valueEnd(data, i)
		if !fn(n, span{i, end}) {
			return
		}
		i = skipSpace(data, end)
		if i < sp.end && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
}

// jsonKey decodes a quoted key; most have no escapes and need no decoder.
func jsonKey(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// jsonString decodes the value at sp when it is a string.
func jsonString(data []byte, sp span) (string, bool) {
	if sp.start >= sp.end || data[sp.start] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(data[sp.start:sp.end], &s) != nil {
		return "", false
	}
	return s, true
}
