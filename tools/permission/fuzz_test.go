package permission

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tools"
)

// fuzzRules are the allow rules FuzzCoveredCommandsRunOnlyWhatTheRulesName
// judges commands under.
var fuzzRules = []string{"Bash(git status:*)", "Bash(cat:*)", "Bash(grep -n:*)", "Bash(echo:*)", "Bash(cd:*)"}

// fuzzStubs are the programs the oracle's PATH holds as stubs that log
// their arguments and run nothing; fuzzReal are real programs that run
// another command found on that PATH.
var (
	fuzzStubs = []string{"git", "cat", "grep", "touch", "rm", "ls", "make", "curl", "cp", "find", "sleep"}
	fuzzReal  = []string{"bash", "sh", "env", "xargs", "timeout", "nohup", "nice"}
)

// FuzzCoveredCommandsRunOnlyWhatTheRulesName feeds commands to the checker
// and, for every command it allows under fuzzRules, runs it with real bash
// as the oracle: in bubblewrap (read-only file system, no network), in an
// empty folder, with a PATH of stub programs that log the arguments they
// were started with. Every program bash started must be one a rule names.
// Run with `make fuzz`; without -fuzz it replays the seeds below and
// testdata/fuzz.
func FuzzCoveredCommandsRunOnlyWhatTheRulesName(f *testing.F) {
	for _, seed := range []string{
		"git status", "git status && git diff", "git status # '\ntouch X\n#'",
		`git status $'\'';touch X;#'`, "cat <<'EOF'\nit's\nEOF\ntouch X", "git log | grep -n x",
		`'git' status; \rm f`, "bash -c 'git status; touch X'", "eval 'cat a'", "cd sub && git status",
		"git status | xargs grep -n x", "timeout 5 git status", "env A=1 git status", "f() { touch X; }; f",
		"git() { touch X; }; git status", "echo $(touch X)", "cat <<EOF\n$(touch X)\nEOF",
		"git status\\\n; touch X", "grep -n x *", "echo x > out; cat out", "command git status",
		"bash <<'EOF'\ntouch X\nEOF", "git st'atus'", "ca\\t a", "nice -n 1 cat a", "PATH=. git status",
	} {
		f.Add(seed)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		f.Skip("bubblewrap (bwrap) is not installed: the oracle cannot run commands safely")
	}
	e := newEnv(f, `{"permissions": {"allow": `+jsonList(fuzzRules)+`}}`)
	c := e.checker(tools.ModeDefault)
	allow := compileRules(fuzzRules)
	bin := stubPath(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 2000 || strings.ContainsRune(cmd, 0) {
			return
		}
		d := c.Decide(nil, tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: cmd}})
		if d.Verdict != tools.VerdictAllow {
			return
		}
		for _, argv := range runLogged(t, bwrap, bin, cmd) {
			if !allow.namesArgv(argv) {
				t.Fatalf("%q was allowed under %v, but bash ran %q", cmd, fuzzRules, argv)
			}
		}
	})
}

// namesArgv reports whether some command rule of l matches argv.
func (l ruleList) namesArgv(argv []string) bool {
	for _, r := range l {
		if r.matchWords(argv) {
			return true
		}
	}
	return false
}

func jsonList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(quoted, ",") + "]"
}

// stubPath makes the oracle's PATH folder: a stub per fuzzStubs name that
// writes its name and arguments, NUL-separated, to a file of its own in
// the folder "log" next to it (each run mounts its own there, so that a
// command cannot redirect the log), and links to the real fuzzReal
// programs.
func stubPath(t testing.TB) string {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, filepath.Join(dir, "log")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mktemp, err := exec.LookPath("mktemp")
	if err != nil {
		t.Skip("mktemp is not installed")
	}
	for _, name := range fuzzStubs {
		script := fmt.Sprintf("#!/bin/bash\nprintf '%%s\\0' %q \"$@\" > \"$(%s -p %q)\"\n", name, mktemp, filepath.Join(dir, "log"))
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range fuzzReal {
		real, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not installed", name)
		}
		if err := os.Symlink(real, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// runLogged runs cmd under bash in bubblewrap, in a fresh folder with PATH
// set to bin, for at most two seconds, and returns the argument lists the
// stubs logged.
func runLogged(t *testing.T, bwrap, bin, cmd string) [][]string {
	work := t.TempDir()
	logs := filepath.Join(work, ".log")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", work, work, "--ro-bind", bin, bin, "--bind", logs, filepath.Join(filepath.Dir(bin), "log"),
		"--unshare-all", "--die-with-parent", "--new-session", "--chdir", work,
		"--clearenv", "--setenv", "PATH", bin, "--setenv", "HOME", work,
		"/bin/bash", "-c", cmd)
	run.Stdin = strings.NewReader("")
	run.WaitDelay = time.Second
	_ = run.Run() // the command's own failure is no matter: what it ran is
	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(logs, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Split(string(bytes.TrimSuffix(data, []byte{0})), "\x00"))
	}
	return out
}

// TestFuzzOracleSeesWhatBashRuns: the fuzz target's oracle logs every
// program bash starts through PATH, also through xargs and bash -c, and
// nothing it does not start.
func TestFuzzOracleSeesWhatBashRuns(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bubblewrap (bwrap) is not installed")
	}
	bin := stubPath(t)
	got := runLogged(t, bwrap, bin, "git status # '\ntouch 'a b'; echo x | xargs rm -f; bash -c 'cat c'; echo touch")
	slices.SortFunc(got, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	want := [][]string{{"cat", "c"}, {"git", "status"}, {"rm", "-f", "x"}, {"touch", "a b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("logged %q, want %q", got, want)
	}
}
