package team

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
)

// Lead is the name by which members address the session's own model.
const Lead = "lead"

// Member states, as toolhost/status and toolhost/teamChanged show them.
const (
	StateWorking = "working"
	StateIdle    = "idle"
	StateEnded   = "ended"
)

// NotifyMethod is the notification sent to the editor when a team or one of
// its members changes.
const NotifyMethod = "toolhost/teamChanged"

// Hub keeps the mailboxes of running named agents and the teams they form.
// It implements agent.PostOffice. Safe for concurrent use.
type Hub struct {
	// mu guards boxes and teams (the maps, not the mailboxes' contents).
	mu    sync.Mutex
	boxes map[string]*mailbox // by lower-case name
	teams map[string]*Team    // by lower-case name
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{boxes: map[string]*mailbox{}, teams: map[string]*Team{}}
}

// Team is a named group of background agents.
type Team struct {
	Name        string
	Description string
	// host reaches the editor that created the team (notifications).
	host tools.Host

	// mu guards members, in the order given, added as they start.
	mu      sync.Mutex
	members []*mailbox
}

// memberList returns the members.
func (t *Team) memberList() []*mailbox {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*mailbox(nil), t.members...)
}

// mailbox is one running agent's queue of messages.
type mailbox struct {
	name string
	team *Team // nil for a named agent outside any team
	out  io.Writer
	// wake is signalled (without blocking) when a message arrives.
	wake chan struct{}

	// mu guards the fields below.
	mu       sync.Mutex
	queue    []string
	shutdown bool
	state    string
	taskID   string
	pending  int // messages delivered and not yet taken
	// taskDone, for a member without a mailbox (the editor runs it), is
	// closed when its task ends.
	taskDone <-chan struct{}
}

// stateLocked is the member's state; mb.mu is held.
func (mb *mailbox) stateLocked() string {
	if mb.taskDone != nil {
		select {
		case <-mb.taskDone:
			return StateEnded
		default:
		}
	}
	return mb.state
}

// Open implements agent.PostOffice for a named agent outside a team.
func (h *Hub) Open(name string, out io.Writer) (agent.Mailbox, func(), error) {
	mb, err := h.register(name, nil, out)
	if err != nil {
		return nil, nil, err
	}
	return mb, func() { h.unregister(mb) }, nil
}

func (h *Hub) register(name string, t *Team, out io.Writer) (*mailbox, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		return nil, fmt.Errorf("an agent needs a name")
	}
	if key == Lead || key == "team-lead" || key == "*" {
		return nil, fmt.Errorf("the name %q is reserved; choose another", name)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, taken := h.boxes[key]; taken {
		return nil, fmt.Errorf("an agent named %q is already running; choose another name or stop it first", name)
	}
	mb := &mailbox{name: name, team: t, out: out, wake: make(chan struct{}, 1), state: StateWorking}
	h.boxes[key] = mb
	return mb, nil
}

func (h *Hub) unregister(mb *mailbox) {
	h.mu.Lock()
	if h.boxes[strings.ToLower(mb.name)] == mb {
		delete(h.boxes, strings.ToLower(mb.name))
	}
	h.mu.Unlock()
	mb.setState(StateEnded)
}

// lookup finds the running mailbox of name.
func (h *Hub) lookup(name string) (*mailbox, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	mb, ok := h.boxes[strings.ToLower(strings.TrimSpace(name))]
	return mb, ok
}

// names lists the running agents, for errors.
func (h *Hub) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, mb := range h.boxes {
		out = append(out, mb.name)
	}
	sort.Strings(out)
	return out
}

// team finds a team by name.
func (h *Hub) team(name string) (*Team, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.teams[strings.ToLower(strings.TrimSpace(name))]
	return t, ok
}

// member finds a team member by name, running or not, with or without a
// mailbox.
func (h *Hub) member(name string) *mailbox {
	h.mu.Lock()
	teams := make([]*Team, 0, len(h.teams))
	for _, t := range h.teams {
		teams = append(teams, t)
	}
	h.mu.Unlock()
	for _, t := range teams {
		for _, mb := range t.memberList() {
			if strings.EqualFold(mb.name, strings.TrimSpace(name)) {
				return mb
			}
		}
	}
	return nil
}

// Take implements agent.Mailbox.
func (mb *mailbox) Take() []string {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	msgs := mb.queue
	mb.queue, mb.pending = nil, 0
	return msgs
}

// Idle implements agent.Mailbox: a named agent outside a team ends; a team
// member reports its reply to the lead (its task's output), then waits for
// messages until it is asked to shut down or stopped.
func (mb *mailbox) Idle(ctx context.Context, reply string) ([]string, bool) {
	if mb.team == nil {
		return nil, false
	}
	mb.mu.Lock()
	shutdown := mb.shutdown
	mb.mu.Unlock()
	if shutdown {
		return nil, false
	}
	if reply != "" {
		fmt.Fprintf(mb.out, "[%s → lead] %s\n", mb.name, reply)
	}
	mb.setState(StateIdle)
	for {
		mb.mu.Lock()
		if len(mb.queue) > 0 {
			msgs := mb.queue
			mb.queue, mb.pending = nil, 0
			mb.mu.Unlock()
			mb.setState(StateWorking)
			return msgs, true
		}
		shutdown := mb.shutdown
		mb.mu.Unlock()
		if shutdown {
			return nil, false
		}
		select {
		case <-mb.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// deliver queues a message and wakes the agent.
func (mb *mailbox) deliver(text string, shutdown bool) {
	mb.mu.Lock()
	mb.queue = append(mb.queue, text)
	mb.pending++
	if shutdown {
		mb.shutdown = true
	}
	mb.mu.Unlock()
	select {
	case mb.wake <- struct{}{}:
	default:
	}
	mb.notify()
}

func (mb *mailbox) setState(s string) {
	mb.mu.Lock()
	changed := mb.state != s
	mb.state = s
	mb.mu.Unlock()
	if changed {
		mb.notify()
	}
}

// notify tells the editor that created the team about the change.
func (mb *mailbox) notify() {
	if mb.team == nil || mb.team.host == nil {
		return
	}
	_ = mb.team.host.Notify(context.Background(), NotifyMethod, mb.team.Status())
}

// MemberStatus is one member in toolhost/status and toolhost/teamChanged.
type MemberStatus struct {
	Name   string `json:"name"`
	TaskID string `json:"taskId,omitempty"`
	State  string `json:"state"`
	// Pending counts messages delivered and not yet read by the member.
	Pending int `json:"pending"`
}

// TeamStatus is one team in toolhost/status and toolhost/teamChanged.
type TeamStatus struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Members     []MemberStatus `json:"members"`
	// Deleted marks the last notification of a team that TeamDelete (or a
	// failed TeamCreate) removed, so an editor can drop it; a team whose
	// members all ended is still listed until then.
	Deleted bool `json:"deleted,omitempty"`
}

// Status is the team's state.
func (t *Team) Status() TeamStatus {
	st := TeamStatus{Name: t.Name, Description: t.Description, Members: []MemberStatus{}}
	for _, mb := range t.memberList() {
		mb.mu.Lock()
		st.Members = append(st.Members, MemberStatus{Name: mb.name, TaskID: mb.taskID, State: mb.stateLocked(), Pending: mb.pending})
		mb.mu.Unlock()
	}
	return st
}

// Status is every team's state and the named agents outside teams, for
// toolhost/status.
func (h *Hub) Status() map[string]any {
	h.mu.Lock()
	teams := make([]*Team, 0, len(h.teams))
	for _, t := range h.teams {
		teams = append(teams, t)
	}
	var loose []string
	for _, mb := range h.boxes {
		if mb.team == nil {
			loose = append(loose, mb.name)
		}
	}
	h.mu.Unlock()
	sort.Slice(teams, func(i, j int) bool { return teams[i].Name < teams[j].Name })
	sort.Strings(loose)
	out := []TeamStatus{}
	for _, t := range teams {
		out = append(out, t.Status())
	}
	if loose == nil {
		loose = []string{}
	}
	return map[string]any{"teams": out, "namedAgents": loose}
}
