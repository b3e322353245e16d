package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed sshbash.md
var sshBashDescription string

// SSHBashInput is the input of SSHBash.
type SSHBashInput struct {
	Host    string   `json:"host" jsonschema:"Name of a host configured under ssh.hosts in the settings."`
	Command string   `json:"command" jsonschema:"The command to run on the host."`
	Timeout *float64 `json:"timeout,omitempty" jsonschema:"Timeout in milliseconds: default 120000, at most 600000." schema:"minimum=0"`
}

var sshBashSchema = tools.SchemaOf[SSHBashInput](nil)

// SSHBash runs a command on a configured host with the system ssh.
type SSHBash struct {
	settings func() *settings.Settings
	// ssh is the ssh program to run.
	ssh string
}

// NewSSHBash returns the SSHBash tool; hosts come from the current settings
// on every call.
func NewSSHBash(s func() *settings.Settings) *SSHBash {
	if s == nil {
		s = settings.Defaults
	}
	return &SSHBash{settings: s, ssh: "ssh"}
}

func (*SSHBash) Name() string                 { return "SSHBash" }
func (*SSHBash) Description() string          { return sshBashDescription }
func (*SSHBash) InputSchema() json.RawMessage { return sshBashSchema.JSON() }
func (*SSHBash) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs documents SSHBash.
func (*SSHBash) Docs() tools.Docs {
	return tools.Docs{
		Short: "Run a command on an SSH host named in the settings (ssh.hosts).",
		Long:  sshBashDescription,
		Examples: []tools.Example{
			{Title: "Disk space on the staging server", Input: json.RawMessage(`{"host":"staging","command":"df -h /"}`)},
		},
	}
}

// Access: the remote command for rules; like Bash, one shell call at a time.
func (*SSHBash) Access(in json.RawMessage) tools.Access {
	var p SSHBashInput
	_ = json.Unmarshal(in, &p)
	return tools.Access{Command: p.Command, Exclusive: []string{"shell"}}
}

// Preview shows where and what will run.
func (*SSHBash) Preview(_ context.Context, in json.RawMessage) *tools.Preview {
	var p SSHBashInput
	if json.Unmarshal(in, &p) != nil {
		return nil
	}
	return &tools.Preview{Kind: "command", Text: "# on " + p.Host + "\n" + p.Command}
}

// sshArgs builds ssh's arguments for a configured host: batch mode (no
// password prompts), the host's port, user and own options, then the
// destination and the command after "--".
func sshArgs(h settings.SSHHost, command string) []string {
	args := []string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=15"}
	if h.Port > 0 {
		args = append(args, "-p", strconv.Itoa(h.Port))
	}
	if h.User != "" {
		args = append(args, "-l", h.User)
	}
	args = append(args, h.Args...)
	return append(args, "--", h.Host, command)
}

func (t *SSHBash) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in SSHBashInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of SSHBash is not valid: %v. Send {\"host\": \"...\", \"command\": \"...\"}.", err), nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return tools.ErrorResult("command is empty. Give the command to run on the host."), nil
	}
	s := t.settings()
	h, ok := s.SSH.Hosts[in.Host]
	if !ok || h.Host == "" {
		return unknownHost(in.Host, s.SSH.Hosts), nil
	}
	timeout, maxTimeout, maxOutput := limits(s, in.Timeout)
	res, err := runForeground(ctx, runSpec{
		name: t.ssh, args: sshArgs(h, in.Command), env: commandEnv(os.Environ(), s),
		timeout: timeout, maxOutput: maxOutput, progress: call.Progress,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("running ssh: %w", err)
	}
	longer := "split the work into shorter commands"
	if timeout < maxTimeout {
		longer = fmt.Sprintf("pass a larger timeout (at most %d ms)", maxTimeout.Milliseconds())
	}
	r := bashResult(in.Command, res, timeout, longer, false)
	if res.exitCode == 255 {
		r.Content[0].Text += "\n(ssh exits with 255 when it cannot connect or log in: check the host's settings and that a key or agent gives access.)"
	}
	return r, nil
}

// unknownHost explains which hosts may be used.
func unknownHost(name string, hosts map[string]settings.SSHHost) *tools.Result {
	if len(hosts) == 0 {
		return tools.ErrorResult("no SSH host named %q: no hosts are configured. Ask the user to add it under ssh.hosts in the settings.", name)
	}
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return tools.ErrorResult("no SSH host named %q. The configured hosts are: %s.", name, strings.Join(names, ", "))
}
