package mcpserver

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
)

// Deferred listing on the MCP front doors. Claude Code, as an MCP client,
// defers MCP tools itself, so by default every tool is listed in full; a
// client that wants toolhost to defer (one that sends its tool list to a
// model as it is) asks for it with the experimental capability
// DeferredCapability in its initialize request, or the server is started
// with `toolhost mcp --deferred`. Such a client gets the deferred tools
// (the tools.deferred setting) by name with an empty schema, and loads a
// definition with ToolSearch before calling the tool. A call of a deferred
// tool runs as any other: only the listing is shorter.

// DeferredCapability is the key of ClientCapabilities.Experimental with
// which a client asks for the deferred listing.
const DeferredCapability = "toolhost/deferredTools"

// DeferredMetaKey marks, in a served tool's _meta, a tool deferred under
// the session's tools.deferred setting. The marker is set where the
// session's settings are known (the server of the session) and read where
// the listing is answered, which for `toolhost mcp --attach` is a proxy
// that only sees the session's tools.
const DeferredMetaKey = "toolhost/deferred"

// deferredSchema is a deferred tool's input schema in a deferred listing
// (MCP requires one). A deferred tool has no description: the per-tool
// sentence cost as much as the name on every request (an MCP tool of a
// real server is 500-1000 bytes, its name 20-40), and ToolSearch's own
// description says once that a tool listed by name with an empty schema
// is loaded there first.
var deferredSchema = json.RawMessage(`{"type":"object"}`)

// deferListing returns the middleware that answers tools/list with the
// deferred listing when all is set or the client asked for it.
func deferListing(all bool) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || method != "tools/list" {
				return res, err
			}
			list, ok := res.(*sdk.ListToolsResult)
			if !ok || !(all || clientDefers(req.GetSession())) {
				return res, nil
			}
			return deferredList(list), nil
		}
	}
}

// clientDefers reports whether the client of s asked for the deferred
// listing.
func clientDefers(s sdk.Session) bool {
	ss, ok := s.(*sdk.ServerSession)
	if !ok {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return false
	}
	_, asked := p.Capabilities.Experimental[DeferredCapability]
	return asked
}

// deferredList is list with each deferred tool reduced to its name. The
// served tools are shared by every client: they are copied, never changed.
func deferredList(list *sdk.ListToolsResult) *sdk.ListToolsResult {
	out := *list
	out.Tools = make([]*sdk.Tool, len(list.Tools))
	for i, t := range list.Tools {
		if deferred, _ := t.Meta[DeferredMetaKey].(bool); deferred {
			t = &sdk.Tool{Name: t.Name, InputSchema: deferredSchema, Meta: sdk.Meta{DeferredMetaKey: true}}
		}
		out.Tools[i] = t
	}
	return &out
}

// deferredMeta is the _meta of a served tool: the deferred marker when
// patterns (the tools.deferred setting; nil means the defaults) defer it.
func deferredMeta(name string, patterns []string) sdk.Meta {
	if tools.IsDeferred(name, patterns) {
		return sdk.Meta{DeferredMetaKey: true}
	}
	return nil
}
