package lifetime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestEndWithoutCommandsMakesNoCgroup: a server that started no command
// (toolhost --version, a session that made no call) ends without making
// its cgroup folder; one that asked for the cgroups makes it (the control
// that shows the watch sees the folder when it is made).
func TestEndWithoutCommandsMakesNoCgroup(t *testing.T) {
	own, err := ownCgroup()
	if err != nil {
		t.Skipf("no cgroup v2 group here: %v", err)
	}
	if unix.Access(own+"/cgroup.procs", unix.W_OK) != nil {
		t.Skipf("%s is not delegated to this user", own)
	}
	tests := []struct {
		mode     string
		wantMade bool
	}{
		{"idle", false},
		{"asker", true},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
			if err != nil {
				t.Skipf("no inotify: %v", err)
			}
			defer unix.Close(in)
			if _, err := unix.InotifyAddWatch(in, own, unix.IN_CREATE); err != nil {
				t.Skipf("cannot watch %s: %v", own, err)
			}
			dir := t.TempDir()
			child := exec.Command(os.Args[0], childArg, tt.mode, dir)
			child.Env = append(os.Environ(), CgroupOffVar+"=on")
			if out, err := child.CombinedOutput(); err != nil {
				t.Fatalf("the %s server failed: %v\n%s", tt.mode, err, out)
			}
			token, err := os.ReadFile(filepath.Join(dir, tt.mode+".token"))
			if err != nil {
				t.Fatal(err)
			}
			// The child has exited: every event of its mkdir is queued.
			// Other servers on the machine may make folders meanwhile:
			// only the child's own counts.
			made := false
			buf := make([]byte, 64*1024)
			for {
				n, err := unix.Read(in, buf)
				if n <= 0 || err != nil {
					break
				}
				for off := 0; off+unix.SizeofInotifyEvent <= n; {
					ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
					name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
					if name == "toolhost-"+string(token) {
						made = true
					}
					off += unix.SizeofInotifyEvent + int(ev.Len)
				}
			}
			if made != tt.wantMade {
				t.Errorf("the %s server made a cgroup folder: %v, want %v", tt.mode, made, tt.wantMade)
			}
		})
	}
}
