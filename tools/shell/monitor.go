package shell

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/net/websocket"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/tasks"
)

//go:embed monitor.md
var monitorDescription string

// Monitor deadlines, as in Claude Code.
const (
	DefaultMonitorTimeout = 5 * time.Minute
	MaxMonitorTimeout     = 30 * time.Minute
)

// MonitorInput is the input of Monitor, as in Claude Code.
type MonitorInput struct {
	Description string     `json:"description" jsonschema:"Short description of what you are monitoring, shown to the user."`
	TimeoutMs   float64    `json:"timeout_ms" jsonschema:"Stop the monitor after this many milliseconds: default 300000, at most 1800000 (a larger value is capped)." schema:"default=300000,minimum=1000,maximum=3600000"`
	Command     string     `json:"command,omitempty" jsonschema:"Shell command or script; each output line is an event, and its exit ends the watch."`
	WS          *MonitorWS `json:"ws,omitempty" jsonschema:"WebSocket to open instead of a command; each text message is an event, and the socket closing ends the watch."`
}

// MonitorWS is the WebSocket a Monitor opens.
type MonitorWS struct {
	URL string `json:"url"`
	// Each protocol is an HTTP token: it goes into the handshake's
	// Sec-WebSocket-Protocol header, which a space or line break would
	// break. The tag is a quoted string because the pattern holds a backquote.
	Protocols []string "json:\"protocols,omitempty\" schema:\"items.pattern=^[!#$%&'*+.^_`|~0-9A-Za-z-]+$\""
}

// MonitorOutput is the structured result, in Claude Code's shape.
type MonitorOutput struct {
	TaskID    string `json:"taskId"`
	TimeoutMs int64  `json:"timeoutMs"`
}

var monitorSchema = tools.SchemaOf[MonitorInput](nil)

// Monitor watches a command's output or a WebSocket's messages as a
// background task whose output lines are the events.
type Monitor struct {
	bash *Bash
}

// NewMonitor returns Monitor running its commands as b does (its folder,
// environment and task manager).
func NewMonitor(b *Bash) *Monitor { return &Monitor{bash: b} }

func (*Monitor) Name() string                 { return "Monitor" }
func (*Monitor) Description() string          { return monitorDescription }
func (*Monitor) InputSchema() json.RawMessage { return monitorSchema.JSON() }
func (*Monitor) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs documents Monitor.
func (*Monitor) Docs() tools.Docs {
	return tools.Docs{
		Short: "Watch a command's output lines or a WebSocket's messages as events, in a background task with a deadline.",
		Long: "A command runs as Bash's would (folder, environment, blocked commands, permission rules as Bash(...), bash.sandbox); " +
			"a WebSocket's host is matched by WebFetch(domain:...) rules. The task's output holds one line per event " +
			"(stdout and stderr alike); TaskOutput reads it, TaskStop ends the watch, the editor sees the task start " +
			"and end. Claude Code tells the model when a monitor's deadline passes; toolhost has no channel to the " +
			"model between calls, so read the task's state with TaskOutput.",
		Examples: []tools.Example{
			{Title: "Watch a log for errors", Input: json.RawMessage(`{"description":"errors in the build log","timeout_ms":600000,"command":"tail -f build.log | grep --line-buffered ERROR"}`)},
			{Title: "Watch a WebSocket", Input: json.RawMessage(`{"description":"deploy events","timeout_ms":300000,"ws":{"url":"wss://deploy.example.com/events"}}`)},
		},
	}
}

// Access: a command for Bash(...) rules, a WebSocket's host for domain rules.
func (m *Monitor) Access(in json.RawMessage) tools.Access {
	var p MonitorInput
	_ = json.Unmarshal(in, &p)
	if p.WS != nil {
		if u, err := url.Parse(p.WS.URL); err == nil {
			return tools.Access{Domain: u.Hostname()}
		}
		return tools.Access{}
	}
	return tools.Access{Command: p.Command, Dir: m.bash.startDir()}
}

// Preview shows what is watched.
func (*Monitor) Preview(_ context.Context, in json.RawMessage) *tools.Preview {
	var p MonitorInput
	if json.Unmarshal(in, &p) != nil {
		return nil
	}
	if p.WS != nil {
		return &tools.Preview{Kind: "url", Text: p.WS.URL}
	}
	return &tools.Preview{Kind: "command", Text: p.Command + "\n# watched in the background"}
}

func (m *Monitor) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var in MonitorInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of Monitor is not valid: %v. Send {\"description\", \"timeout_ms\", \"command\"}.", err), nil
	}
	b := m.bash
	if b.tasks == nil {
		return tools.ErrorResult("monitors are not available in this session (no background tasks)."), nil
	}
	command := strings.TrimSpace(in.Command)
	switch {
	case command != "" && in.WS != nil:
		return tools.ErrorResult("give either command or ws, not both: one monitor watches one thing."), nil
	case command == "" && in.WS == nil:
		return tools.ErrorResult("nothing to watch: give command (a shell command whose output lines are the events) or ws ({\"url\": \"wss://...\"})."), nil
	}
	timeout := DefaultMonitorTimeout
	if in.TimeoutMs > 0 {
		timeout = min(time.Duration(in.TimeoutMs*float64(time.Millisecond)), MaxMonitorTimeout)
	}
	spec := tasks.Spec{Kind: "monitor", Timeout: timeout}
	if call.Host != nil {
		spec.Notify = call.Host.Notify
	}
	var t *tasks.Task
	var err error
	if in.WS != nil {
		u, perr := url.Parse(in.WS.URL)
		if perr != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
			return tools.ErrorResult("ws.url %q is not a WebSocket URL; give ws:// or wss://.", in.WS.URL), nil
		}
		spec.Command = "WebSocket " + in.WS.URL
		ws := *in.WS
		t, err = b.tasks.StartFunc(spec, func(ctx context.Context, out io.Writer) error { return watchWebSocket(ctx, ws, out) })
	} else {
		s := b.settings()
		// Confined as Bash's commands are: under bash.sandbox, bubblewrap.
		dir := b.workDir()
		name, args, serr := sandboxArgs(s, b.ws.RealFolders(), dir, command)
		if serr != nil {
			return tools.ErrorResult("%v.", serr), nil
		}
		spec.Command, spec.Name, spec.Args = command, name, args
		spec.Dir, spec.Env = dir, commandEnv(os.Environ(), s)
		t, err = b.tasks.Start(spec)
	}
	if err != nil {
		return tools.ErrorResult("could not start the monitor: %v.", err), nil
	}
	r := tools.TextResult(fmt.Sprintf("Monitor started as task %s: %s. Each line of its output is an event. Read the events so far with TaskOutput (task_id %q, block false to return at once) and stop it with TaskStop. It stops by itself after %s.",
		t.ID(), strings.TrimSpace(in.Description), t.ID(), timeout))
	r.Structured = MonitorOutput{TaskID: t.ID(), TimeoutMs: timeout.Milliseconds()}
	return r, nil
}

// wsFrame is one received WebSocket message.
type wsFrame struct {
	data   []byte
	binary bool
}

// frameCodec receives a message of either kind, telling which.
var frameCodec = websocket.Codec{
	Unmarshal: func(data []byte, payloadType byte, v any) error {
		f := v.(*wsFrame)
		f.data, f.binary = data, payloadType == websocket.BinaryFrame
		return nil
	},
}

// watchWebSocket writes one line per message of the socket until it closes
// or ctx ends (the monitor's stop or deadline).
func watchWebSocket(ctx context.Context, ws MonitorWS, out io.Writer) error {
	cfg, err := websocket.NewConfig(ws.URL, originOf(ws.URL))
	if err != nil {
		return err
	}
	cfg.Protocol = ws.Protocols
	conn, err := cfg.DialContext(ctx)
	if err != nil {
		return fmt.Errorf("opening %s: %w", ws.URL, err)
	}
	// Closing the connection is what ends a pending read when ctx ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	w := bufio.NewWriter(out)
	for {
		var f wsFrame
		if err := frameCodec.Receive(conn, &f); err != nil {
			if ctx.Err() != nil || err == io.EOF {
				fmt.Fprintln(w, "[the WebSocket closed]")
				return w.Flush()
			}
			fmt.Fprintf(w, "[the WebSocket failed: %v]\n", err)
			_ = w.Flush()
			return err
		}
		if f.binary {
			fmt.Fprintf(w, "[binary message, %d bytes]\n", len(f.data))
		} else {
			for _, line := range strings.Split(strings.TrimRight(string(f.data), "\n"), "\n") {
				fmt.Fprintln(w, line)
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// originOf is the Origin header a WebSocket handshake needs: the URL's own
// host over http(s).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "http://localhost/"
	}
	scheme := "http"
	if u.Scheme == "wss" {
		scheme = "https"
	}
	return scheme + "://" + u.Host + "/"
}
