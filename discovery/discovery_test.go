package discovery

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd.exe", "/c", "exit")
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestFind(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ws := t.TempDir()
	sub := filepath.Join(ws, "svc")
	if err := os.MkdirAll(filepath.Join(sub, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	write := func(info Info) string {
		t.Helper()
		info.Token = "tok"
		p, err := Write(info)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	outer := write(Info{PID: me, Roots: []string{ws}, URL: "http://outer", StartedAt: time.Unix(1, 0)})
	inner := write(Info{PID: me, Roots: []string{"/elsewhere", sub}, URL: "http://inner", StartedAt: time.Unix(0, 0)})
	dead := write(Info{PID: deadPID(t), Roots: []string{filepath.Join(sub, "pkg")}, URL: "http://dead"})

	tests := []struct {
		folder, want string
	}{
		{filepath.Join(sub, "pkg"), inner},
		{sub, inner},
		{ws, outer},
	}
	for _, tt := range tests {
		got, err := Find(tt.folder)
		if err != nil {
			t.Fatalf("Find(%s): %v", tt.folder, err)
		}
		if got.Path != tt.want {
			t.Errorf("Find(%s) = %s (%s), want %s", tt.folder, got.Path, got.URL, tt.want)
		}
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the file of a session whose process ended is still there")
	}
	if _, err := Find(t.TempDir()); !errors.Is(err, ErrNone) {
		t.Errorf("Find outside every workspace: %v, want ErrNone", err)
	}
}
