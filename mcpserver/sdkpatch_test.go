package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPatchedSDKPagesWithItsOwnCursors: the patched SDK's pagination
// cursor (third_party/go-sdk/PATCHES.md) pages through a list it made,
// and a cursor it did not make is refused.
func TestPatchedSDKPagesWithItsOwnCursors(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "paged", Version: "1"}, &sdk.ServerOptions{PageSize: 1})
	for _, name := range []string{"first", "second"} {
		server.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	var names []string
	cursor := ""
	for range 3 {
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(names, " ") != "first second" {
		t.Errorf("paged through %v, want first and second, one a page", names)
	}
	for _, bad := range []string{"not base64!", "bm90IGEgdG9rZW4="} {
		if _, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: bad}); err == nil {
			t.Errorf("cursor %q was taken; want an error", bad)
		}
	}
}
