package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// httpServer is a streamable-HTTP MCP server in the test process. Its
// "wait" tool blocks until the call is cancelled and reports that.
type httpServer struct {
	*sdk.Server
	url       string
	cancelled chan struct{}
	started   chan struct{}

	mu          sync.Mutex
	authHeaders []string
}

func newHTTPServer(t *testing.T) *httpServer {
	h := &httpServer{cancelled: make(chan struct{}), started: make(chan struct{})}
	h.Server = sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	destructive := true
	h.AddTool(&sdk.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			close(h.started)
			<-ctx.Done()
			close(h.cancelled)
			return nil, ctx.Err()
		})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.Server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.authHeaders = append(h.authHeaders, r.Header.Get("Authorization"))
		h.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

func TestHTTPServer(t *testing.T) {
	h := newHTTPServer(t)
	t.Setenv("TOOLHOST_TEST_TOKEN", "s3cret")
	_, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{
		"remote": {Type: "http", URL: h.url, Headers: map[string]string{"Authorization": "Bearer ${TOOLHOST_TEST_TOKEN}"}},
	}, nil)
	st, _ := log.waitFor(t, 0, "remote connected", connected("remote"))
	if st.Transport != "http" || st.Tools != 1 {
		t.Fatalf("status = %+v", st)
	}
	h.mu.Lock()
	auth := h.authHeaders[0]
	h.mu.Unlock()
	if auth != "Bearer s3cret" {
		t.Errorf("Authorization header = %q", auth)
	}

	t.Run("annotations set the risk", func(t *testing.T) {
		e, _ := reg.Lookup("mcp__remote__wait")
		if r := e.Tool.(tools.RiskAssessor).Risk(nil); r != tools.RiskCritical {
			t.Fatalf("destructive tool risk = %s", r)
		}
		if e.Tool.SideEffect() != tools.SideEffectNetwork {
			t.Fatalf("side effect = %s", e.Tool.SideEffect())
		}
		if a := e.Tool.(tools.AccessDescriber).Access(nil); len(a.Exclusive) != 1 || a.Exclusive[0] != "mcp:remote" {
			t.Fatalf("a changing call is not exclusive per server: %+v", a)
		}
	})

	t.Run("list_changed registers new tools", func(t *testing.T) {
		changed := make(chan struct{}, 1)
		reg.OnChange(func() {
			if _, ok := reg.Lookup("mcp__remote__peek"); ok {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		})
		h.AddTool(&sdk.Tool{Name: "peek", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "peeked"}}}, nil
			})
		if _, ok := reg.Lookup("mcp__remote__peek"); !ok {
			<-changed
		}
		res, _ := call(t, reg, "mcp__remote__peek", map[string]any{})
		if res.Text() != "peeked" {
			t.Fatalf("peek = %+v", res)
		}
		e, _ := reg.Lookup("mcp__remote__peek")
		if r := e.Tool.(tools.RiskAssessor).Risk(nil); r != tools.RiskLow || e.Tool.SideEffect() != tools.SideEffectNone {
			t.Fatalf("read-only tool: risk %s, side effect %s", r, e.Tool.SideEffect())
		}
		if a := e.Tool.(tools.AccessDescriber).Access(nil); len(a.Exclusive) != 0 {
			t.Fatalf("a read-only call is exclusive: %+v", a)
		}
	})

	t.Run("cancelling a call cancels it on the server", func(t *testing.T) {
		e, _ := reg.Lookup("mcp__remote__wait")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := e.Tool.Execute(ctx, &tools.Call{Input: []byte(`{}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
			done <- err
		}()
		<-h.started
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled call returned no error")
		}
		<-h.cancelled // the server's handler saw notifications/cancelled
	})
}

func TestToolNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "do.it/now", "mcp__my_server__do_it_now"},
		{"everything", "trigger-long-running-operation", "mcp__everything__trigger-long-running-operation"},
	}
	for _, tc := range tests {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b")
	if len(a) != 64 || len(b) != 64 || a == b || !strings.HasPrefix(a, "mcp__srv__") {
		t.Errorf("long names %q and %q: want 64 chars, distinct, with the prefix", a, b)
	}
	if p := ToolPrefix(long); !strings.HasPrefix(ToolName(long, long), p) {
		t.Errorf("a long server name loses its prefix %q", p)
	}
}

func TestSSEServer(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "legacy", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello over sse"}}}, nil
		})
	httpSrv := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(httpSrv.Close)

	_, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"legacy": {Type: "sse", URL: httpSrv.URL}}, nil)
	st, _ := log.waitFor(t, 0, "legacy connected", connected("legacy"))
	if st.Transport != "sse" || st.Tools != 1 {
		t.Fatalf("status = %+v", st)
	}
	if res, _ := call(t, reg, "mcp__legacy__hello", map[string]any{}); res.Text() != "hello over sse" {
		t.Fatalf("hello = %+v", res)
	}
}
