package discovery

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteIsPrivate(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := Write(Info{PID: os.Getpid(), Roots: []string{"/x"}, URL: "http://127.0.0.1:1/mcp", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", dst.Mode().Perm())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil {
		t.Error("a file others can read was accepted")
	}
}

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
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
