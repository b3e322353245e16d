//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
)

// A hook that answers and exits, leaving a child that still holds its
// output open (a notifier started with &), is judged by its answer: its
// exit status and what it wrote, not reported as a hook that could not start.
func TestHookLeavingAChildStillDecides(t *testing.T) {
	old := waitDelay
	waitDelay = 100 * time.Millisecond
	t.Cleanup(func() { waitDelay = old })
	tests := []struct {
		name, body string
		want       Outcome
	}{
		{
			name: "exit 2 denies", body: `echo "frozen until Monday" >&2; exit 2`,
			want: Outcome{Decision: DecisionDeny, Reasons: []string{"frozen until Monday"}},
		},
		{
			name: "JSON deny", body: `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"secrets live there"}}'`,
			want: Outcome{Decision: DecisionDeny, Reasons: []string{"secrets live there"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			script(t, dir, "hook.sh", `sleep 300 & echo $! > `+pids+"\n"+tt.body)
			t.Cleanup(func() {
				for _, pid := range readPIDs(t, pids) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			r := runnerFor(dir, PreToolUse, "Bash", nil, settings.HookCommand{Type: "command", Command: "./hook.sh"})
			got := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcome:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
