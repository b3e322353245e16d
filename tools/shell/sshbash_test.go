package shell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

func TestSSHArgs(t *testing.T) {
	tests := []struct {
		name string
		host settings.SSHHost
		want []string
	}{
		{"address only", settings.SSHHost{Host: "example.org"},
			[]string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "--", "example.org", "uptime"}},
		{"user port and options", settings.SSHHost{Host: "10.0.0.5", User: "deploy", Port: 2222, Args: []string{"-i", "/keys/id"}},
			[]string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-p", "2222", "-l", "deploy", "-i", "/keys/id", "--", "10.0.0.5", "uptime"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sshArgs(tc.host, "uptime"); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSSHBashHosts(t *testing.T) {
	// A stand-in for ssh that prints its arguments, so the whole call runs
	// without a server.
	dir := t.TempDir()
	fake := filepath.Join(dir, "ssh")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"args: $*\"\nexit 4\n"), 0o755)
	hosts := map[string]settings.SSHHost{
		"staging": {Host: "staging.example.org", User: "ops"},
		"prod":    {Host: "prod.example.org"},
	}
	tests := []struct {
		name  string
		hosts map[string]settings.SSHHost
		input map[string]any
		want  string
	}{
		{"configured host", hosts, map[string]any{"host": "staging", "command": "df -h"},
			"args: -o BatchMode=yes -o ConnectTimeout=15 -l ops -- staging.example.org df -h\n\n\n[Exit code 4]"},
		{"unknown host lists the configured ones", hosts, map[string]any{"host": "dev", "command": "ls"},
			`Error: no SSH host named "dev". The configured hosts are: prod, staging.`},
		{"no hosts configured", nil, map[string]any{"host": "dev", "command": "ls"},
			`Error: no SSH host named "dev": no hosts are configured. Ask the user to add it under ssh.hosts in the settings.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := NewSSHBash(with(func(s *settings.Settings) { s.SSH.Hosts = tc.hosts }))
			tool.ssh = fake
			res, err := execTool(context.Background(), tool, tc.input, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != tc.want || !res.IsError {
				t.Errorf("got (error %v) %q\nwant %q", res.IsError, res.Text(), tc.want)
			}
		})
	}
	if p := NewSSHBash(nil).Preview(context.Background(), []byte(`{"host":"prod","command":"uptime"}`)); p == nil || !strings.Contains(p.Text, "prod") {
		t.Errorf("preview %+v", p)
	}
}
