//go:build linux

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// needSpares skips a test where commands do not run in cgroups, the only
// place spares are used.
func needSpares(t *testing.T) {
	t.Helper()
	if !sparesUsable() {
		t.Skip("commands do not run in cgroups here, so no spare shell is used")
	}
}

// readySpare waits for the spare started after the last call and returns
// its pid.
func readySpare(t *testing.T, b *Bash) int {
	t.Helper()
	b.spares.starts.Wait()
	b.spares.mu.Lock()
	defer b.spares.mu.Unlock()
	if b.spares.ready == nil {
		t.Fatal("no spare shell was started after the call")
	}
	return b.spares.ready.cmd.Process.Pid
}

// run runs command with Bash and returns the result's text.
func run(t *testing.T, b *Bash, command string) *tools.Result {
	t.Helper()
	res, err := execTool(context.Background(), b, map[string]any{"command": command}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A call after the first runs in the bash started ahead of it, and sees
// what `bash -c` would show it: no script descriptor, no prelude variable,
// no arguments, an empty standard input, its own exit code.
func TestBashRunsInTheSpareAsBashC(t *testing.T) {
	needSpares(t)
	b, _, dir := newBash(t, settings.Defaults)
	run(t, b, "true")
	tests := []struct {
		name, command, want string
		isError             bool
	}{
		{"output", "echo hi", "hi\n", false},
		{"the script's descriptor is closed", "[ -e /dev/fd/3 ] && echo open || echo closed", "closed\n", false},
		{"no prelude variable", "echo ${__toolhost_script-unset}", "unset\n", false},
		{"no arguments, $0 is bash", `echo "$0 $#"`, "bash 0\n", false},
		{"stdin is empty", "cat; echo end", "end\n", false},
		{"in the workspace root", "pwd", dir + "\n", false},
		{"exit code", "exit 3", "\n\n[Exit code 3]", true},
		// The one difference: bash names eval, not -c, as the source.
		{"a syntax error", "if", "bash: eval: line 3: syntax error: unexpected end of file\n\n\n[Exit code 2]", true},
		{"stdout and stderr in order", "echo 1; echo 2 >&2; echo 3", "1\n2\n3\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pid := readySpare(t, b)
			res := run(t, b, "echo $$\n"+tc.command)
			first, rest, _ := strings.Cut(res.Text(), "\n")
			if first != strconv.Itoa(pid) {
				t.Errorf("ran in process %s, not in the spare %d", first, pid)
			}
			if res.IsError != tc.isError || tc.want != "" && rest != tc.want {
				t.Errorf("got (error %v) %q, want (error %v) %q", res.IsError, rest, tc.isError, tc.want)
			}
		})
	}
}

// A spare started with another folder or environment is thrown away: the
// call runs where and with what it should.
func TestBashSpareFollowsFolderAndEnvironment(t *testing.T) {
	needSpares(t)
	s := settings.Defaults()
	s.Env = map[string]string{"SPARE_TEST": "one"}
	b, _, dir := newBash(t, func() *settings.Settings { return s })
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, b, "true")

	// The spare started after a cd starts in the new folder.
	before := readySpare(t, b)
	run(t, b, "cd sub")
	if !testproc.EventuallyGone(before) {
		t.Errorf("the spare %d that ran the cd is still there", before)
	}
	pid := readySpare(t, b)
	if got, want := run(t, b, "echo $$ $PWD").Text(), strconv.Itoa(pid)+" "+filepath.Join(dir, "sub")+"\n"; got != want {
		t.Errorf("after cd: got %q, want %q", got, want)
	}

	// A change of settings changes the environment: the spare started
	// with the old one goes, and the call starts afresh.
	stale := readySpare(t, b)
	s2 := settings.Defaults()
	s2.Env = map[string]string{"SPARE_TEST": "two"}
	s = s2
	if got := run(t, b, "echo $$ $SPARE_TEST").Text(); got == strconv.Itoa(stale)+" one\n" || !strings.HasSuffix(got, " two\n") {
		t.Errorf("after a change of env: got %q", got)
	}
	if !testproc.EventuallyGone(stale) {
		t.Errorf("the stale spare %d is still there", stale)
	}
	pid = readySpare(t, b)
	if got, want := run(t, b, "echo $$ $SPARE_TEST").Text(), strconv.Itoa(pid)+" two\n"; got != want {
		t.Errorf("the next spare: got %q, want %q", got, want)
	}
}

// The session's end ends its spare, and no spare starts afterwards.
func TestBashSpareEndsWithTheSession(t *testing.T) {
	needSpares(t)
	b, m, _ := newBash(t, settings.Defaults)
	run(t, b, "true")
	pid := readySpare(t, b)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !testproc.EventuallyGone(pid) {
		t.Errorf("the spare %d outlived the session", pid)
	}
	run(t, b, "true")
	b.spares.starts.Wait()
	if b.spares.ready != nil {
		t.Errorf("a spare was started after the session ended")
	}
}
