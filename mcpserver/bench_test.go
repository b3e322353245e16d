package mcpserver

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallOverhead measures what the server adds to a call beyond the
// protocol: a ping round trip against a tools/call of a tool that does
// almost nothing, both in process.
func BenchmarkCallOverhead(b *testing.B) {
	f := connect(b, nil)
	ctx := context.Background()
	b.Run("ping", func(b *testing.B) {
		for b.Loop() {
			if err := f.session.Ping(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tools-call", func(b *testing.B) {
		for b.Loop() {
			res, err := f.session.CallTool(ctx, &sdk.CallToolParams{Name: "Steps", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
