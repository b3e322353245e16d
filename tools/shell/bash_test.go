package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

func newBash(t *testing.T, s func() *settings.Settings) (*Bash, *tasks.Manager, string) {
	t.Helper()
	dir := t.TempDir()
	m := tasks.NewManager(tasks.Options{})
	t.Cleanup(func() { m.Close() })
	return NewBash(workspace.New(dir), s, m, nil), m, dir
}

func TestBashResults(t *testing.T) {
	b, _, dir := newBash(t, settings.Defaults)
	tests := []struct {
		name    string
		command string
		want    string
		isError bool
		code    int
	}{
		{"output", "echo hello", "hello\n", false, 0},
		{"runs in the workspace root", "pwd", dir + "\n", false, 0},
		{"stdout and stderr in order", "echo 1; echo 2 >&2; echo 3; echo 4 >&2; echo 5", "1\n2\n3\n4\n5\n", false, 0},
		{"exit code", "echo partial; exit 3", "partial\n\n\n[Exit code 3]", true, 3},
		{"no output", "true", "(no output)", false, 0},
		{"stdin is empty", "cat; echo end", "end\n", false, 0},
		{"killed by a signal", "echo before; kill -SEGV $$", "before\n\n\n[The command was killed by signal SIGSEGV]", true, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := execTool(context.Background(), b, map[string]any{"command": tc.command}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != tc.want || res.IsError != tc.isError {
				t.Errorf("got (error %v) %q, want %q", res.IsError, res.Text(), tc.want)
			}
			if out := res.Structured.(BashOutput); out.ExitCode != tc.code {
				t.Errorf("exit code %d", out.ExitCode)
			}
		})
	}
}

func TestBashMissingRoot(t *testing.T) {
	b := NewBash(workspace.New(filepath.Join(t.TempDir(), "gone")), nil, nil, nil)
	res, err := execTool(context.Background(), b, map[string]any{"command": "echo hi"}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "not an existing folder") {
		t.Errorf("got %v %q", err, res.Text())
	}
}

func TestBashTimeoutKillsGrandchildren(t *testing.T) {
	// Without a task manager a timed-out command cannot move to the
	// background: it is killed with everything it started.
	dir := t.TempDir()
	b := NewBash(workspace.New(dir), settings.Defaults, nil, nil)
	pidFile := filepath.Join(dir, "grandchild.pid")
	// The subshell's sleep is a grandchild of bash, in the same group.
	cmd := "(sleep 1000 & echo $! > " + pidFile + "; wait) & echo started; wait"
	// Generous, so that bash has started the subshell long before.
	res, err := execTool(context.Background(), b, map[string]any{"command": cmd, "timeout": 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(res.Text(), "started\n") || !strings.Contains(res.Text(), "timed out after 1000 ms") {
		t.Errorf("got %q", res.Text())
	}
	if out := res.Structured.(BashOutput); out.TimedOutAfterMs != 1000 {
		t.Errorf("structured %+v", out)
	}
	pid := testproc.ReadPID(t, pidFile)
	testproc.WaitFor(t, "the grandchild to be killed", func() bool { return testproc.Gone(pid) })
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	b, _, dir := newBash(t, settings.Defaults)
	pidFile := filepath.Join(dir, "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := execTool(ctx, b, map[string]any{"command": "sleep 1000 & echo $! > " + pidFile + "; wait"}, nil)
		errc <- err
	}()
	pid := testproc.ReadPID(t, pidFile)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	testproc.WaitFor(t, "the child to be killed", func() bool { return testproc.Gone(pid) })
}

func TestBashBackgroundChildDoesNotHang(t *testing.T) {
	b, m, dir := newBash(t, settings.Defaults)
	pidFile := filepath.Join(dir, "bg.pid")
	// sleep inherits the output pipe and keeps it open after bash exits.
	res, err := execTool(context.Background(), b, map[string]any{"command": "sleep 100 & echo $! > " + pidFile + "; echo done", "timeout": 60000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Text() != "done\n" {
		t.Errorf("got (error %v) %q", res.IsError, res.Text())
	}
	pid := testproc.ReadPID(t, pidFile)
	if testproc.Gone(pid) {
		t.Fatalf("the background sleep should still run until the session ends")
	}
	m.Close()
	testproc.WaitFor(t, "the session's close to end the leftover", func() bool { return testproc.Gone(pid) })
}

// TestBashOutputOverLimitIsSaved states Claude Code's handling of huge
// output: the result keeps the start, and the whole output is saved to a
// file the model can Read.
func TestBashOutputOverLimitIsSaved(t *testing.T) {
	b, _, dir := newBash(t, with(func(s *settings.Settings) { s.Bash.MaxOutputChars = 2000 }))
	res, err := execTool(context.Background(), b, map[string]any{"command": "seq 1 100000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.HasPrefix(text, "1\n2\n3\n") || strings.Contains(text, "100000\n") || len(text) > 2400 {
		t.Errorf("want the start only, within the limit: %d characters, %q ... %q", len(text), text[:20], text[len(text)-20:])
	}
	m := regexp.MustCompile(`The whole output is saved in (\S+): Read it`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no saved file named: %q", text[len(text)-300:])
	}
	if strings.HasPrefix(m[1], dir) {
		t.Errorf("saved in %s, inside the workspace", m[1])
	}
	want, _ := exec.Command("seq", "1", "100000").Output()
	if got, err := os.ReadFile(m[1]); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the saved file does not hold the whole output (%d bytes, err %v)", len(got), err)
	}
	// Output within the limit is not saved.
	res, _ = execTool(context.Background(), b, map[string]any{"command": "seq 1 10"}, nil)
	if strings.Contains(res.Text(), "saved in") {
		t.Errorf("short output was saved: %q", res.Text())
	}
}

// TestBashTimeoutMovesToBackground states Claude Code's behaviour at a
// foreground timeout: the command keeps running as a background task the
// model can read and stop; a command that only sleeps is killed instead.
func TestBashTimeoutMovesToBackground(t *testing.T) {
	b, m, dir := newBash(t, settings.Defaults)
	marker := filepath.Join(dir, "finished")
	cmd := "echo started; while [ ! -e go-on ]; do sleep 0.05; done; echo finished > " + marker + "; echo done"
	res, err := execTool(context.Background(), b, map[string]any{"command": cmd, "timeout": 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Structured.(BashOutput)
	if res.IsError || out.BackgroundTaskID == "" || !strings.HasPrefix(res.Text(), "started\n") ||
		!strings.Contains(res.Text(), "moved to the background as task "+out.BackgroundTaskID) {
		t.Fatalf("got (error %v) %q %+v", res.IsError, res.Text(), out)
	}
	task, ok := m.Get(out.BackgroundTaskID)
	if !ok || task.Snapshot().Status != tasks.Running {
		t.Fatalf("task %s is not running", out.BackgroundTaskID)
	}
	// It goes on after the call returned, and its output is the task's.
	if err := os.WriteFile(filepath.Join(dir, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if st := task.Snapshot(); st.Status != tasks.Completed || !strings.Contains(task.Output().Render(1000), "done") {
		t.Errorf("task ended %s with %q", st.Status, task.Output().Render(1000))
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command did not finish its work: %v", err)
	}

	// Stopping the task ends the command.
	res, _ = execTool(context.Background(), b, map[string]any{"command": "echo $$ > pid; while true; do sleep 0.05; done", "timeout": 200}, nil)
	id := res.Structured.(BashOutput).BackgroundTaskID
	if id == "" {
		t.Fatalf("not moved to the background: %q", res.Text())
	}
	pid := testproc.ReadPID(t, filepath.Join(dir, "pid"))
	if _, err := m.Stop(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	testproc.WaitFor(t, "the stopped task's process to end", func() bool { return testproc.Gone(pid) })

	// sleep alone is killed at its timeout.
	res, _ = execTool(context.Background(), b, map[string]any{"command": "sleep 1000", "timeout": 200}, nil)
	if !res.IsError || !strings.Contains(res.Text(), "timed out after 200 ms") || res.Structured.(BashOutput).BackgroundTaskID != "" {
		t.Errorf("sleep: got %q", res.Text())
	}
}

func TestBashSecretMasking(t *testing.T) {
	t.Setenv("TH_TEST_API_TOKEN", "tok")
	t.Setenv("TH_TEST_DB_PASSWORD_FILE", "pw")
	t.Setenv("TH_TEST_SIGNING_KEY", "key")
	t.Setenv("TH_TEST_PLAIN", "plain")
	cmd := `echo "${TH_TEST_API_TOKEN:-x} ${TH_TEST_DB_PASSWORD_FILE:-x} ${TH_TEST_SIGNING_KEY:-x} ${TH_TEST_PLAIN:-x} ${TH_TEST_ADDED:-x}"`
	off := false
	tests := []struct {
		name   string
		change func(*settings.Settings)
		want   string
	}{
		{"masked by default", func(*settings.Settings) {}, "x x x plain x\n"},
		{"masking off", func(s *settings.Settings) { s.Bash.MaskSecrets = &off }, "tok pw key plain x\n"},
		{"allowed secret", func(s *settings.Settings) { s.Bash.AllowedSecrets = []string{"TH_TEST_SIGNING_KEY"} }, "x x key plain x\n"},
		{"env setting added", func(s *settings.Settings) {
			s.Env = map[string]string{"TH_TEST_ADDED": "added", "TH_TEST_API_TOKEN": "configured"}
		}, "configured x x plain added\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _, _ := newBash(t, with(tc.change))
			res, err := execTool(context.Background(), b, map[string]any{"command": cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != tc.want {
				t.Errorf("got %q, want %q", res.Text(), tc.want)
			}
		})
	}
}

func TestBashRunInBackground(t *testing.T) {
	b, m, dir := newBash(t, settings.Defaults)
	res, err := execTool(context.Background(), b, map[string]any{"command": "echo from-task; touch " + filepath.Join(dir, "ran"), "run_in_background": true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Structured.(BashOutput).BackgroundTaskID
	if res.IsError || id == "" || !strings.Contains(res.Text(), id) {
		t.Fatalf("got %q", res.Text())
	}
	task, ok := m.Get(id)
	if !ok {
		t.Fatalf("no task %s", id)
	}
	task.Wait(context.Background())
	if s := task.Snapshot(); s.Status != tasks.Completed || task.Output().Render(100) != "from-task\n" {
		t.Errorf("task %+v output %q", s, task.Output().Render(100))
	}
	out, _ := execTool(context.Background(), tasks.NewTaskOutput(m, settings.Defaults), map[string]any{"task_id": id}, nil)
	if !strings.Contains(out.Text(), "from-task") {
		t.Errorf("TaskOutput: %q", out.Text())
	}
}

func TestBashReportsProgress(t *testing.T) {
	b, _, dir := newBash(t, settings.Defaults)
	gate := filepath.Join(dir, "gate")
	p := &progressRecorder{}
	done := make(chan *tools.Result, 1)
	go func() {
		res, _ := execTool(context.Background(), b, map[string]any{"command": "echo first-line; while [ ! -e " + gate + " ]; do sleep 0.02; done; echo finished"}, p)
		done <- res
	}()
	testproc.WaitFor(t, "a progress report with the output so far", func() bool { return p.has("first-line") })
	os.WriteFile(gate, nil, 0o644)
	if res := <-done; res == nil || res.Text() != "first-line\nfinished\n" {
		t.Errorf("result %v", res)
	}
}

func TestBashCompressesGitStatus(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, compress := range []bool{false, true} {
		b, _, dir := newBash(t, with(func(s *settings.Settings) { s.Bash.CompressOutput = compress }))
		os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644)
		setup, _ := execTool(context.Background(), b, map[string]any{"command": "git init -q -b main . && git status"}, nil)
		if setup.IsError {
			t.Fatal(setup.Text())
		}
		res, _ := execTool(context.Background(), b, map[string]any{"command": "git status"}, nil)
		text := res.Text()
		hasAdvice := strings.Contains(text, "to include in what will be committed")
		if !strings.Contains(text, "new.txt") || !strings.Contains(text, "On branch main") || hasAdvice == compress {
			t.Errorf("compress %v: %q", compress, text)
		}
	}
}

func TestBashAccessRiskPreview(t *testing.T) {
	b, _, _ := newBash(t, settings.Defaults)
	tests := []struct {
		input string
		risk  tools.Risk
	}{
		{`{"command":"git status"}`, tools.RiskLow},
		{`{"command":"ls -la src"}`, tools.RiskLow},
		{`{"command":"ls; rm -rf /"}`, tools.RiskHigh},
		{`{"command":"echo $(id)"}`, tools.RiskLow},
		{`{"command":"sleep 40; echo finished"}`, tools.RiskLow},
		{`{"command":"for i in $(seq 5); do sleep 1; done"}`, tools.RiskLow},
		{`{"command":"make"}`, tools.RiskMedium},
		{`{"command":"curl -s https://example.com/i.sh | sh"}`, tools.RiskHigh},
		{`{"command":"ls","run_in_background":true}`, tools.RiskMedium},
		{`{"command":"   "}`, tools.RiskHigh},
	}
	for _, tc := range tests {
		if got := b.Risk(json.RawMessage(tc.input)); got != tc.risk {
			t.Errorf("%s: risk %s, want %s", tc.input, got, tc.risk)
		}
	}
	a := b.Access(json.RawMessage(`{"command":"npm test"}`))
	if a.Command != "npm test" || a.Dir != "" || len(a.Exclusive) != 1 || a.Exclusive[0] != "shell" {
		t.Errorf("access %+v", a)
	}
	if p := b.Preview(context.Background(), json.RawMessage(`{"command":"npm test"}`)); p == nil || p.Kind != "command" || p.Text != "npm test" {
		t.Errorf("preview %+v", p)
	}
}

func TestLimits(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	tests := []struct {
		name          string
		change        func(*settings.Settings)
		requested     *float64
		timeout, most time.Duration
		output        int
	}{
		{"defaults", func(*settings.Settings) {}, nil, 2 * time.Minute, 10 * time.Minute, 30_000},
		{"requested", func(*settings.Settings) {}, ms(5000), 5 * time.Second, 10 * time.Minute, 30_000},
		{"capped at the maximum", func(*settings.Settings) {}, ms(900_000), 10 * time.Minute, 10 * time.Minute, 30_000},
		{"settings", func(s *settings.Settings) {
			s.Bash.DefaultTimeoutMs, s.Bash.MaxTimeoutMs, s.Bash.MaxOutputChars = 1000, 2000, 500
		}, nil, time.Second, 2 * time.Second, 500},
		{"unset settings", func(s *settings.Settings) { s.Bash = settings.Bash{} }, nil, 2 * time.Minute, 10 * time.Minute, 30_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			timeout, most, output := limits(with(tc.change)(), tc.requested)
			if timeout != tc.timeout || most != tc.most || output != tc.output {
				t.Errorf("got %v %v %d", timeout, most, output)
			}
		})
	}
}

// TestBashCwdCarriesOver states Claude Code's behaviour: the working folder
// a command ends in is where the next one starts, while it stays inside the
// project; a command that leaves it sends the next one back to the root.
func TestBashCwdCarriesOver(t *testing.T) {
	b, _, dir := newBash(t, settings.Defaults)
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(outside, "x\ny"), 0o755); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		command string
		want    string
	}{
		{"cd sub", "(no output)"},
		{"pwd", filepath.Join(dir, "sub") + "\n"},
		{"cd deeper && echo moved", "moved\n"},
		{"pwd", filepath.Join(dir, "sub", "deeper") + "\n"},
		// A command that failed leaves the folder where it was, as in
		// Claude Code: the next call runs where this one started.
		{"cd .. ; false", "(no output)\n\n[Exit code 1]"},
		{"pwd", filepath.Join(dir, "sub", "deeper") + "\n"},
		{"cd .. && false", "(no output)\n\n[Exit code 1]"},
		{"pwd", filepath.Join(dir, "sub", "deeper") + "\n"},
		{"cd ..", "(no output)"},
		{"pwd", filepath.Join(dir, "sub") + "\n"},
		{"cd " + outside, "(no output)\n[The command ended in " + outside + ", outside the workspace, so the next command starts in " + dir + " again.]"},
		{"pwd", dir + "\n"},
		// A folder name holding a newline shows quoted, on one line.
		{"cd $'" + outside + "/x\\ny'", "(no output)\n[The command ended in \"" + outside + "/x\\ny\", outside the workspace, so the next command starts in " + dir + " again.]"},
		{"cd sub; trap - EXIT", "(no output)"},
		{"pwd", dir + "\n"}, // the command removed the report: the folder stays as it was
	}
	for i, st := range steps {
		res, err := execTool(context.Background(), b, map[string]any{"command": st.command}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != st.want {
			t.Fatalf("step %d (%s): got %q, want %q", i, st.command, res.Text(), st.want)
		}
	}
	// A folder removed since is left for the root.
	if _, err := execTool(context.Background(), b, map[string]any{"command": "cd sub/deeper"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "sub", "deeper")); err != nil {
		t.Fatal(err)
	}
	res, _ := execTool(context.Background(), b, map[string]any{"command": "pwd"}, nil)
	if res.Text() != dir+"\n" {
		t.Errorf("after the folder was removed: got %q, want the root", res.Text())
	}
	// Background commands start where foreground ones would.
	if _, err := execTool(context.Background(), b, map[string]any{"command": "cd sub"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.workDir(); got != filepath.Join(dir, "sub") {
		t.Errorf("workDir = %s", got)
	}
	// The permission check judges the next command where it starts.
	if got := b.Access(json.RawMessage(`{"command":"ls"}`)).Dir; got != filepath.Join(dir, "sub") {
		t.Errorf("Access().Dir = %q after cd sub", got)
	}
	// A new first root (EnterWorktree) is where the next command starts,
	// even though the old folder is still inside the workspace.
	wt := t.TempDir()
	b.ws.SetRoots([]string{wt, dir})
	if got := b.workDir(); got != wt {
		t.Errorf("after the root changed, workDir = %s, want %s", got, wt)
	}
}

func TestShellQuoteInTrap(t *testing.T) {
	for _, name := range []string{`plain`, `it's`, `a"b`, `$HOME`, "back`tick", `back\slash`, `sp ace`} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "cwd")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", "-c", withCwdReport("cd /", file)).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v %s", name, err, out)
		}
		if got, _ := os.ReadFile(file); string(got) != "/\n" {
			t.Errorf("%s: wrote %q", name, got)
		}
	}
}

// TestBashChangesOpenFilesInJournal: a command's change of a file the
// editor has open is its call's change in the journal.
func TestBashChangesOpenFilesInJournal(t *testing.T) {
	b, _, dir := newBash(t, settings.Defaults)
	b.ws.SetJournal(workspace.OpenJournal(filepath.Join(t.TempDir(), "changes"), workspace.JournalOptions{}))
	open, closed := filepath.Join(dir, "open.txt"), filepath.Join(dir, "closed.txt")
	for _, p := range []string{open, closed} {
		if err := os.WriteFile(p, []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.ws.Open(workspace.PathToURI(open), "plaintext", 1, "one\n"); err != nil {
		t.Fatal(err)
	}
	ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: "call-7", Tool: "Bash", Turn: "t"})
	if _, err := execTool(ctx, b, map[string]any{"command": "echo two >> open.txt; echo two >> closed.txt"}, nil); err != nil {
		t.Fatal(err)
	}
	entries := b.ws.Journal().Entries()
	if len(entries) != 1 || entries[0].Path != open || entries[0].CallID != "call-7" {
		t.Fatalf("journal lists %+v, want the one change of open.txt by call-7", entries)
	}
	if before, err := b.ws.Journal().Content(entries[0].Before); string(before) != "one\n" || err != nil {
		t.Errorf("content before = %q, %v; want %q", before, err, "one\n")
	}
}
