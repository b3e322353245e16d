//go:build linux

package hooks

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
)

// What a hook started that cleared its environment (env -i) and left its
// process group ends with the hook.
func TestHookEndsEnvClearedProcesses(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "hook.sh", testproc.EnvClearingScript(dir)+"\nexit 0")
	r := runnerFor(dir, PreToolUse, "Bash", nil, settings.HookCommand{Type: "command", Command: "./hook.sh"})
	r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
	for name, pid := range testproc.EnvClearedPIDs(t, dir) {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the %s process %d outlived its hook", name, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
