package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
)

// sdkWire encodes a result as the SDK's JSON-RPC layer encodes one: an
// encoder that leaves HTML characters as they are, without its newline.
func sdkWire(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestEncodedResultIsTheSDKsEncoding: a result handed to the SDK as an
// encodedResult reaches the client byte for byte as the SDK would have
// encoded the CallToolResult itself, whatever its text holds (escapes,
// HTML characters, invalid UTF-8, line separators) and whatever else it
// carries.
func TestEncodedResultIsTheSDKsEncoding(t *testing.T) {
	awkward := "line 1: <a href=\"x\">&amp;</a>\n\ttab\\back \x01 \u2028\u2029 bad:\xff\xfe end ☃ 𝄞"
	tests := []struct {
		name string
		res  *sdk.CallToolResult
	}{
		{"a Read's text and its structured copy", toMCPResult(readLike(awkward))},
		{"no content", &sdk.CallToolResult{Content: []sdk.Content{}}},
		{"nil content", &sdk.CallToolResult{}},
		{"an error", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "Error: " + awkward}}}},
		{"several texts", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: ""}, &sdk.TextContent{Text: awkward}}}},
		{"an image between texts", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}}}},
		{"a text with annotations", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a<b", Annotations: &sdk.Annotations{Priority: 0.5}}}}},
		{"a text with _meta", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x", Meta: sdk.Meta{"k": "v"}}}}},
		{"_meta on the result", &sdk.CallToolResult{Meta: sdk.Meta{"content": nil}, Content: []sdk.Content{&sdk.TextContent{Text: "x"}}}},
		{"structured content as a map", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x"}}, StructuredContent: map[string]any{"b": "<&>", "a": 1}}},
		{"a request state", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x"}}, RequestState: "s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := sdkWire(t, tt.res)
			got := sdkWire(t, encodedResult{tt.res})
			if !bytes.Equal(got, want) {
				t.Errorf("encoded\n%s\nthe SDK encodes\n%s", got, want)
			}
		})
	}
}

// readLike is a Read's result as the tools give it: the numbered text and
// a structured copy of the file's part.
func readLike(text string) *tools.Result {
	return &tools.Result{
		Content:    []tools.Content{{Type: "text", Text: text}},
		Structured: map[string]any{"type": "text", "file": map[string]any{"content": text, "numLines": strings.Count(text, "\n")}},
	}
}
