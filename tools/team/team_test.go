package team_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/tools/team"
)

// waitLimit bounds every wait for an event; it is a failure deadline, not
// a synchronisation.
const waitLimit = 20 * time.Second

// chatMessage is what the scripted server reads of a request.
type chatMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []any  `json:"tool_calls"`
}

// script is a chat-completions endpoint whose replies depend on who asks
// (the member named in the first user message) and on what the
// conversation holds. It reports served replies on events.
type script struct {
	t      *testing.T
	events chan string
	// release lets the named agent "solo" answer its first request.
	release chan struct{}
}

func reply(w http.ResponseWriter, content string, call map[string]any) {
	msg := map[string]any{"role": "assistant", "content": content}
	if call != nil {
		args, _ := json.Marshal(call["args"])
		msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("c%d", time.Now().UnixNano()), "type": "function",
			"function": map[string]any{"name": call["name"], "arguments": string(args)}}}
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first := req.Messages[1].Content
	last := req.Messages[len(req.Messages)-1]
	all := ""
	for _, m := range req.Messages {
		all += m.Content + "\n"
	}
	say := func(event, content string, call map[string]any) {
		reply(w, content, call)
		s.events <- event
	}
	send := func(to, text string) map[string]any {
		return map[string]any{"name": "SendMessage", "args": map[string]string{"to": to, "message": text}}
	}
	switch {
	case strings.Contains(first, `You are "alice"`):
		switch {
		case strings.Contains(last.Content, "asks you to finish"):
			say("alice:bye", "alice done", nil)
		case strings.Contains(last.Content, "[message from bob] pong"):
			say("alice:got pong", "got pong", nil)
		case last.Role == "tool":
			say("alice:sent ping", "sent ping", nil)
		default:
			say("alice:ping", "", send("bob", "ping"))
		}
	case strings.Contains(first, `You are "bob"`):
		switch {
		case strings.Contains(last.Content, "asks you to finish"):
			say("bob:bye", "bob done", nil)
		case strings.Contains(last.Content, "[message from alice] ping"):
			say("bob:pong", "", send("alice", "pong"))
		case last.Role == "tool":
			say("bob:replied", "replied", nil)
		default:
			say("bob:ready", "ready", nil)
		}
	case strings.Contains(first, `You are "carol"`):
		// A member that never ends: its model never answers.
		s.events <- "carol:waiting"
		<-r.Context().Done()
	case strings.Contains(first, "solo task"):
		if last.Role == "user" && len(req.Messages) == 2 {
			s.events <- "solo:first"
			<-s.release
			say("solo:working", "", send("lead", "working on it"))
			return
		}
		say("solo:report", "report; saw message: "+fmt.Sprint(strings.Contains(all, "[message from lead] also check the tests")), nil)
	default:
		http.Error(w, "unknown agent", http.StatusBadRequest)
	}
}

// notifyHost records toolhost/teamChanged notifications and signals each.
type notifyHost struct {
	tools.NoHost
	changed chan struct{}
	mu      sync.Mutex
	changes []team.TeamStatus
}

func newNotifyHost() *notifyHost { return &notifyHost{changed: make(chan struct{}, 1)} }

func (h *notifyHost) Notify(_ context.Context, method string, params any) error {
	if method == team.NotifyMethod {
		h.mu.Lock()
		h.changes = append(h.changes, params.(team.TeamStatus))
		h.mu.Unlock()
		select {
		case h.changed <- struct{}{}:
		default:
		}
	}
	return nil
}

func (h *notifyHost) last() team.TeamStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changes[len(h.changes)-1]
}

func newSession(t *testing.T, endpoint string, teams bool) *session.Session {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	init, _ := json.Marshal(map[string]any{"agent": map[string]any{"endpoint": endpoint, "model": "scripted"}, "tools": map[string]any{"teams": teams},
		"permissions": map[string]any{"allow": []string{"Agent", "TeamCreate", "TeamDelete"}}})
	s, err := session.New(session.Options{Roots: []string{root}, UserConfigPath: filepath.Join(dir, "none.json"), NoMCP: true, InitOptions: init})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func call(t *testing.T, s *session.Session, host tools.Host, name, input string) *tools.Result {
	t.Helper()
	resp, err := s.Pipeline.Call(t.Context(), host, engine.Request{CallID: "t-" + name, Name: name, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resp.Result
}

// await reads events until want has been seen.
func await(t *testing.T, events chan string, want ...string) {
	t.Helper()
	pending := map[string]bool{}
	for _, w := range want {
		pending[w] = true
	}
	deadline := time.After(waitLimit)
	for len(pending) > 0 {
		select {
		case e := <-events:
			delete(pending, e)
		case <-deadline:
			t.Fatalf("still waiting for %v", pending)
		}
	}
}

// waitState waits until member is in state in the session's status,
// looking again after each team notification.
func waitState(t *testing.T, s *session.Session, host *notifyHost, member, state string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		for _, tm := range s.Teams.Status()["teams"].([]team.TeamStatus) {
			for _, m := range tm.Members {
				if m.Name == member && m.State == state {
					return
				}
			}
		}
		select {
		case <-host.changed:
		case <-deadline:
			t.Fatalf("%s never became %s", member, state)
		}
	}
}

func awaitDone(t *testing.T, task *tasks.Task) {
	t.Helper()
	select {
	case <-task.Done():
	case <-time.After(waitLimit):
		t.Fatalf("task %s did not end", task.ID())
	}
}

func taskOf(t *testing.T, s *session.Session, member string) *tasks.Task {
	t.Helper()
	for _, tm := range s.Teams.Status()["teams"].([]team.TeamStatus) {
		for _, m := range tm.Members {
			if m.Name == member {
				task, ok := s.Tasks.Get(m.TaskID)
				if !ok {
					t.Fatalf("no task %s", m.TaskID)
				}
				return task
			}
		}
	}
	t.Fatalf("no member %s", member)
	return nil
}

// waitOutput waits until a task's output holds want: a member writes its
// reply and then goes idle, which the host hears of, so the output is
// checked after each team notification, up to the deadline.
func waitOutput(t *testing.T, host *notifyHost, task *tasks.Task, want string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for !strings.Contains(task.Output().Render(1<<20), want) {
		select {
		case <-host.changed:
		case <-task.Done():
			if !strings.Contains(task.Output().Render(1<<20), want) {
				t.Fatalf("%s ended without %q in its output:\n%s", task.ID(), want, task.Output().Render(1<<20))
			}
		case <-deadline:
			t.Fatalf("%s's output lacks %q:\n%s", task.ID(), want, task.Output().Render(1<<20))
		}
	}
}

func TestTeamMembersExchangeMessagesShutDownAndAreDeleted(t *testing.T) {
	sc := &script{t: t, events: make(chan string, 100), release: make(chan struct{})}
	srv := httptest.NewServer(sc)
	// Registered first, so it runs after the session's cleanup has stopped
	// the agents whose requests it would wait for.
	t.Cleanup(srv.Close)
	s := newSession(t, srv.URL, true)
	host := newNotifyHost()

	res := call(t, s, host, "TeamCreate", `{"team_name":"demo","description":"ping pong","members":[
		{"name":"alice","prompt":"send ping to bob"},
		{"name":"bob","prompt":"answer pings"},
		{"name":"carol","prompt":"think forever"}]}`)
	if res.IsError {
		t.Fatalf("TeamCreate: %s", res.Text())
	}
	// alice pings bob, bob answers, alice reports the pong to the lead.
	await(t, sc.events, "alice:ping", "bob:pong", "bob:replied", "alice:got pong", "carol:waiting")
	alice, bob, carol := taskOf(t, s, "alice"), taskOf(t, s, "bob"), taskOf(t, s, "carol")
	waitOutput(t, host, alice, "[alice → lead] got pong")

	// A second team cannot reuse a running member's name.
	if res := call(t, s, host, "TeamCreate", `{"team_name":"other","members":[{"name":"Bob","prompt":"x"}]}`); !res.IsError || !strings.Contains(res.Text(), "already running") {
		t.Errorf("duplicate member name: %s", res.Text())
	}

	// Shutdown: bob, idle, reads it, finishes with a last reply and ends.
	waitState(t, s, host, "bob", team.StateIdle)
	if res := call(t, s, host, "SendMessage", `{"to":"bob","type":"shutdown","message":"that is all"}`); res.IsError || !strings.Contains(res.Text(), "Asked to finish: bob") {
		t.Fatalf("shutdown: %s", res.Text())
	}
	awaitDone(t, bob)
	if out := bob.Output().Render(1 << 20); !strings.HasSuffix(strings.TrimSpace(out), "bob done") || bob.Snapshot().Status != tasks.Completed {
		t.Errorf("bob: %s, output:\n%s", bob.Snapshot().Status, out)
	}
	if res := call(t, s, host, "SendMessage", `{"to":"bob","message":"still there?"}`); !res.IsError || !strings.Contains(res.Text(), `no running agent is named "bob"`) {
		t.Errorf("message to an ended member: %s", res.Text())
	}

	// Status shows the team; carol never ends until the team is deleted.
	raw, _ := json.Marshal(s.Status()["teams"])
	for _, want := range []string{`"name":"demo"`, `"name":"carol","taskId":"` + carol.ID() + `","state":"working"`, `"name":"bob","taskId":"` + bob.ID() + `","state":"ended"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("status lacks %s: %s", want, raw)
		}
	}
	res = call(t, s, host, "TeamDelete", `{"team_name":"demo"}`)
	if res.IsError || !strings.Contains(res.Text(), "carol (task "+carol.ID()+"): stopped") || !strings.Contains(res.Text(), "bob (task "+bob.ID()+"): had already ended") {
		t.Fatalf("TeamDelete: %s", res.Text())
	}
	awaitDone(t, carol)
	awaitDone(t, alice)
	if st := carol.Snapshot().Status; st != tasks.Stopped {
		t.Errorf("carol ended %s, want stopped", st)
	}
	if got := s.Teams.Status()["teams"].([]team.TeamStatus); len(got) != 0 {
		t.Errorf("teams after delete: %+v", got)
	}
	if last := host.last(); last.Name != "demo" || len(last.Members) != 3 || !last.Deleted {
		t.Errorf("last notification: %+v, want the team of three marked deleted", last)
	}
	host.mu.Lock()
	for _, c := range host.changes[:len(host.changes)-1] {
		if c.Deleted {
			t.Errorf("a notification before TeamDelete's is marked deleted: %+v", c)
		}
	}
	host.mu.Unlock()
	if res := call(t, s, host, "TeamDelete", `{"team_name":"demo"}`); !res.IsError || !strings.Contains(res.Text(), "no team at all") {
		t.Errorf("second delete: %s", res.Text())
	}
}

func TestSendMessageReachesANamedBackgroundAgent(t *testing.T) {
	sc := &script{t: t, events: make(chan string, 100), release: make(chan struct{})}
	srv := httptest.NewServer(sc)
	t.Cleanup(srv.Close)
	s := newSession(t, srv.URL, false)
	host := newNotifyHost()

	if res := call(t, s, host, "SendMessage", `{"to":"solo","message":"hello"}`); !res.IsError || !strings.Contains(res.Text(), "No named agent is running") {
		t.Errorf("before start: %s", res.Text())
	}
	res := call(t, s, host, "Agent", `{"description":"solo","prompt":"solo task","run_in_background":true,"name":"solo"}`)
	if res.IsError {
		t.Fatalf("Agent: %s", res.Text())
	}
	await(t, sc.events, "solo:first")
	if res := call(t, s, host, "SendMessage", `{"to":"solo","summary":"tests too","message":"also check the tests"}`); res.IsError || res.Text() != "Delivered to solo." {
		t.Fatalf("SendMessage: %s", res.Text())
	}
	// Without tools.teams the message type is not part of the schema.
	if res := call(t, s, host, "SendMessage", `{"to":"solo","message":"x","type":"shutdown"}`); !res.IsError {
		t.Errorf("type accepted without teams: %s", res.Text())
	}
	close(sc.release)
	await(t, sc.events, "solo:report")
	task, ok := s.Tasks.Get(res.Structured.(agent.Output).AgentID)
	if !ok {
		t.Fatalf("no task in %q", res.Text())
	}
	awaitDone(t, task)
	out := task.Output().Render(1 << 20)
	if !strings.Contains(out, "[solo → lead] working on it") || !strings.Contains(out, "report; saw message: true") {
		t.Errorf("output:\n%s", out)
	}
	if names := s.Teams.Status()["namedAgents"].([]string); len(names) != 0 {
		t.Errorf("named agents after the end: %v", names)
	}
}

// editorHost runs agents in the "editor": each RunAgent blocks until the
// call's context ends or release is closed.
type editorHost struct {
	*notifyHost
	started chan string
	release chan struct{}
}

func (editorHost) CanRunAgent() bool { return true }

func (h editorHost) RunAgent(ctx context.Context, callID string, input json.RawMessage) (*tools.Result, error) {
	h.started <- callID
	select {
	case <-h.release:
		return tools.TextResult("editor report for " + callID), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestTeamOnTheEditorsRunner(t *testing.T) {
	s := newSession(t, "", true)
	host := editorHost{notifyHost: newNotifyHost(), started: make(chan string, 4), release: make(chan struct{})}
	res := call(t, s, host, "TeamCreate", `{"team_name":"ed","members":[{"name":"one","prompt":"a"},{"name":"two","prompt":"b"}]}`)
	if res.IsError || !strings.Contains(res.Text(), "messages cannot reach them") {
		t.Fatalf("TeamCreate: %s", res.Text())
	}
	await(t, host.started, "t-TeamCreate-one", "t-TeamCreate-two")
	if res := call(t, s, host, "SendMessage", `{"to":"one","message":"hi"}`); !res.IsError || !strings.Contains(res.Text(), "one is run by the editor") {
		t.Errorf("message to an editor-run member: %s", res.Text())
	}
	one := taskOf(t, s, "one")
	close(host.release)
	awaitDone(t, one)
	if out := one.Output().Render(1 << 20); out != "editor report for t-TeamCreate-one" {
		t.Errorf("output = %q", out)
	}
	waitState(t, s, host.notifyHost, "one", team.StateEnded)
	// The editor hears of the end itself, not only status readers: the
	// last notification shows both members ended.
	two := taskOf(t, s, "two")
	awaitDone(t, two)
	deadline := time.After(waitLimit)
	for !allEnded(host.last()) {
		select {
		case <-host.changed:
		case <-deadline:
			t.Fatalf("the last team notification is %+v, not every member ended", host.last())
		}
	}
	if res := call(t, s, host, "TeamDelete", `{"team_name":"ed"}`); res.IsError || !strings.Contains(res.Text(), "had already ended") {
		t.Errorf("TeamDelete: %s", res.Text())
	}
}

func allEnded(st team.TeamStatus) bool {
	for _, m := range st.Members {
		if m.State != team.StateEnded {
			return false
		}
	}
	return len(st.Members) > 0
}

// An editor that runs agents and a configured endpoint: the team runs on
// the built-in loop, the one runner whose members take messages.
func TestTeamPrefersTheLoopThatTakesMessages(t *testing.T) {
	sc := &script{t: t, events: make(chan string, 100), release: make(chan struct{})}
	srv := httptest.NewServer(sc)
	t.Cleanup(srv.Close)
	s := newSession(t, srv.URL, true)
	host := editorHost{notifyHost: newNotifyHost(), started: make(chan string, 4), release: make(chan struct{})}
	res := call(t, s, host, "TeamCreate", `{"team_name":"mixed","members":[{"name":"alpha","prompt":"a"}]}`)
	if res.IsError || strings.Contains(res.Text(), "messages cannot reach them") {
		t.Fatalf("TeamCreate: %s", res.Text())
	}
	select {
	case id := <-host.started:
		t.Errorf("the editor was asked to run %s", id)
	default:
	}
	if res := call(t, s, host, "TeamDelete", `{"team_name":"mixed"}`); res.IsError {
		t.Errorf("TeamDelete: %s", res.Text())
	}
}
