package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

// fakePowerShellVar makes this test program act as powershell.exe: it
// prints its arguments (the -Command without the folder report that
// follows it) and folder; a command of "exit N" exits with N and "hang"
// runs until it is killed. It then does what the report makes PowerShell
// do: it writes the folder the command ended in to the report's file,
// the folder "Set-Location DIR" names, else its own. No PowerShell runs on
// Linux or under Wine, so the PowerShell tool's execution path runs this
// instead.
const fakePowerShellVar = "TOOLHOST_TEST_FAKE_POWERSHELL"

func fakePowerShellIfAsked() {
	if os.Getenv(fakePowerShellVar) != "1" {
		return
	}
	script := os.Args[len(os.Args)-1]
	command, report, _ := strings.Cut(script, "\n$toolhostOk = $?")
	argv, _ := json.Marshal(append(slices.Clone(os.Args[1:len(os.Args)-1]), command))
	dir, _ := os.Getwd()
	fmt.Printf("argv=%s\ncwd=%s\n", argv, dir)
	switch {
	case strings.HasPrefix(command, "exit "):
		code, _ := strconv.Atoi(strings.TrimPrefix(command, "exit "))
		os.Exit(code)
	case command == "hang":
		// A command that never ends by itself: the tool's timeout or
		// cancel must end it.
		time.Sleep(time.Hour)
	case strings.HasPrefix(command, "Set-Location "):
		dir = filepath.Join(dir, strings.TrimPrefix(command, "Set-Location "))
	}
	if _, quoted, ok := strings.Cut(report, "WriteAllText('"); ok {
		file, _, _ := strings.Cut(quoted, "', (Get-Location)")
		if os.WriteFile(strings.ReplaceAll(file, "''", "'"), []byte(dir), 0o600) != nil {
			os.Exit(97)
		}
	}
	os.Exit(0)
}

// newFakePowerShell is the PowerShell tool running this test program as
// its PowerShell, with the task manager m (nil for none).
func newFakePowerShell(t *testing.T, m *tasks.Manager) (*PowerShell, string) {
	t.Helper()
	t.Setenv(fakePowerShellVar, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := NewPowerShell(workspace.New(dir), settings.Defaults, m, nil)
	p.program = func() (string, error) { return self, nil }
	return p, dir
}

// The command runs as -NoProfile -NonInteractive -Command in the
// workspace root; its exit code and a timeout are reported as Bash's are.
func TestPowerShellRunsTheCommand(t *testing.T) {
	p, dir := newFakePowerShell(t, nil)
	wantArgv := func(cmd string) string {
		b, _ := json.Marshal([]string{"-NoProfile", "-NonInteractive", "-Command", cmd})
		return "argv=" + string(b) + "\n"
	}
	tests := []struct {
		name    string
		input   map[string]any
		want    []string
		isError bool
	}{
		{"arguments and folder", map[string]any{"command": `Get-ChildItem -Name "a b"`},
			[]string{wantArgv(`Get-ChildItem -Name "a b"`), "cwd=" + dir + "\n"}, false},
		{"exit code", map[string]any{"command": "exit 3"}, []string{wantArgv("exit 3"), "[Exit code 3]"}, true},
		{"timeout kills it", map[string]any{"command": "hang", "timeout": 500}, []string{"timed out after 500 ms"}, true},
		{"empty command", map[string]any{"command": "  "}, []string{"command is empty"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := execTool(context.Background(), p, tc.input, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("result %q lacks %q", res.Text(), w)
				}
			}
			if res.IsError != tc.isError {
				t.Errorf("IsError %v, want %v: %s", res.IsError, tc.isError, res.Text())
			}
		})
	}
}

// A cancelled call ends the command and returns the context's error.
func TestPowerShellEndsOnCancel(t *testing.T) {
	p, _ := newFakePowerShell(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	rec := &progressRecorder{}
	done := make(chan error, 1)
	go func() {
		_, err := execTool(ctx, p, map[string]any{"command": "hang"}, rec)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call returned %v, want context.Canceled", err)
	}
}

// run_in_background starts a task whose output is the command's.
func TestPowerShellInTheBackground(t *testing.T) {
	m := tasks.NewManager(tasks.Options{})
	t.Cleanup(func() { m.Close() })
	p, _ := newFakePowerShell(t, m)
	res, err := execTool(context.Background(), p, map[string]any{"command": "Get-Date", "run_in_background": true}, nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, res.Text())
	}
	id := res.Structured.(BashOutput).BackgroundTaskID
	task, ok := m.Get(id)
	if !ok {
		t.Fatalf("no task %q", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if out := task.Output().Render(1 << 20); !strings.Contains(out, `"-Command","Get-Date"`) {
		t.Errorf("task output %q", out)
	}
}

// With no PowerShell found, the call fails and says what to install.
func TestPowerShellMissing(t *testing.T) {
	p, _ := newFakePowerShell(t, nil)
	p.program = func() (string, error) { return "", errNoPowerShell }
	res, err := execTool(context.Background(), p, map[string]any{"command": "Get-Date"}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text(), PowerShellPathVar) {
		t.Fatalf("%v %q", err, res.Text())
	}
}

func TestFindPowerShell(t *testing.T) {
	const (
		pwsh7 = `C:\Program Files\PowerShell\7\pwsh.exe`
		winPS = `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`
	)
	tests := []struct {
		name    string
		env     map[string]string
		path    map[string]string
		files   []string
		want    string
		wantErr string
	}{
		{name: "the variable wins", env: map[string]string{PowerShellPathVar: `D:\ps\pwsh.exe`}, path: map[string]string{"pwsh.exe": `E:\pwsh.exe`}, files: []string{`D:\ps\pwsh.exe`}, want: `D:\ps\pwsh.exe`},
		{name: "the variable names no file", env: map[string]string{PowerShellPathVar: `D:\nope.exe`}, wantErr: PowerShellPathVar + ` is set to D:\nope.exe`},
		{name: "pwsh on PATH", path: map[string]string{"pwsh.exe": `E:\tools\pwsh.exe`, "powershell.exe": winPS}, files: []string{winPS}, want: `E:\tools\pwsh.exe`},
		{name: "PowerShell 7 installed, not on PATH", env: map[string]string{"ProgramFiles": `C:\Program Files`}, files: []string{pwsh7, winPS}, want: pwsh7},
		{name: "Windows PowerShell", env: map[string]string{"ProgramFiles": `C:\Program Files`, "SystemRoot": `C:\Windows`}, files: []string{winPS}, want: winPS},
		{name: "powershell.exe on PATH only", path: map[string]string{"powershell.exe": `F:\ps\powershell.exe`}, want: `F:\ps\powershell.exe`},
		{name: "none", wantErr: "no PowerShell found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findPowerShell(bashLookup{
				getenv: func(k string) string { return tc.env[k] },
				lookPath: func(n string) (string, error) {
					if p, ok := tc.path[n]; ok {
						return p, nil
					}
					return "", errors.New("not found")
				},
				isFile: func(p string) bool {
					for _, f := range tc.files {
						if f == p {
							return true
						}
					}
					return false
				},
			})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The folder a command ends in is where the next one starts, as with
// Bash: not after a failed command, and not outside the workspace.
func TestPowerShellKeepsItsFolder(t *testing.T) {
	p, root := newFakePowerShell(t, nil)
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		command string
		wantCwd string // where the command ran
		wantErr bool
		note    string // in the result
	}{
		{"Get-Date", root, false, ""},
		{"Set-Location sub", root, false, ""},
		{"Get-Date", sub, false, ""},
		{"exit 3", sub, true, ""},
		{"Get-Date", sub, false, ""},
		{"Set-Location ..", sub, false, ""},
		{"Get-Date", root, false, ""},
		{"Set-Location ..", root, false, "outside the workspace"},
		{"Get-Date", root, false, ""},
	}
	for i, st := range steps {
		res, err := execTool(context.Background(), p, map[string]any{"command": st.command}, nil)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.command, err)
		}
		if !strings.Contains(res.Text(), "cwd="+st.wantCwd+"\n") {
			t.Errorf("step %d (%s) ran elsewhere than %s: %s", i, st.command, st.wantCwd, res.Text())
		}
		if res.IsError != st.wantErr {
			t.Errorf("step %d (%s): IsError %v, want %v: %s", i, st.command, res.IsError, st.wantErr, res.Text())
		}
		if st.note != "" && !strings.Contains(res.Text(), st.note) {
			t.Errorf("step %d (%s) lacks %q: %s", i, st.command, st.note, res.Text())
		}
	}
}

// The report follows the command on lines of its own, names its file as a
// verbatim string whatever quotes the path holds, and keeps how the
// command ended.
func TestPowerShellCwdReport(t *testing.T) {
	tests := []struct {
		name, command, file string
		want                []string
	}{
		{"command first, on its own lines", "Get-Date # a comment", `C:\Temp\toolhost-cwd-1`, []string{
			"Get-Date # a comment\n$toolhostOk = $?; $toolhostCode = $LASTEXITCODE\n",
			`[System.IO.File]::WriteAllText('C:\Temp\toolhost-cwd-1', (Get-Location).ProviderPath)`,
			"\nif (-not $toolhostOk) { if ($toolhostCode) { exit $toolhostCode }; exit 1 }",
		}},
		{"quotes doubled", "ls", `C:\Users\o'brien\x’y`, []string{
			`WriteAllText('C:\Users\o''brien\x’’y', `,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := withPowerShellCwdReport(tc.command, tc.file)
			if !strings.HasPrefix(got, tc.command+"\n") {
				t.Errorf("the script does not start with the command on a line of its own: %q", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the script %q lacks %q", got, w)
				}
			}
		})
	}
}
