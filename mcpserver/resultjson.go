package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// encodeResults hands the SDK each tool result as an encodedResult, so
// that the text of an answer is escaped once and compacted once.
//
// The SDK encodes a CallToolResult with encoding/json in three nested
// Marshals (the response, the result, each content), and encoding/json
// validates and compacts, byte by byte, the output of every MarshalJSON
// it meets: a Read's text, which its structured content holds again, was
// escaped twice and scanned four times more. That was about half of the
// instructions the server spent on a Read of 50 lines (callgrind, docs/mcp.md).
func encodeResults(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && err == nil {
			return encodedResult{r}, nil
		}
		return res, err
	}
}

// encodedResult is a CallToolResult whose JSON is its own (byte for byte)
// built in one pass. The embedded result keeps the SDK's methods, so the
// SDK can still read and mark it (its result type is set after the
// handlers return, and so after encodeResults).
type encodedResult struct{ *sdk.CallToolResult }

// contentNull is how the envelope, encoded without content, holds its
// place.
var contentNull = []byte(`"content":null`)

// MarshalJSON encodes the result as the SDK's own MarshalJSON does: the
// SDK encodes the envelope (meta, error flag, result type: its fields),
// without the content and the structured content, and these are put in
// its place.
func (r encodedResult) MarshalJSON() ([]byte, error) {
	x := r.CallToolResult
	if len(x.Meta) > 0 {
		// _meta comes before the content and could hold the same key.
		return x.MarshalJSON()
	}
	shell := *x
	shell.Content, shell.StructuredContent = nil, nil
	env, err := shell.MarshalJSON()
	if err != nil {
		return nil, err
	}
	at := bytes.Index(env, contentNull)
	if at < 0 {
		return x.MarshalJSON()
	}
	size := len(env) + 64
	for _, c := range x.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			size += len(t.Text) + len(t.Text)/8 + 32
		}
	}
	if raw, ok := x.StructuredContent.(json.RawMessage); ok {
		size += len(raw) + 24
	}
	b := make([]byte, 0, size)
	b = append(b, env[:at]...)
	b = append(b, `"content":`...)
	if b, err = appendContent(b, x.Content); err != nil {
		return nil, err
	}
	if x.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		if raw, ok := x.StructuredContent.(json.RawMessage); ok {
			// The enclosing encoder validates and compacts the whole.
			b = append(b, raw...)
		} else {
			s, err := json.Marshal(x.StructuredContent)
			if err != nil {
				return nil, err
			}
			b = append(b, s...)
		}
	}
	return append(b, env[at+len(contentNull):]...), nil
}

// appendContent appends the content list as encoding/json encodes it: a
// plain text is written directly, escaped as encoding/json escapes
// (HTML characters, U+2028/U+2029, invalid UTF-8 as U+FFFD); anything
// else goes through encoding/json.
func appendContent(b []byte, cs []sdk.Content) ([]byte, error) {
	if cs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		if t, ok := c.(*sdk.TextContent); ok && t != nil && t.Meta == nil && t.Annotations == nil {
			b = append(b, `{"type":"text","text":`...)
			b = append(segjson.AppendEscape(b, t.Text, segjson.EscapeHTML), '}')
			continue
		}
		e, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, e...)
	}
	return append(b, ']'), nil
}
