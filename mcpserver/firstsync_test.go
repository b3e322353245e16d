package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// TestOnlyChangesAfterTheFirstSyncAreAnnounced: the first adding of the
// tools, which runs while a client's handshake is under way, sets off no
// tools/list_changed; a later sync that changes the tools does, one that
// changes nothing does not count, and other messages pass.
func TestOnlyChangesAfterTheFirstSyncAreAnnounced(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	srv := New(reg, engine.NewPipeline(reg, nil), nil)
	t.Cleanup(srv.Close)
	<-srv.ready

	sent := map[string]int{}
	send := srv.quietFirstSync(func(_ context.Context, method string, _ sdk.Request) (sdk.Result, error) {
		sent[method]++
		return nil, nil
	})
	const listChanged = "notifications/tools/list_changed"
	steps := []struct {
		name     string
		change   func()
		wantSent int
	}{
		{"after the first sync", func() {}, 0},
		{"after a sync that changes nothing", srv.sync, 0},
		{"after a tool was added", func() { reg.Register(tools.CategoryMCP, renamed{stepsTool{}, "mcp__srv__more"}) }, 1},
		{"after a tool was removed", func() { reg.RemovePrefix("mcp__srv__") }, 2},
	}
	for _, st := range steps {
		st.change()
		if _, err := send(context.Background(), listChanged, nil); err != nil {
			t.Fatal(err)
		}
		if sent[listChanged] != st.wantSent {
			t.Errorf("%s: %d tools/list_changed sent in all, want %d", st.name, sent[listChanged], st.wantSent)
		}
	}
	if _, err := send(context.Background(), "notifications/progress", nil); err != nil || sent["notifications/progress"] != 1 {
		t.Errorf("a progress notification was held back (%v)", err)
	}
}

// schemaTool is a tool with a given input schema.
type schemaTool struct {
	stepsTool
	schema string
}

func (s schemaTool) InputSchema() json.RawMessage { return json.RawMessage(s.schema) }

// TestInputSchemaServesOnlyObjectSchemas: an object schema is served as
// the tool gives it; anything else (another type, a list of types, no
// type, not JSON) as the open object schema the SDK accepts.
func TestInputSchemaServesOnlyObjectSchemas(t *testing.T) {
	const open = `{"type":"object"}`
	for _, tt := range []struct {
		schema, want string
	}{
		{`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, ""},
		{`{"properties":{"a":{"type":"string"}},"type":"object"}`, ""},
		{`{"type":"string"}`, open},
		{`{"type":["object","null"]}`, open},
		{`{"properties":{}}`, open},
		{`{"type":"object"`, open},
		{``, open},
	} {
		want := tt.want
		if want == "" {
			want = tt.schema
		}
		if got := string(inputSchema(schemaTool{schema: tt.schema})); got != want {
			t.Errorf("inputSchema(%s) = %s, want %s", tt.schema, got, want)
		}
	}
}

// TestEarlierListenersFindTheChange: a registry listener added before the
// server's (the editor's, which tells the editor of new tools) that lists
// and calls tools at once, before the server's own listener has run,
// finds the registry as it is now.
func TestEarlierListenersFindTheChange(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	type seen struct {
		listed   bool
		callFail bool
	}
	var (
		session *sdk.ClientSession
		got     seen
	)
	const added = "mcp__srv__added"
	reg.OnChange(func() {
		res, err := session.ListTools(context.Background(), nil)
		if err != nil {
			t.Errorf("listing from the listener: %v", err)
			return
		}
		got = seen{}
		for _, tl := range res.Tools {
			got.listed = got.listed || tl.Name == added
		}
		call, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: added, Arguments: map[string]any{}})
		got.callFail = err != nil || call.IsError
	})
	srv := New(reg, engine.NewPipeline(reg, nil), nil)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverT); err != nil {
		t.Fatal(err)
	}
	var err error
	if session, err = sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })

	for _, step := range []struct {
		name   string
		change func()
		want   seen
	}{
		{"a tool added", func() { reg.Register(tools.CategoryMCP, renamed{stepsTool{}, added}) }, seen{listed: true}},
		{"the tool disabled", func() { _ = reg.SetEnabled([]string{added}, false) }, seen{callFail: true}},
		{"the tool enabled", func() { _ = reg.SetEnabled([]string{added}, true) }, seen{listed: true}},
		{"the tool removed", func() { reg.RemovePrefix("mcp__srv__") }, seen{callFail: true}},
	} {
		step.change()
		if got != step.want {
			t.Errorf("%s: the earlier listener saw %+v, want %+v", step.name, got, step.want)
		}
	}
}

// TestAnsweredRunsOnceAfterTheFirstAnswer: the transport's answered hook
// (where Serve starts adding the tools) runs after the first answer is
// written, not for a request or notification of the server's, and once.
func TestAnsweredRunsOnceAfterTheFirstAnswer(t *testing.T) {
	var out strings.Builder
	var seenThen []string
	s := newTestStdio(t, strings.NewReader(""), &out, 0, func(s *stdio) {
		s.answered = func() { seenThen = append(seenThen, out.String()) }
	})
	id, _ := jsonrpc.MakeID(float64(1))
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{}`)},
		&jsonrpc.Request{ID: id, Method: "roots/list"},
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"first":true}`)},
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)},
	} {
		if err := s.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	if len(seenThen) != 1 || !strings.Contains(seenThen[0], `"first":true`) {
		t.Fatalf("answered ran %d times, seeing %q; want once, after the first answer was written", len(seenThen), seenThen)
	}
}

// TestLaterMaxRunsOnceWhenTheSecondLineBegins: the transport's laterMax
// hook (where Serve waits for its session, for the cap on lines) runs once
// the client's second line begins to arrive, not while the first is handed
// on and answered, and once; the cap it returns holds for the lines after
// it. A client that sends one line and closes its input runs it too.
func TestLaterMaxRunsOnceWhenTheSecondLineBegins(t *testing.T) {
	const (
		first  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n"
		long   = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"padding":"more than sixty bytes, in all"}}` + "\n"
		second = `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	)
	t.Run("a second line", func(t *testing.T) {
		in, client := io.Pipe()
		var out strings.Builder
		var secondSent atomic.Bool
		var calls []bool
		s := newTestStdio(t, in, &out, 0, func(s *stdio) {
			s.laterMax = func() int {
				calls = append(calls, secondSent.Load())
				return 60
			}
		})
		go func() { _, _ = io.WriteString(client, first) }()
		if msg, err := s.Read(context.Background()); err != nil || msg.(*jsonrpc.Request).Method != "initialize" {
			t.Fatalf("first message %v, %v; want the initialize request", msg, err)
		}
		secondSent.Store(true)
		go func() {
			_, _ = io.WriteString(client, long+second)
			_ = client.Close()
		}()
		msgs, err := readAll(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || !calls[0] {
			t.Fatalf("laterMax ran %d times (the second line sent then: %v); want once, once the second line came", len(calls), calls)
		}
		if len(msgs) != 1 || msgs[0].(*jsonrpc.Request).Method != "ping" {
			t.Errorf("handed on %v after the first; want only the ping (the longer line is over laterMax's cap); out %q", msgs, out.String())
		}
		if !strings.Contains(out.String(), "longer than 60 bytes") {
			t.Errorf("the line over laterMax's cap was not refused: %q", out.String())
		}
	})
	t.Run("the input ends after one line", func(t *testing.T) {
		calls := 0
		s := newTestStdio(t, strings.NewReader(first), io.Discard, 0, func(s *stdio) {
			s.laterMax = func() int { calls++; return 0 }
		})
		if _, err := readAll(s); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("laterMax ran %d times; want once, at the end of the input", calls)
		}
	})
}

// TestSyncLaterAddsTheToolsOnTheFirstTrigger: a server made with
// SyncLater adds no tool before it is triggered, by the first answer
// (Serve's transport) or by a tool request that comes first; either way a
// tools/list then lists the registry's tools.
func TestSyncLaterAddsTheToolsOnTheFirstTrigger(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trigger func(*Server)
	}{
		{"the first answer", func(s *Server) { s.startFirstSync() }},
		{"a tools/list first", func(*Server) {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := tools.NewRegistry()
			reg.Register(tools.CategoryCore, stepsTool{})
			srv := NewServer(reg, engine.NewPipeline(reg, nil), nil, Config{SyncLater: true})
			t.Cleanup(srv.Close)
			select {
			case <-srv.ready:
				t.Fatal("the tools were added before anything asked for them")
			default:
			}
			if srv.syncs.Load() != 0 {
				t.Fatal("a sync ran before anything asked for it")
			}
			tt.trigger(srv)
			// The bound only turns a tools/list that waits for ever into
			// a failure.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			t.Cleanup(cancel)
			serverT, clientT := sdk.NewInMemoryTransports()
			if _, err := srv.Connect(ctx, serverT); err != nil {
				t.Fatal(err)
			}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != 1 || res.Tools[0].Name != "Steps" {
				t.Errorf("listed %v, want the registry's one tool", res.Tools)
			}
		})
	}
}
