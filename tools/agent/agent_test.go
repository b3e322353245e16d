package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/chatapi"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
	"github.com/toolhost/toolhost/tools/engine"
)

const keyEnv = "TOOLHOST_TEST_AGENT_KEY"

// chatServer is a fake chat-completions endpoint: reply gives the body of
// the answer to the n-th request (1-based); the requests are recorded.
type chatServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []chatapi.Request
	auth []string
}

func newChatServer(t *testing.T, reply func(n int, w http.ResponseWriter, r *http.Request)) *chatServer {
	t.Helper()
	cs := &chatServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body chatapi.Request
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			// A client that stops (TaskStop, a cancelled call) may go away
			// while its request body is on the way: not a malformed request.
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return
			}
			t.Errorf("the request is not JSON: %v", err)
		}
		cs.mu.Lock()
		cs.reqs = append(cs.reqs, body)
		cs.auth = append(cs.auth, r.Header.Get("Authorization"))
		n := len(cs.reqs)
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		reply(n, w, r)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) requests() []chatapi.Request {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return slices.Clone(cs.reqs)
}

// toolCalls is an answer asking for tool calls; each call is {id, name, args}
// where args is put as given (a JSON string or an object).
func toolCalls(calls ...[3]string) string {
	var tcs []string
	for _, c := range calls {
		tcs = append(tcs, `{"id":"`+c[0]+`","type":"function","function":{"name":"`+c[1]+`","arguments":`+c[2]+`}}`)
	}
	return `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` + strings.Join(tcs, ",") + `]}}]}`
}

// final is an answer with text and no tool calls.
func final(text string) string {
	b, _ := json.Marshal(text)
	return `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` + string(b) + `}}]}`
}

// script answers the n-th request with replies[n-1] (the last one again
// after the end).
func script(replies ...string) func(int, http.ResponseWriter, *http.Request) {
	return func(n int, w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, replies[min(n, len(replies))-1])
	}
}

// host is the user: it allows every permission prompt except for the tools
// in deny, and runs agents itself when runAgent is set.
type host struct {
	tools.NoHost
	deny     map[string]bool
	runAgent func(callID string, input json.RawMessage) (*tools.Result, error)

	mu    sync.Mutex
	asked []string
}

func (h *host) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	h.asked = append(h.asked, req.ToolName)
	h.mu.Unlock()
	if h.deny[req.ToolName] {
		return tools.PermissionResponse{Decision: tools.DecisionDeny, Message: "not now"}, nil
	}
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

func (h *host) CanRunAgent() bool { return h.runAgent != nil }

func (h *host) RunAgent(_ context.Context, callID string, input json.RawMessage) (*tools.Result, error) {
	return h.runAgent(callID, input)
}

func (h *host) prompts() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.asked)
}

// newSession builds a real session over a workspace holding notes.txt, with
// agent.endpoint set to endpoint when it is not empty. maxTurns > 0 replaces
// the registered Agent by one with that turn cap.
func newSession(t *testing.T, endpoint string, maxTurns int) (*session.Session, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	init := `{}`
	if endpoint != "" {
		init = `{"agent":{"endpoint":"` + endpoint + `","model":"small-model","apiKeyEnv":"` + keyEnv + `"}}`
	}
	s, err := session.New(session.Options{
		Roots: []string{root}, InitOptions: json.RawMessage(init), NoMCP: true,
		UserConfigPath: filepath.Join(t.TempDir(), "settings.json"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if maxTurns > 0 {
		s.Registry.Register(tools.CategoryAgent, agent.New(agent.Options{
			Settings: s.Settings.Current, Pipeline: func() *engine.Pipeline { return s.Pipeline },
			Tasks: s.Tasks, Root: s.Workspace.Root, MaxTurns: maxTurns,
		}))
	}
	return s, root
}

// callAgent calls Agent through the session's pipeline, as a client does.
func callAgent(ctx context.Context, t *testing.T, s *session.Session, h tools.Host, input string) (*engine.Response, error) {
	t.Helper()
	return s.Pipeline.Call(ctx, h, engine.Request{CallID: "toolu_parent", Name: "Agent", Input: json.RawMessage(input)})
}

// toolMessage returns the content of the "tool" message answering id.
func toolMessage(t *testing.T, req chatapi.Request, id string) string {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no tool message for %s in %+v", id, req.Messages)
	return ""
}

const task = `{"description":"Find the answer","prompt":"What is the answer in notes.txt?"}`

func TestBuiltinLoop(t *testing.T) {
	t.Setenv(keyEnv, "sk-test")
	tests := []struct {
		name     string
		replies  []string
		maxTurns int
		deny     map[string]bool
		// requests is how many requests the endpoint must get.
		requests int
		isError  bool
		want     []string
		check    func(t *testing.T, reqs []chatapi.Request, root string)
	}{
		{
			name: "a tool call runs through the pipeline, then the report is the result",
			replies: []string{
				toolCalls([3]string{"call_read", "Read", `"{\"file_path\":\"notes.txt\"}"`}),
				final("The answer is 42 (notes.txt:1)."),
			},
			requests: 2,
			want:     []string{"The answer is 42 (notes.txt:1)."},
			check: func(t *testing.T, reqs []chatapi.Request, _ string) {
				first := reqs[0]
				if first.Model != "small-model" || len(first.Messages) != 2 || first.Messages[0].Role != "system" ||
					first.Messages[1].Role != "user" || first.Messages[1].Content != "What is the answer in notes.txt?" {
					t.Errorf("first request %+v", first)
				}
				if !strings.Contains(first.Messages[0].Content, "sub-agent") || !strings.Contains(first.Messages[0].Content, "final report") {
					t.Errorf("system prompt %q", first.Messages[0].Content)
				}
				var names []string
				for _, d := range first.Tools {
					fn, _ := d.(map[string]any)["function"].(map[string]any)
					names = append(names, fn["name"].(string))
				}
				for _, want := range []string{"Read", "Glob", "Grep", "Write"} {
					if !slices.Contains(names, want) {
						t.Errorf("tools %v lack %s", names, want)
					}
				}
				for _, not := range []string{"Agent", "AskUserQuestion"} {
					if slices.Contains(names, not) {
						t.Errorf("tools %v offer %s to the sub-agent", names, not)
					}
				}
				second := reqs[1]
				if len(second.Messages) != 4 || second.Messages[2].Role != "assistant" || len(second.Messages[2].ToolCalls) != 1 {
					t.Fatalf("second request messages %+v", second.Messages)
				}
				if got := toolMessage(t, second, "call_read"); !strings.Contains(got, "the answer is 42") {
					t.Errorf("the Read result in the next request is %q", got)
				}
			},
		},
		{
			name: "arguments as an object, and a tool the sub-agent may not use",
			replies: []string{
				toolCalls([3]string{"call_agent", "Task", `"{\"description\":\"x\",\"prompt\":\"y\"}"`},
					[3]string{"call_glob", "Glob", `{"pattern":"*.txt"}`},
					[3]string{"call_bad", "Read", `"not json"`}),
				final("Only notes.txt."),
			},
			requests: 2,
			want:     []string{"Only notes.txt."},
			check: func(t *testing.T, reqs []chatapi.Request, _ string) {
				if got := toolMessage(t, reqs[1], "call_agent"); !strings.HasPrefix(got, "Error: the tool Task is not available to a sub-agent") {
					t.Errorf("the Agent call was answered %q", got)
				}
				if got := toolMessage(t, reqs[1], "call_glob"); !strings.Contains(got, "notes.txt") {
					t.Errorf("the Glob result is %q", got)
				}
				if got := toolMessage(t, reqs[1], "call_bad"); !strings.HasPrefix(got, "Error: the arguments of Read could not be read") {
					t.Errorf("bad arguments were answered %q", got)
				}
			},
		},
		{
			name: "the sub-agent's calls ask the user like any other",
			replies: []string{
				toolCalls([3]string{"call_write", "Write", `"{\"file_path\":\"out.txt\",\"content\":\"x\"}"`}),
				final("I could not write out.txt: the user said no."),
			},
			deny:     map[string]bool{"Write": true},
			requests: 2,
			want:     []string{"the user said no"},
			check: func(t *testing.T, reqs []chatapi.Request, root string) {
				if got := toolMessage(t, reqs[1], "call_write"); !strings.HasPrefix(got, "Error: ") || !strings.Contains(got, "not now") {
					t.Errorf("the denied Write was answered %q", got)
				}
				if _, err := os.Stat(filepath.Join(root, "out.txt")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("out.txt exists although the user denied the Write: %v", err)
				}
			},
		},
		{
			name:     "the turn cap",
			replies:  []string{toolCalls([3]string{"call_glob", "Glob", `{"pattern":"*"}`})},
			maxTurns: 3,
			requests: 3,
			isError:  true,
			want:     []string{"Error: the sub-agent did not finish: ", "did not finish within 3 turns (3 tool calls)"},
		},
		{
			name:     "the endpoint fails",
			replies:  []string{"500"},
			requests: 1,
			isError:  true,
			want:     []string{"Error: the sub-agent did not finish: the model endpoint failed after 0 tool calls", "500 Internal Server Error: model overloaded", "agent.endpoint"},
		},
		{
			name:     "the endpoint answers no JSON",
			replies:  []string{"<html>gateway</html>"},
			requests: 1,
			isError:  true,
			want:     []string{"did not answer chat-completions JSON", "agent.apiKeyEnv"},
		},
		{
			name:     "an empty final reply",
			replies:  []string{final("  ")},
			requests: 1,
			isError:  true,
			want:     []string{"without a report"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := newChatServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				reply := tc.replies[min(n, len(tc.replies))-1]
				if reply == "500" {
					w.WriteHeader(http.StatusInternalServerError)
					io.WriteString(w, `{"error":{"message":"model overloaded"}}`)
					return
				}
				io.WriteString(w, reply)
			})
			s, root := newSession(t, cs.URL+"/v1/chat/completions", tc.maxTurns)
			h := &host{deny: tc.deny}
			resp, err := callAgent(t.Context(), t, s, h, task)
			if err != nil {
				t.Fatal(err)
			}
			if resp.IsError != tc.isError {
				t.Errorf("isError %v, want %v: %s", resp.IsError, tc.isError, resp.Text())
			}
			for _, w := range tc.want {
				if !strings.Contains(resp.Text(), w) {
					t.Errorf("result lacks %q:\n%s", w, resp.Text())
				}
			}
			reqs := cs.requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.requests)
			}
			if cs.auth[0] != "Bearer sk-test" {
				t.Errorf("Authorization %q", cs.auth[0])
			}
			// The Agent call itself spawns, so it is asked for in the default mode.
			if p := h.prompts(); len(p) == 0 || p[0] != "Agent" {
				t.Errorf("permission prompts %v, want Agent first", p)
			}
			if tc.check != nil {
				tc.check(t, reqs, root)
			}
		})
	}
}

func TestCancelStopsTheLoop(t *testing.T) {
	got := make(chan struct{})
	cs := newChatServer(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		close(got)
		<-r.Context().Done()
	})
	s, _ := newSession(t, cs.URL, 0)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-got
		cancel()
	}()
	resp, err := callAgent(ctx, t, s, &host{}, task)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call after cancel: %v, %+v; want context.Canceled", err, resp)
	}
}

func TestNoRunner(t *testing.T) {
	s, _ := newSession(t, "", 0)
	h := &host{}
	resp, err := callAgent(t.Context(), t, s, h, task)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Text()
	if !resp.IsError || !strings.HasPrefix(text, "Error: no sub-agent runner is available") {
		t.Fatalf("result %q", text)
	}
	for _, w := range []string{"agent.endpoint", "agent.model", ".toolhost/settings.json", "runAgent", "do the task yourself"} {
		if !strings.Contains(text, w) {
			t.Errorf("result lacks %q: %s", w, text)
		}
	}
	// No runner does not depend on the user's answer: nobody is asked.
	if asked := h.prompts(); len(asked) != 0 {
		t.Errorf("the user was asked %q for a call that cannot run", asked)
	}
}

func TestClientRunner(t *testing.T) {
	tests := []struct {
		name    string
		answer  *tools.Result
		err     error
		isError bool
		want    string
	}{
		{"the report", tools.TextResult("The answer is 42."), nil, false, "The answer is 42."},
		{"the client's error", &tools.Result{IsError: true, Content: []tools.Content{{Type: "text", Text: "the model refused"}}}, nil, true, "Error: the model refused"},
		{"the request fails", nil, errors.New("method not found"), true, "Error: the editor could not run the sub-agent (method not found)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// An endpoint is set too: the client's runner comes first.
			cs := newChatServer(t, script(final("from the endpoint")))
			s, _ := newSession(t, cs.URL, 0)
			var gotID string
			var gotInput map[string]any
			h := &host{runAgent: func(callID string, input json.RawMessage) (*tools.Result, error) {
				gotID = callID
				_ = json.Unmarshal(input, &gotInput)
				return tc.answer, tc.err
			}}
			resp, err := callAgent(t.Context(), t, s, h, `{"description":"Find the answer","prompt":"What is it?","subagent_type":"Explore","model":"haiku"}`)
			if err != nil {
				t.Fatal(err)
			}
			if resp.IsError != tc.isError || !strings.HasPrefix(resp.Text(), tc.want) {
				t.Errorf("result %v %q, want %v %q", resp.IsError, resp.Text(), tc.isError, tc.want)
			}
			if gotID != "toolu_parent" || gotInput["prompt"] != "What is it?" || gotInput["subagent_type"] != "Explore" || gotInput["model"] != "haiku" {
				t.Errorf("the client got id %q input %v", gotID, gotInput)
			}
			if n := len(cs.requests()); n != 0 {
				t.Errorf("the endpoint got %d requests although the client runs agents", n)
			}
		})
	}
}

func TestBackground(t *testing.T) {
	release := make(chan struct{})
	cs := newChatServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, final("The answer is 42."))
	})
	s, _ := newSession(t, cs.URL, 0)
	h := &host{}
	resp, err := callAgent(t.Context(), t, s, h, `{"description":"Find the answer","prompt":"What is it?","run_in_background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	// The call returned while the endpoint still holds the first request.
	if resp.IsError || !strings.Contains(resp.Text(), "background task agent-1") {
		t.Fatalf("result %q", resp.Text())
	}
	if out, ok := resp.Structured.(agent.Output); !ok || out.Status != "async_launched" || out.AgentID != "agent-1" {
		t.Errorf("structured %+v", resp.Structured)
	}
	close(release)
	out, err := s.Pipeline.Call(t.Context(), h, engine.Request{Name: "TaskOutput", Input: json.RawMessage(`{"task_id":"agent-1","timeout":600000}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text(), "Task agent-1 (Find the answer) is completed.") || !strings.Contains(out.Text(), "The answer is 42.") {
		t.Errorf("TaskOutput %q", out.Text())
	}

	// A background agent that hangs is stopped by TaskStop.
	hang := newChatServer(t, func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	s2, _ := newSession(t, hang.URL, 0)
	if resp, err = callAgent(t.Context(), t, s2, h, `{"description":"Hang","prompt":"Wait.","run_in_background":true}`); err != nil || resp.IsError {
		t.Fatalf("start: %v %q", err, resp.Text())
	}
	stop, err := s2.Pipeline.Call(t.Context(), h, engine.Request{Name: "TaskStop", Input: json.RawMessage(`{"task_id":"agent-1"}`)})
	if err != nil || stop.IsError {
		t.Fatalf("TaskStop: %v %q", err, stop.Text())
	}
	if snap := s2.Tasks.List()[0]; snap.Status != "stopped" {
		t.Errorf("status after TaskStop %s", snap.Status)
	}
}
