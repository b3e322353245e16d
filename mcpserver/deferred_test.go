package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/toolsearch"
)

// remoteTool stands for a tool of a configured MCP server: a paragraph of
// description and a schema of several documented properties, as GitHub's
// or Slack's servers describe theirs.
type remoteTool struct{ name string }

func (r remoteTool) Name() string { return r.name }
func (r remoteTool) Description() string {
	return "Calls " + r.name + ". " + strings.Repeat("Talks to the remote service and returns what it answers, as JSON text. ", 6)
}
func (remoteTool) SideEffect() tools.SideEffect { return tools.SideEffectMutating }
func (remoteTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
 "owner":{"type":"string","description":"Repository owner (user or organisation)."},
 "repo":{"type":"string","description":"Repository name."},
 "title":{"type":"string","description":"Title of the item to create or change."},
 "body":{"type":"string","description":"Body text, Markdown allowed."},
 "page":{"type":"number","description":"Page of results, from 1."}},
 "required":["owner","repo"],"additionalProperties":false}`)
}
func (r remoteTool) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	return tools.TextResult(r.name + " got " + string(call.Input)), nil
}

// deferringServer serves Steps, ToolSearch and 40 MCP tools.
func deferringServer(t *testing.T, all bool) *Server {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	for i := range 40 {
		reg.Register(tools.CategoryExtras, remoteTool{fmt.Sprintf("mcp__srv%d__tool%d", i/5, i%5)})
	}
	reg.Register(tools.CategoryState, toolsearch.New(reg, settings.Defaults))
	srv := NewServer(reg, engine.NewPipeline(reg, nil), nil, Config{DeferListing: all})
	t.Cleanup(srv.Close)
	return srv
}

// clientOf connects a client to srv; asking sends DeferredCapability.
func clientOf(t *testing.T, srv *Server, asking bool) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverT); err != nil {
		t.Fatal(err)
	}
	return connectClient(t, ctx, clientT, asking)
}

// connectClient connects a Go SDK client over tr.
func connectClient(t *testing.T, ctx context.Context, tr sdk.Transport, asking bool) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	if asking {
		client.AddSendingMiddleware(askDeferred)
	}
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// askDeferred adds DeferredCapability to the client's initialize request.
func askDeferred(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if p, ok := req.GetParams().(*sdk.InitializeParams); ok && method == "initialize" {
			if p.Capabilities == nil {
				p.Capabilities = &sdk.ClientCapabilities{}
			}
			p.Capabilities.Experimental = map[string]any{DeferredCapability: map[string]any{}}
		}
		return next(ctx, method, req)
	}
}

// listed is a client's tools/list answer, as JSON, and its tools by name.
func listed(t *testing.T, cs *sdk.ClientSession) ([]byte, map[string]*sdk.Tool) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	return raw, byName
}

// TestDeferredListingOnTheMCPFrontDoor: a client that does not ask (as
// Claude Code, which defers MCP tools itself) gets every definition; one
// that asks, or any client of a server started with --deferred, gets the
// 40 MCP tools by name — under a fifth of the full listing — still calls
// them, and loads a definition with ToolSearch.
func TestDeferredListingOnTheMCPFrontDoor(t *testing.T) {
	full, _ := listed(t, clientOf(t, deferringServer(t, false), false))
	tests := []struct {
		name     string
		all      bool
		asking   bool
		deferred bool
	}{
		{name: "a client that does not ask gets the full listing", deferred: false},
		{name: "a client that asks gets the deferred listing", asking: true, deferred: true},
		{name: "--deferred defers for every client", all: true, deferred: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := clientOf(t, deferringServer(t, tt.all), tt.asking)
			raw, byName := listed(t, cs)
			remote := byName["mcp__srv3__tool2"]
			if remote == nil || byName["Steps"] == nil || byName[tools.ToolSearchName] == nil {
				t.Fatalf("the listing lacks a tool: %.300s", raw)
			}
			isDeferred := remote.Description == deferredDescription
			if isDeferred != tt.deferred {
				t.Fatalf("mcp__srv3__tool2 deferred = %v, want %v: %+v", isDeferred, tt.deferred, remote)
			}
			if byName["Steps"].Description == deferredDescription || byName[tools.ToolSearchName].Description == deferredDescription {
				t.Errorf("a built-in tool or ToolSearch was deferred")
			}
			if tt.deferred {
				t.Logf("40 MCP tools over MCP: full listing %d bytes, deferred listing %d bytes (%.1f%%)", len(full), len(raw), 100*float64(len(raw))/float64(len(full)))
				if len(raw)*5 >= len(full) {
					t.Errorf("the deferred listing is %d bytes, not under a fifth of the full %d", len(raw), len(full))
				}
			}
			// A deferred tool is called as any other, with its real schema.
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "mcp__srv3__tool2", Arguments: map[string]any{"owner": "o", "repo": "r"}})
			if err != nil || res.IsError || !strings.Contains(text(res), `mcp__srv3__tool2 got {"owner":"o","repo":"r"}`) {
				t.Fatalf("calling a deferred tool: %v %+v", err, res)
			}
			res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tools.ToolSearchName, Arguments: map[string]any{"query": "select:mcp__srv3__tool2"}})
			if err != nil || res.IsError || !strings.Contains(text(res), `"name":"mcp__srv3__tool2"`) || !strings.Contains(text(res), "Repository owner (user or organisation).") {
				t.Fatalf("ToolSearch did not load the definition: %v %.300s", err, text(res))
			}
		})
	}
}

// TestAttachDefersAsTheSessionSays: `toolhost mcp --attach` answers its
// client's listing from the editor session's tools, deferring those the
// session marks deferred when the client asks.
func TestAttachDefersAsTheSessionSays(t *testing.T) {
	srv := deferringServer(t, false)
	web := httptest.NewServer(srv.Handler())
	t.Cleanup(web.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	toProxy, fromClient := io.Pipe()
	toClient, fromProxy := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Attach(ctx, toProxy, fromProxy, AttachOptions{Session: discovery.Info{URL: web.URL, Token: "t"}})
	}()
	t.Cleanup(func() {
		cancel()
		_ = fromClient.Close()
		<-done
	})
	cs := connectClient(t, ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, true)
	raw, byName := listed(t, cs)
	if byName["mcp__srv0__tool0"] == nil || byName["mcp__srv0__tool0"].Description != deferredDescription {
		t.Fatalf("the attached listing does not defer the MCP tools: %.400s", raw)
	}
	if byName["Steps"] == nil || byName["Steps"].Description == deferredDescription {
		t.Fatalf("the attached listing deferred a built-in: %.400s", raw)
	}
}

// TestDeferredListingWithTheBuiltIns measures the deferred listing of a
// real session's tools (toolhost's built-ins, with their full
// descriptions) plus 40 MCP tools, over MCP, and prints both ratios: the
// 40 MCP tools' part of the listing, which deferring shrinks to names and
// must bring under a fifth, and the whole listing, where the built-ins
// Claude Code lists whole (Bash, Read, Edit, Grep, Agent, ...) stay.
func TestDeferredListingWithTheBuiltIns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	sess, err := session.New(session.Options{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	for i := range 40 {
		sess.Registry.Register(tools.CategoryExtras, remoteTool{fmt.Sprintf("mcp__srv%d__tool%d", i/5, i%5)})
	}
	size := func(all bool) (whole, mcp int) {
		srv := NewServer(sess.Registry, sess.Pipeline, nil, Config{DeferListing: all, Deferred: func() []string { return nil }})
		t.Cleanup(srv.Close)
		res, err := clientOf(t, srv, false).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			raw, err := json.Marshal(tl)
			if err != nil {
				t.Fatal(err)
			}
			whole += len(raw)
			if strings.HasPrefix(tl.Name, "mcp__") {
				mcp += len(raw)
			}
		}
		return whole, mcp
	}
	fullWhole, fullMCP := size(false)
	defWhole, defMCP := size(true)
	t.Logf("40 MCP tools and the built-ins over MCP: the MCP tools' part %d → %d bytes (%.1f%%); the whole listing %d → %d bytes (%.1f%%)",
		fullMCP, defMCP, 100*float64(defMCP)/float64(fullMCP), fullWhole, defWhole, 100*float64(defWhole)/float64(fullWhole))
	if defMCP*5 >= fullMCP {
		t.Errorf("the MCP tools' part of the deferred listing is %d bytes, not under a fifth of the full %d", defMCP, fullMCP)
	}
}
