package ideserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// scriptedEditor answers the editor's tools with fixed JSON and records
// what it was asked.
type scriptedEditor struct {
	answers map[string]string
	mu      sync.Mutex
	asked   []string
}

func (e *scriptedEditor) IDETool(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	e.mu.Lock()
	e.asked = append(e.asked, name+" "+string(args))
	e.mu.Unlock()
	a, ok := e.answers[name]
	if !ok {
		return nil, errors.New("no answer scripted for " + name)
	}
	return json.RawMessage(a), nil
}

// logBuffer collects the server's logs at debug level.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func start(t *testing.T, cfg Config) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	cfg.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if cfg.LockDir == "" {
		cfg.LockDir = t.TempDir()
	}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, logs
}

func url(s *Server) string { return "ws://127.0.0.1:" + strconv.Itoa(s.Port()) }

// dial opens a raw WebSocket with token (none when empty).
func dial(ctx context.Context, s *Server, token string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if token != "" {
		h.Set(TokenHeader, token)
	}
	return websocket.Dial(ctx, url(s), &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{Subprotocol}})
}

// connect is an MCP client session over the WebSocket, as the CLI's;
// notifications the CLI would receive go to got.
func connect(t *testing.T, s *Server, got func(method string, params json.RawMessage)) *sdk.ClientSession {
	t.Helper()
	ctx := t.Context()
	ws, _, err := dial(ctx, s, s.token)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-test"}, nil).Connect(ctx, wsTransport{&wsConn{ws: ws, notified: got}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestTokenIsRequired(t *testing.T) {
	s, logs := start(t, Config{})
	for _, tc := range []struct {
		name, token string
		status      int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "0123", http.StatusUnauthorized},
		{"token with a suffix", s.token + "x", http.StatusUnauthorized},
		{"token prefix", s.token[:10], http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := dial(t.Context(), s, tc.token)
			if err == nil {
				t.Fatal("connected without the token")
			}
			if resp == nil || resp.StatusCode != tc.status {
				t.Fatalf("response %v, want status %d", resp, tc.status)
			}
		})
	}
	ws, _, err := dial(t.Context(), s, s.token)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	if ws.Subprotocol() != Subprotocol {
		t.Errorf("subprotocol %q, want %q", ws.Subprotocol(), Subprotocol)
	}
	ws.CloseNow()
	if strings.Contains(logs.String(), s.token) || strings.Contains(logs.String(), s.token[:10]) {
		t.Errorf("the token is in the logs:\n%s", logs)
	}
	if !strings.Contains(logs.String(), "missing or wrong token") {
		t.Errorf("the refusals are not logged:\n%s", logs)
	}
}

func text(t *testing.T, res *sdk.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

func TestTools(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.go")
	dirty := filepath.Join(dir, "dirty.go")
	for _, p := range []string{clean, dirty} {
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs := map[string]string{clean: "package x\n", dirty: "package x // edited\n"}
	ed := &scriptedEditor{answers: map[string]string{
		"openDiff":         `{"saved":true,"text":"package x // the user's version\n"}`,
		"closeAllDiffTabs": `{"closed":2}`,
		"close_tab":        `{}`,
		"getDiagnostics":   `[{"uri":"file:///a.go","diagnostics":[{"message":"undefined: y","severity":"Error"}]}]`,
		"openFile":         `{"success":true,"filePath":"/a.go","lineCount":3}`,
	}}
	s, _ := start(t, Config{Editor: ed, Folders: func() []string { return []string{dir} },
		Document: func(p string) (string, bool) { d, ok := docs[p]; return d, ok }})
	cs := connect(t, s, nil)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(protocolTools()) {
		t.Errorf("%d tools listed, want %d", len(list.Tools), len(protocolTools()))
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
		err  bool
	}{
		{"openDiff", map[string]any{"old_file_path": clean, "new_file_path": clean, "new_file_contents": "package x // proposed\n", "tab_name": "t1"},
			[]string{"FILE_SAVED", "package x // the user's version\n"}, false},
		{"openDiff", map[string]any{"old_file_path": clean}, []string{"Error: openDiff needs new_file_path (a string)"}, true},
		{"closeAllDiffTabs", nil, []string{"CLOSED_2_DIFF_TABS"}, false},
		{"close_tab", map[string]any{"tab_name": "t1"}, []string{"TAB_CLOSED"}, false},
		{"getDiagnostics", nil, []string{`[{"uri":"file:///a.go","diagnostics":[{"message":"undefined: y","severity":"Error"}]}]`}, false},
		{"openFile", map[string]any{"filePath": "/a.go"}, []string{"Opened file: /a.go"}, false},
		{"openFile", map[string]any{"filePath": "/a.go", "makeFrontmost": false}, []string{`{"success":true,"filePath":"/a.go","lineCount":3}`}, false},
		{"getWorkspaceFolders", nil, []string{`{"success":true,"folders":[{"name":"` + filepath.Base(dir) + `","uri":"file://` + dir + `","path":"` + dir + `"}],"rootPath":"` + dir + `"}`}, false},
		{"checkDocumentDirty", map[string]any{"filePath": clean}, []string{`{"filePath":"` + clean + `","isDirty":false,"isUntitled":false,"success":true}`}, false},
		{"checkDocumentDirty", map[string]any{"filePath": dirty}, []string{`{"filePath":"` + dirty + `","isDirty":true,"isUntitled":false,"success":true}`}, false},
		{"checkDocumentDirty", map[string]any{"filePath": "/nowhere.go"}, []string{`{"message":"Document not open: /nowhere.go","success":false}`}, false},
		{"getLatestSelection", nil, []string{`{"message":"No selection available","success":false}`}, false},
		{"getOpenEditors", nil, []string{"Error: getOpenEditors: the editor failed: no answer scripted for getOpenEditors"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tc.name, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.err {
				t.Errorf("isError %v, want %v: %q", res.IsError, tc.err, text(t, res))
			}
			if got := text(t, res); strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestOpenDiffRejected(t *testing.T) {
	s, _ := start(t, Config{Editor: &scriptedEditor{answers: map[string]string{"openDiff": `{"saved":false}`}}})
	cs := connect(t, s, nil)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "openDiff", Arguments: map[string]any{
		"old_file_path": "/a", "new_file_path": "/a", "new_file_contents": "x", "tab_name": "review 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); len(got) != 2 || got[0] != "DIFF_REJECTED" || got[1] != "review 1" {
		t.Errorf("got %q, want DIFF_REJECTED and the tab name", got)
	}
}

func TestNoEditor(t *testing.T) {
	s, _ := start(t, Config{})
	cs := connect(t, s, nil)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "getCurrentSelection"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(t, res)[0], "does not answer") {
		t.Errorf("got %q, want an error saying the editor cannot answer", text(t, res))
	}
}

func TestSelectionReachesTheCLI(t *testing.T) {
	s, _ := start(t, Config{})
	got := make(chan string, 1)
	cs := connect(t, s, func(method string, params json.RawMessage) { got <- method + " " + string(params) })
	sel := `{"text":"x := 1","filePath":"/a.go","selection":{"start":{"line":1,"character":0},"end":{"line":1,"character":6},"isEmpty":false}}`
	if err := s.Notify(t.Context(), "selection_changed", json.RawMessage(sel)); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-got:
		if g != "selection_changed "+sel {
			t.Errorf("the CLI got %s", g)
		}
	case <-t.Context().Done():
		t.Fatal("no notification")
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "getLatestSelection"})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text(t, res)[0]), &v); err != nil || v["success"] != true || v["text"] != "x := 1" {
		t.Errorf("getLatestSelection: %q", text(t, res))
	}
}

// pingAnswered sends a ping on ws and reports whether its answer came.
func pingAnswered(ctx context.Context, ws *websocket.Conn) error {
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)); err != nil {
		return err
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return err
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			// The parse error's answer (id null) does not decode as a
			// response; it must be one.
			if !bytes.Contains(data, []byte(`"code":-32700`)) {
				return fmt.Errorf("an answer that is not JSON-RPC: %s", data)
			}
			continue
		}
		if r, ok := msg.(*jsonrpc.Response); ok && r.ID.Raw() == int64(99) {
			return r.Error
		}
	}
}

// initialized is a raw connection past MCP's initialize.
func initialized(t testing.TB, s *Server) *websocket.Conn {
	ctx := context.Background()
	ws, _, err := dial(ctx, s, s.token)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestMalformedFrames(t *testing.T) {
	s, _ := start(t, Config{MaxMessageBytes: 1 << 16})
	for _, tc := range []struct {
		name  string
		typ   websocket.MessageType
		frame []byte
		// closes: the connection ends (the next one is served).
		closes bool
	}{
		{"not JSON", websocket.MessageText, []byte("hello"), false},
		{"empty", websocket.MessageText, nil, false},
		{"a JSON array", websocket.MessageText, []byte(`[1,2,3]`), false},
		{"no jsonrpc member", websocket.MessageText, []byte(`{"id":1,"method":"ping"}`), false},
		{"a response to nothing", websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`), false},
		{"unknown method", websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":8,"method":"nope"}`), false},
		{"binary garbage", websocket.MessageBinary, []byte{0xff, 0xfe, 0, 1, 2}, false},
		{"the CLI's own notification", websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"ide_connected","params":{"pid":1}}`), false},
		{"tools/call with a string for arguments", websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"openDiff","arguments":"x"}}`), false},
		{"larger than the limit", websocket.MessageText, bytes.Repeat([]byte("a"), 1<<17), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ws := initialized(t, s)
			defer ws.CloseNow()
			// A frame over the limit may be cut short by the server's close.
			if err := ws.Write(ctx, tc.typ, tc.frame); err != nil && !tc.closes {
				t.Fatal(err)
			}
			err := pingAnswered(ctx, ws)
			if tc.closes {
				if err == nil {
					t.Fatal("the connection still serves after a frame over the limit")
				}
				ws2 := initialized(t, s)
				defer ws2.CloseNow()
				if err := pingAnswered(ctx, ws2); err != nil {
					t.Fatalf("a new connection is not served: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the connection does not serve after the frame: %v", err)
			}
		})
	}
}

func FuzzFrame(f *testing.F) {
	for _, seed := range []string{"", "{", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openDiff"}}`, `[{}]`, "\x00\xff"} {
		f.Add([]byte(seed))
	}
	s, err := Start(Config{LockDir: f.TempDir(), MaxMessageBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, frame []byte) {
		ws := initialized(t, s)
		defer ws.CloseNow()
		if err := ws.Write(t.Context(), websocket.MessageText, frame); err != nil {
			t.Fatal(err)
		}
		if err := pingAnswered(t.Context(), ws); err != nil {
			t.Fatalf("after %q the connection does not serve: %v", frame, err)
		}
	})
}

// deadPID is the pid of a process that ran and was waited for.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to run:", err)
	}
	return cmd.Process.Pid
}

func TestLockFile(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "1.lock")
	alive := filepath.Join(dir, "2.lock")
	writeJSON := func(p string, l Lock) {
		b, _ := json.Marshal(l)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeJSON(stale, Lock{PID: deadPID(t), Transport: "ws"})
	writeJSON(alive, Lock{PID: os.Getpid(), Transport: "ws"})
	s, err := Start(Config{LockDir: dir, PID: 4242, IDEName: "Neovim", Folders: func() []string { return []string{"/w"} }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file of a dead editor is still there: %v", err)
	}
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("the lock file of a running editor was removed: %v", err)
	}
	path := filepath.Join(dir, strconv.Itoa(s.Port())+".lock")
	if s.LockPath() != path {
		t.Errorf("lock at %s, want %s", s.LockPath(), path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("lock file mode %v, want 0600", st.Mode().Perm())
	}
	read := func() Lock {
		var l Lock
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	want := Lock{PID: 4242, WorkspaceFolders: []string{"/w"}, IDEName: "Neovim", Transport: "ws", AuthToken: s.token}
	if got := read(); !equalLock(got, want) {
		t.Errorf("lock %+v, want %+v", got, want)
	}
	if err := s.SetFolders([]string{"/w", "/v"}); err != nil {
		t.Fatal(err)
	}
	want.WorkspaceFolders = []string{"/w", "/v"}
	if got := read(); !equalLock(got, want) {
		t.Errorf("after SetFolders: lock %+v, want %+v", got, want)
	}
	s.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file outlived Close: %v", err)
	}
}

func equalLock(a, b Lock) bool {
	return a.PID == b.PID && a.IDEName == b.IDEName && a.Transport == b.Transport && a.AuthToken == b.AuthToken &&
		strings.Join(a.WorkspaceFolders, "\x00") == strings.Join(b.WorkspaceFolders, "\x00")
}

func TestLockDir(t *testing.T) {
	for _, tc := range []struct{ config, home, want string }{
		{"/cfg", "/home/u", "/cfg/ide"},
		{"", "/home/u", "/home/u/.claude/ide"},
	} {
		t.Setenv("CLAUDE_CONFIG_DIR", tc.config)
		t.Setenv("HOME", tc.home)
		got, err := LockDir()
		if err != nil || got != tc.want {
			t.Errorf("CLAUDE_CONFIG_DIR=%q HOME=%q: %q, %v; want %q", tc.config, tc.home, got, err, tc.want)
		}
	}
}

// The lock names each folder as the CLI's own working folder reads:
// cleaned, and where a link leads, so that `claude --ide` started in the
// folder (or below it) from another terminal finds the session.
func TestLockFolders(t *testing.T) {
	// Resolved: a temporary folder may lie behind a link itself (macOS).
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, tc := range []struct {
		name    string
		folders []string
		want    []string
	}{
		{"none", nil, []string{}},
		{"plain", []string{real}, []string{real}},
		{"trailing slash", []string{real + "/"}, []string{real}},
		{"link", []string{link}, []string{link, real}},
		{"link and its target", []string{link, real + "/."}, []string{link, real}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lockFolders(tc.folders); !slices.Equal(got, tc.want) {
				t.Errorf("lockFolders(%q) = %q, want %q", tc.folders, got, tc.want)
			}
		})
	}
}
