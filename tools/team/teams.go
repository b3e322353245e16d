package team

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
	"github.com/toolhost/toolhost/tools/tasks"
)

//go:embed teamcreate.md
var teamCreateDescription string

//go:embed teamdelete.md
var teamDeleteDescription string

// maxMembers caps a team: each member is a model conversation of its own.
const maxMembers = 8

var teamCreateSchema = tools.SchemaOf[teamCreateParams](nil)

var teamDeleteSchema = tools.SchemaOf[teamDeleteParams](nil)

type memberSpec struct {
	Name         string `json:"name" jsonschema:"The member's name; others send it messages by this name." schema:"minLength=1"`
	Prompt       string `json:"prompt" jsonschema:"The member's whole task." schema:"minLength=1"`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"The member's role (e.g. reviewer)."`
}

type teamCreateParams struct {
	TeamName    string       `json:"team_name" jsonschema:"A short name for the team." schema:"minLength=1"`
	Description string       `json:"description,omitempty" jsonschema:"The team's goal, told to every member."`
	Members     []memberSpec `json:"members" jsonschema:"The members to start." schema:"minItems=1,maxItems=8"`
}

// Starter starts background sub-agents (the Agent tool).
type Starter interface {
	Start(host tools.Host, callID string, in agent.Input, open func(out io.Writer) (agent.Mailbox, func(), error)) (*agent.Started, error)
}

// TeamCreate starts a named team of background agents.
type TeamCreate struct {
	hub     *Hub
	starter Starter
	tasks   *tasks.Manager
}

// NewTeamCreate returns TeamCreate starting members with starter (the Agent
// tool) and stopping them through taskManager when a start fails.
func NewTeamCreate(hub *Hub, starter Starter, taskManager *tasks.Manager) *TeamCreate {
	return &TeamCreate{hub: hub, starter: starter, tasks: taskManager}
}

func (*TeamCreate) Name() string                 { return "TeamCreate" }
func (*TeamCreate) Description() string          { return teamCreateDescription }
func (*TeamCreate) InputSchema() json.RawMessage { return teamCreateSchema.JSON() }
func (*TeamCreate) SideEffect() tools.SideEffect { return tools.SideEffectSpawns }

// Docs implements tools.Documented.
func (*TeamCreate) Docs() tools.Docs {
	return tools.Docs{
		Short: "Start a named team of background agents that message each other.",
		Long: "Each member is a background Agent task (`agent-N`) on the Agent tool's runner, with the team's " +
			"goal, its teammates' names and how to reach them added to its prompt. Members' tool calls go " +
			"through the session's pipeline: the same permission rules, prompts and hooks. A member's reply " +
			"without a tool call goes to its task output and the member then waits for messages (SendMessage), " +
			"until a shutdown message, TeamDelete, TaskStop, the hour's limit or the end of the session. " +
			"Messages need toolhost's built-in runner: with agent.endpoint set, members run on it even in an " +
			"editor that runs agents; without it, members run in the editor and cannot receive messages. The team and its members' states are in toolhost/status and " +
			"sent as toolhost/teamChanged notifications.",
		Examples: []tools.Example{{Title: "A writer and a reviewer", Input: json.RawMessage(`{"team_name":"docs","description":"Document the settings loader","members":[{"name":"writer","prompt":"Write docs/loader.md describing settings/store.go; send it to reviewer when done."},{"name":"reviewer","prompt":"Wait for writer's draft, check it against settings/store.go and send corrections back.","subagent_type":"reviewer"}]}`)}},
	}
}

// Execute checks the team, registers every member's mailbox, and starts
// the members; a failed start stops those already started.
func (tc *TeamCreate) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p teamCreateParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid TeamCreate input (%v).", err), nil
	}
	name := strings.TrimSpace(p.TeamName)
	if res := tc.check(name, p.Members); res != nil {
		return res, nil
	}
	host := call.Host
	if host == nil {
		host = tools.NoHost{}
	}
	t := &Team{Name: name, Description: strings.TrimSpace(p.Description), host: host}
	tc.hub.mu.Lock()
	if _, taken := tc.hub.teams[strings.ToLower(name)]; taken {
		tc.hub.mu.Unlock()
		return tools.ErrorResult("a team named %q exists; delete it with TeamDelete or choose another name.", name), nil
	}
	tc.hub.teams[strings.ToLower(name)] = t
	tc.hub.mu.Unlock()

	var names []string
	for _, m := range p.Members {
		names = append(names, strings.TrimSpace(m.Name))
	}
	var lines []string
	messages := true
	for i, m := range p.Members {
		in := agent.Input{
			Description:  name + ": " + names[i],
			Prompt:       memberPrompt(t, names, i, m.Prompt),
			SubagentType: m.SubagentType,
			Name:         names[i],
		}
		var mb *mailbox
		open := func(out io.Writer) (agent.Mailbox, func(), error) {
			var err error
			mb, err = tc.hub.register(names[i], t, out)
			if err != nil {
				return nil, nil, err
			}
			return mb, func() { tc.hub.unregister(mb) }, nil
		}
		st, err := tc.starter.Start(host, call.ID+"-"+names[i], in, open)
		if err != nil {
			tc.remove(ctx, t)
			var noRunner *agent.ErrNoRunner
			if errors.As(err, &noRunner) {
				return noRunner.Result, nil
			}
			return tools.ErrorResult("could not start the member %q: %v. No member of the team was left running.", names[i], err), nil
		}
		if mb == nil {
			// The editor's runner: no mailbox, but a member all the same.
			mb = &mailbox{name: names[i], team: t, out: io.Discard, wake: make(chan struct{}, 1), state: StateWorking}
			messages = false
		}
		mb.mu.Lock()
		mb.taskID = st.Task.ID()
		mb.mu.Unlock()
		t.mu.Lock()
		t.members = append(t.members, mb)
		t.mu.Unlock()
		lines = append(lines, fmt.Sprintf("- %s: task %s", names[i], st.Task.ID()))
		if !st.Messages {
			// Without a mailbox nothing marks the member ended; its state
			// is read from the task (its end reaches the editor as
			// toolhost/taskChanged).
			done := st.Task.Done()
			mb.mu.Lock()
			mb.taskDone = done
			mb.mu.Unlock()
			// The editor learns of the member's end as it learns of the
			// others'. The watch lasts as long as the task, which the
			// session ends and waits for.
			go func() {
				<-done
				mbNotify(t)
			}()
		}
	}
	mbNotify(t)
	text := fmt.Sprintf("Started the team %q with %d members:\n%s\nEach member's replies and messages to the lead are in its task output (TaskOutput). Message members with SendMessage; stop the team with TeamDelete {\"team_name\": %q} when its work is done.",
		name, len(p.Members), strings.Join(lines, "\n"), name)
	if !messages {
		text += "\nThe editor runs these agents, so messages cannot reach them; each works on its prompt alone."
	}
	res := tools.TextResult(text)
	res.Structured = t.Status()
	return res, nil
}

// check validates the members: names unique, not reserved, not running.
func (tc *TeamCreate) check(name string, members []memberSpec) *tools.Result {
	if name == "" {
		return tools.ErrorResult("team_name is empty; give the team a short name.")
	}
	if len(members) == 0 || len(members) > maxMembers {
		return tools.ErrorResult("a team has 1 to %d members; this one has %d.", maxMembers, len(members))
	}
	seen := map[string]bool{}
	for _, m := range members {
		n := strings.ToLower(strings.TrimSpace(m.Name))
		switch {
		case n == "" || strings.TrimSpace(m.Prompt) == "":
			return tools.ErrorResult("every member needs a name and a prompt.")
		case seen[n]:
			return tools.ErrorResult("two members are named %q; names must differ.", m.Name)
		case n == Lead || n == "team-lead" || n == "*":
			return tools.ErrorResult("%q is reserved; choose another member name.", m.Name)
		}
		if _, running := tc.hub.lookup(n); running {
			return tools.ErrorResult("an agent named %q is already running; choose another name.", m.Name)
		}
		seen[n] = true
	}
	return nil
}

// remove stops every member of t and forgets the team.
func (tc *TeamCreate) remove(ctx context.Context, t *Team) []MemberStatus {
	return removeTeam(ctx, tc.hub, tc.tasks, t)
}

func removeTeam(ctx context.Context, hub *Hub, taskManager *tasks.Manager, t *Team) []MemberStatus {
	hub.mu.Lock()
	if hub.teams[strings.ToLower(t.Name)] == t {
		delete(hub.teams, strings.ToLower(t.Name))
	}
	hub.mu.Unlock()
	members := t.memberList()
	var out []MemberStatus
	for _, mb := range members {
		mb.mu.Lock()
		id, before := mb.taskID, mb.stateLocked()
		mb.mu.Unlock()
		if id != "" && taskManager != nil && before != StateEnded {
			_, _ = taskManager.Stop(ctx, id)
		}
		hub.unregister(mb)
		out = append(out, MemberStatus{Name: mb.name, TaskID: id, State: before})
	}
	// Every member's task has ended (Stop waits for it), so nothing
	// notifies about this team after this.
	st := t.Status()
	st.Deleted = true
	notifyStatus(t, st)
	return out
}

// mbNotify sends the team's state to the editor that created it.
func mbNotify(t *Team) {
	notifyStatus(t, t.Status())
}

// notifyStatus sends st, a state of t, to the editor that created t.
func notifyStatus(t *Team, st TeamStatus) {
	if t.host != nil {
		_ = t.host.Notify(context.Background(), NotifyMethod, st)
	}
}

// memberPrompt is a member's task with the team around it.
func memberPrompt(t *Team, names []string, i int, prompt string) string {
	var others []string
	for j, n := range names {
		if j != i {
			others = append(others, n)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are %q, a member of the team %q", names[i], t.Name)
	if t.Description != "" {
		fmt.Fprintf(&b, " (goal: %s)", t.Description)
	}
	b.WriteString(".")
	if len(others) > 0 {
		fmt.Fprintf(&b, " Your teammates: %s. Write to one with SendMessage {\"to\": name, \"message\": ...}.", strings.Join(others, ", "))
	}
	b.WriteString(" When you reply without calling a tool, the reply goes to the lead and you wait for messages; " +
		"messages reach you as user messages. When asked to finish, reply once more without calling a tool.\n\nYour task:\n")
	b.WriteString(prompt)
	return b.String()
}

// TeamDelete stops a team's members and removes the team.
type TeamDelete struct {
	hub   *Hub
	tasks *tasks.Manager
}

// NewTeamDelete returns TeamDelete stopping members through taskManager.
func NewTeamDelete(hub *Hub, taskManager *tasks.Manager) *TeamDelete {
	return &TeamDelete{hub: hub, tasks: taskManager}
}

type teamDeleteParams struct {
	TeamName string `json:"team_name" jsonschema:"The team to stop and remove." schema:"minLength=1"`
}

func (*TeamDelete) Name() string                 { return "TeamDelete" }
func (*TeamDelete) Description() string          { return teamDeleteDescription }
func (*TeamDelete) InputSchema() json.RawMessage { return teamDeleteSchema.JSON() }
func (*TeamDelete) SideEffect() tools.SideEffect { return tools.SideEffectSpawns }

// Docs implements tools.Documented.
func (*TeamDelete) Docs() tools.Docs {
	return tools.Docs{
		Short: "Stop every member of a team and remove the team.",
		Long:  "Running members' tasks are stopped (as TaskStop does); their output stays readable with TaskOutput.",
		Examples: []tools.Example{
			{Title: "Remove the docs team", Input: json.RawMessage(`{"team_name":"docs"}`)},
		},
	}
}

// Execute stops the members and reports what each was doing.
func (td *TeamDelete) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p teamDeleteParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid TeamDelete input (%v).", err), nil
	}
	t, ok := td.hub.team(p.TeamName)
	if !ok {
		st := td.hub.Status()["teams"].([]TeamStatus)
		var names []string
		for _, s := range st {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return tools.ErrorResult("there is no team %q, and no team at all.", p.TeamName), nil
		}
		return tools.ErrorResult("there is no team %q. Teams: %s.", p.TeamName, strings.Join(names, ", ")), nil
	}
	members := removeTeam(ctx, td.hub, td.tasks, t)
	var lines []string
	for _, m := range members {
		what := "stopped"
		if m.State == StateEnded {
			what = "had already ended"
		}
		lines = append(lines, fmt.Sprintf("- %s (task %s): %s", m.Name, m.TaskID, what))
	}
	res := tools.TextResult(fmt.Sprintf("Deleted the team %q:\n%s\nTheir output stays readable with TaskOutput.", t.Name, strings.Join(lines, "\n")))
	res.Structured = map[string]any{"team": t.Name, "members": members}
	return res, nil
}
