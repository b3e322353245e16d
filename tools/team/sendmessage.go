package team

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
)

//go:embed sendmessage.md
var sendMessageDescription string

// Message types of SendMessage with tools.teams.
const (
	TypeDirect    = "direct"
	TypeBroadcast = "broadcast"
	TypeShutdown  = "shutdown"
)

// sendMessageSchema is Claude Code's shape; teamsSchema adds the message
// type, offered only when tools.teams is on.
var (
	sendMessageSchema = tools.SchemaOf[sendMessageParams](nil)
	teamsSchema       = tools.SchemaVariantOf[teamsParams]("SendMessage", func(s *jsonschema.Schema) {
		s.Properties["to"].Description = "The name of the running agent or team member to write to; for broadcast and shutdown also a team's name (\"*\": your own team)."
	})
)

// sendMessageParams is Claude Code's input of SendMessage.
type sendMessageParams struct {
	To      string `json:"to" jsonschema:"The name of the running agent or team member to write to."`
	Summary string `json:"summary,omitempty" jsonschema:"A preview of five to ten words shown to the user." schema:"maxLength=200"`
	Message string `json:"message" jsonschema:"The message text." schema:"default=\"\""`
}

// messageType is the field tools.teams adds to the input.
type messageType struct {
	Type string `json:"type,omitempty" jsonschema:"direct (default): to one agent; broadcast: to every member of a team; shutdown: ask a member (or a whole team) to finish and end." schema:"enum=direct|broadcast|shutdown"`
}

// teamsParams is the input SendMessage's schema describes with
// tools.teams on.
type teamsParams struct {
	sendMessageParams
	messageType
}

// SendMessage delivers a message to running agents' mailboxes.
type SendMessage struct {
	hub      *Hub
	settings func() *settings.Settings
}

// NewSendMessage returns SendMessage delivering through hub; cfg says
// whether tools.teams is on (which adds the message type).
func NewSendMessage(hub *Hub, cfg func() *settings.Settings) *SendMessage {
	return &SendMessage{hub: hub, settings: cfg}
}

func (*SendMessage) Name() string        { return "SendMessage" }
func (*SendMessage) Description() string { return sendMessageDescription }

// InputSchema is Claude Code's, with the message type added when teams
// are on.
func (s *SendMessage) InputSchema() json.RawMessage {
	if s.teams() {
		return teamsSchema.JSON()
	}
	return sendMessageSchema.JSON()
}

func (s *SendMessage) teams() bool {
	if s.settings == nil {
		return false
	}
	st := s.settings()
	return st != nil && st.Tools.Teams
}

// SideEffect is state: a message changes only what toolhost's own agents
// read next.
func (*SendMessage) SideEffect() tools.SideEffect { return tools.SideEffectState }

// StrictInput keeps the pipeline's input repair from dropping a field the
// schema lacks: a type sent without tools.teams is refused, not ignored.
func (*SendMessage) StrictInput() bool { return true }

// Docs implements tools.Documented.
func (*SendMessage) Docs() tools.Docs {
	return tools.Docs{
		Short: "Message a running named background agent or a team member.",
		Long: "Messages reach agents run by toolhost's built-in runner: a background Agent started with a `name`, " +
			"or a member of a team (TeamCreate). The recipient reads them before its next request to its model. " +
			"A member's messages to `lead` are written to its task output (TaskOutput). With `tools.teams` the " +
			"input also takes `type`: `broadcast` writes to every member of the team named in `to` (`*` for the " +
			"sender's own team), `shutdown` asks a member or a whole team to finish: an idle member ends at once, " +
			"a working one at its next reply.",
		Examples: []tools.Example{
			{Title: "Redirect a background agent", Input: json.RawMessage(`{"to":"researcher","summary":"Also check the tests","message":"Also list the tests that cover the settings loader."}`)},
		},
	}
}

// Execute delivers the message.
func (s *SendMessage) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p sendMessageParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid SendMessage input (%v); send {\"to\": \"name\", \"message\": \"...\"}.", err), nil
	}
	if strings.TrimSpace(p.Message) == "" {
		return tools.ErrorResult("message is empty; write what the agent should read."), nil
	}
	from := agent.NameFrom(ctx)
	if from == "" {
		from = Lead
	}
	var mt messageType
	_ = json.Unmarshal(call.Input, &mt)
	kind := mt.Type
	if kind == "" {
		kind = TypeDirect
	}
	to := strings.TrimSpace(p.To)
	if kind == TypeDirect && (strings.EqualFold(to, Lead) || strings.EqualFold(to, "team-lead")) {
		return s.toLead(from, p)
	}
	targets, errRes := s.targets(from, to, kind)
	if errRes != nil {
		return errRes, nil
	}
	text := format(from, p, kind)
	var names []string
	for _, mb := range targets {
		mb.deliver(text, kind == TypeShutdown)
		names = append(names, mb.name)
	}
	verb := "Delivered to"
	if kind == TypeShutdown {
		verb = "Asked to finish:"
	}
	res := tools.TextResult(fmt.Sprintf("%s %s.", verb, strings.Join(names, ", ")))
	res.Structured = map[string]any{"success": true, "recipients": names, "type": kind}
	return res, nil
}

// toLead writes a member's message to its task output, where the session's
// model reads it with TaskOutput.
func (s *SendMessage) toLead(from string, p sendMessageParams) (*tools.Result, error) {
	mb, ok := s.hub.lookup(from)
	if !ok || from == Lead {
		return tools.ErrorResult("only a running agent can write to the lead; you are the lead. Write to a member by its name."), nil
	}
	fmt.Fprintf(mb.out, "[%s → lead] %s\n", from, p.Message)
	mb.notify()
	return tools.TextResult("Delivered to the lead (in your task's output)."), nil
}

// targets resolves the recipients of a message.
func (s *SendMessage) targets(from, to, kind string) ([]*mailbox, *tools.Result) {
	if kind != TypeDirect {
		if !s.teams() {
			return nil, tools.ErrorResult("type %q needs teams, which are off; send a direct message without type.", kind)
		}
		teamName := to
		if to == "*" {
			sender, ok := s.hub.lookup(from)
			if !ok || sender.team == nil {
				return nil, tools.ErrorResult("\"*\" means your own team, and you are in none; name the team.")
			}
			teamName = sender.team.Name
		}
		if t, ok := s.hub.team(teamName); ok {
			var out []*mailbox
			for _, mb := range t.memberList() {
				if !strings.EqualFold(mb.name, from) && mb.running() {
					out = append(out, mb)
				}
			}
			if len(out) == 0 {
				return nil, tools.ErrorResult("no member of the team %q is running.", t.Name)
			}
			return out, nil
		}
		if kind == TypeBroadcast {
			return nil, tools.ErrorResult("there is no team %q; broadcast goes to a team's members. %s", to, s.running())
		}
	}
	if strings.EqualFold(to, from) {
		return nil, tools.ErrorResult("you cannot send a message to yourself.")
	}
	mb, ok := s.hub.lookup(to)
	if !ok {
		if m := s.hub.member(to); m != nil && m.running() {
			return nil, tools.ErrorResult("%s is run by the editor, which cannot pass messages to its agents; read its work with TaskOutput (task %s) instead.", m.name, m.taskID)
		}
		return nil, tools.ErrorResult("no running agent is named %q. %s", to, s.running())
	}
	return []*mailbox{mb}, nil
}

// running lists the agents that can receive messages, for errors.
func (s *SendMessage) running() string {
	names := s.hub.names()
	if len(names) == 0 {
		return "No named agent is running: start one with Agent (run_in_background: true, name: \"...\")."
	}
	return "Running agents: " + strings.Join(names, ", ") + "."
}

// format is a message as the recipient's model reads it.
func format(from string, p sendMessageParams, kind string) string {
	var b strings.Builder
	switch kind {
	case TypeShutdown:
		fmt.Fprintf(&b, "[%s asks you to finish] %s\nStop working now: reply once more without calling any tool, with a short final report.", from, p.Message)
	case TypeBroadcast:
		fmt.Fprintf(&b, "[message from %s to the whole team] %s", from, p.Message)
	default:
		fmt.Fprintf(&b, "[message from %s] %s", from, p.Message)
	}
	if from != Lead {
		fmt.Fprintf(&b, "\n(Answer with SendMessage to %q if an answer is needed.)", from)
	}
	return b.String()
}

// running reports whether the mailbox's agent has not ended.
func (mb *mailbox) running() bool {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return mb.stateLocked() != StateEnded
}
