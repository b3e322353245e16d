package sys

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

func run(t *testing.T, tool tools.Tool, input string) *tools.Result {
	t.Helper()
	res, err := tool.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	return res
}

func TestGetEnv(t *testing.T) {
	env := []string{"HOME=/home/u", "GOPATH=/go", "GITHUB_TOKEN=ghp_secret", "DB_PASSWORD=pw", "ALLOWED_KEY=ok", "PATH=/bin"}
	st := settings.Defaults()
	st.Bash.AllowedSecrets = []string{"ALLOWED_KEY"}
	st.Env = map[string]string{"FROM_SETTINGS": "yes", "SETTINGS_TOKEN": "explicit"}
	g := NewGetEnv(func() *settings.Settings { return st })
	g.environ = func() []string { return env }
	cases := []struct {
		name, input string
		wantError   bool
		want        string
		notWant     string
	}{
		{"plain", `{"name":"GOPATH"}`, false, "GOPATH=/go", ""},
		{"secret hidden", `{"name":"GITHUB_TOKEN"}`, true, "is set but hidden", "ghp_secret"},
		{"password hidden", `{"name":"DB_PASSWORD"}`, true, "bash.allowedSecrets", "=pw"},
		{"allowed secret", `{"name":"ALLOWED_KEY"}`, false, "ALLOWED_KEY=ok", ""},
		{"from the env setting", `{"name":"FROM_SETTINGS"}`, false, "FROM_SETTINGS=yes", ""},
		{"set explicitly in settings is not masked", `{"name":"SETTINGS_TOKEN"}`, false, "SETTINGS_TOKEN=explicit", ""},
		{"not set, with similar names", `{"name":"gopath"}`, false, "gopath is not set. Set variables with similar names: GOPATH.", ""},
		{"similar names never include hidden ones", `{"name":"GITHUB"}`, false, "GITHUB is not set.", "GITHUB_TOKEN"},
		{"empty name", `{"name":" "}`, true, "give the variable's name", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, g, tc.input)
			text := res.Text()
			if res.IsError != tc.wantError || !strings.Contains(text, tc.want) || (tc.notWant != "" && strings.Contains(text, tc.notWant)) {
				t.Errorf("IsError=%v text=%q; want IsError=%v, containing %q, not %q", res.IsError, text, tc.wantError, tc.want, tc.notWant)
			}
		})
	}
	// With masking off, the secret is shown.
	off := false
	st.Bash.MaskSecrets = &off
	if res := run(t, g, `{"name":"GITHUB_TOKEN"}`); res.IsError || res.Text() != "GITHUB_TOKEN=ghp_secret" {
		t.Errorf("bash.maskSecrets=false: %q", res.Text())
	}
}

func TestMaskArgs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"server --token=abc --port 80", "server --token=*** --port 80"},
		{"cli --password hunter2 run", "cli --password *** run"},
		{"cli --api-key k1 -v", "cli --api-key *** -v"},
		{"env GITHUB_TOKEN=x AWS_SECRET=y HOME=/h cmd", "env GITHUB_TOKEN=*** AWS_SECRET=*** HOME=/h cmd"},
		{"node --max-old-space-size=4096 app.js", "node --max-old-space-size=4096 app.js"},
		{"cli --token --verbose", "cli --token --verbose"},
		{"git log --format=%H", "git log --format=%H"},
	}
	for _, tc := range cases {
		args := strings.Fields(tc.in)
		maskArgs(args)
		if got := strings.Join(args, " "); got != tc.want {
			t.Errorf("maskArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestListProcessesShowsAChildWithSecretsMasked(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	marker := fmt.Sprintf("listprocesses-marker-%d", time.Now().UnixNano())
	// The child says "ready" once it runs: right after exec, before it has
	// run at all, the kernel counts no resident memory for it yet.
	cmd := exec.Command("bash", "-c", "echo ready; read -r _; :", marker, "--token=s3cr3t", "--password", "hunter2")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child did not start: %q, %v", line, err)
	}

	res := run(t, NewListProcesses(), `{"filter":"`+strings.ToUpper(marker)+`"}`)
	text := res.Text()
	if res.IsError || !strings.Contains(text, strconv.Itoa(cmd.Process.Pid)) || !strings.Contains(text, marker) {
		t.Fatalf("the child (pid %d) is not listed:\n%s", cmd.Process.Pid, text)
	}
	if strings.Contains(text, "s3cr3t") || strings.Contains(text, "hunter2") || !strings.Contains(text, "--token=*** --password ***") {
		t.Errorf("secrets are not masked:\n%s", text)
	}
	procs := res.Structured.(map[string]any)["processes"].([]Process)
	if len(procs) != 1 || procs[0].PID != cmd.Process.Pid || procs[0].MemoryKB <= 0 || procs[0].Started == "" {
		t.Errorf("structured = %+v", procs)
	}
	if res := run(t, NewListProcesses(), `{"filter":"no-such-process-`+marker+`x"}`); res.IsError || !strings.Contains(res.Text(), "No process of yours") {
		t.Errorf("no match: %q", res.Text())
	}
}

// fakeProc writes a /proc with one process per uid given.
func fakeProc(t *testing.T, uids map[int]int) string {
	t.Helper()
	dir := t.TempDir()
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "stat"), "cpu  1 2 3\nbtime 1700000000\n")
	for pid, uid := range uids {
		p := filepath.Join(dir, strconv.Itoa(pid))
		write(filepath.Join(p, "status"), fmt.Sprintf("Name:\tx\nUid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid))
		// A name with a space and a parenthesis, as proc(5) allows.
		write(filepath.Join(p, "stat"), fmt.Sprintf("%d (my (prog)) S 1 1 1 0 -1 0 0 0 0 0 500 500 0 0 20 0 1 0 1000 100000 250 0", pid))
		write(filepath.Join(p, "cmdline"), "")
	}
	return dir
}

func TestListProcessesOnlyTheUsers(t *testing.T) {
	l := &ListProcesses{proc: fakeProc(t, map[int]int{10: 1000, 11: 0, 12: 1000}), uid: 1000,
		now: func() time.Time { return time.Unix(1700000000+110, 0) }}
	res := run(t, l, `{}`)
	procs := res.Structured.(map[string]any)["processes"].([]Process)
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	if !slices.Equal(pids, []int{10, 12}) {
		t.Fatalf("pids = %v, want the user's 10 and 12:\n%s", pids, res.Text())
	}
	// Started 10 s after boot, 100 s ago, with 10 s of CPU: 10%.
	if p := procs[0]; p.Command != "[my (prog)]" || p.CPUPercent != 10 || p.MemoryKB != 250*int64(os.Getpagesize())/1024 {
		t.Errorf("process = %+v", p)
	}
	l.proc = t.TempDir()
	if res := run(t, l, `{}`); !res.IsError || !strings.Contains(res.Text(), "Use Bash with `ps`") {
		t.Errorf("without /proc: %q", res.Text())
	}
}
