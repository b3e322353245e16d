// Package jsonstr decodes the JSON strings that carry a file's whole text
// (a Write's content, an editor's didOpen and didChange), which can be
// megabytes long. segmentio/encoding, which decodes the messages around
// them, unquotes such a string in pieces (a growing buffer, then a copy into
// the string): about 28 ms and twice the text's size in allocations for
// 5 MB of short lines. jsontext's AppendUnquote (the Go team's encoding/json
// v2 prototype) does it in 4 ms into one buffer sized up front, which the
// string then keeps.
package jsonstr

import (
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	segjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/internal/hugemem"
)

// Decode returns the string the JSON value raw stands for, as
// encoding/json decodes it into a string: null is "", invalid UTF-8 and
// lone surrogates become U+FFFD, any other kind of value is an error.
func Decode(raw []byte) (string, error) {
	if len(raw) > 0 && raw[0] == '"' {
		// An unquoted string is never longer than its quoted form, save
		// invalid UTF-8 (a byte becomes U+FFFD's three), and then the
		// answer comes from the fallback below anyway.
		b, err := jsontext.AppendUnquote(hugemem.Bytes(len(raw))[:0], raw)
		if err == nil {
			// b is not touched again: the string owns it.
			return unsafe.String(unsafe.SliceData(b), len(b)), nil
		}
	}
	// Not a string, a malformed one, or one with invalid UTF-8: decoded
	// and worded as the messages' own decoder does.
	var s string
	err := segjson.Unmarshal(raw, &s)
	return s, err
}
