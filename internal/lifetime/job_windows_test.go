package lifetime

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/toolhost/toolhost/internal/testproc"
)

// isProcessInJob is kernel32's IsProcessInJob, which x/sys/windows lacks.
var isProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// inJob reports whether process pid is in job.
func inJob(t *testing.T, pid int, job windows.Handle) bool {
	t.Helper()
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		t.Fatalf("opening process %d: %v", pid, err)
	}
	defer windows.CloseHandle(h)
	var in int32
	if r, _, err := isProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&in))); r == 0 {
		t.Fatalf("IsProcessInJob(%d): %v", pid, err)
	}
	return in != 0
}

// A command of Reaped and the process it starts first are in the call's
// Job Object: the command was put there before it ran.
func TestACommandAndItsChildAreInTheCallsJob(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := Reaped(ctx, nil, os.Args[0], childArg, "parent", dir)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	pids := readPIDs(t, dir, "parent", "sleeper")
	j := jobOf(ScopeOf(cmd))
	if j == nil {
		t.Fatal("the command has no job")
	}
	for _, m := range []string{"parent", "sleeper"} {
		if !inJob(t, pids[m], j.handle) {
			t.Errorf("the %s (pid %d) is not in its call's job", m, pids[m])
		}
	}
}

// A call's job is closed when its command has ended and left nothing
// running: a session of many calls holds no handle per call.
func TestAnEndedCallsJobIsClosed(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Reaped(ctx, nil, os.Args[0], childArg, "abandoner", dir)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	orphan := readPIDs(t, dir, "orphan")["orphan"]
	_ = cmd.Wait()
	s := ScopeOf(cmd)
	if jobOf(s) == nil {
		t.Fatal("the job was closed before its call ended")
	}
	cancel()
	// The orphan still runs: the job stays, for the session to end. (The
	// count may include the console host the orphan shares.)
	if n := s.Kill(); n < 1 {
		t.Errorf("the scope's kill found %d processes in the job, want the orphan", n)
	}
	if !testproc.EventuallyGone(orphan) {
		t.Errorf("the orphan %d outlived its scope", orphan)
	}
	if jobOf(s) != nil {
		t.Errorf("the job of a killed scope is still held")
	}

	dir = t.TempDir()
	ctx, cancel = context.WithCancel(context.Background())
	cmd = Reaped(ctx, nil, os.Args[0], childArg, "sleeper", dir)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	readPIDs(t, dir, "sleeper")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cancel()
	// Its console host may outlive it a moment; the next sweep (each new
	// call's job makes one) closes the job once that has gone.
	testproc.WaitFor(t, "the empty job's closing", func() bool { sweep(); return jobOf(ScopeOf(cmd)) == nil })
}

// A server killed outright (TerminateProcess: no code of it runs) takes
// its calls' processes down: the system closes its jobs' handles.
func TestAKilledServerTakesItsCallsDown(t *testing.T) {
	dir := t.TempDir()
	server := exec.Command(os.Args[0], childArg, "server", dir)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	pids := readPIDs(t, dir, "server", "parent", "sleeper")
	if err := server.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	for _, m := range []string{"parent", "sleeper"} {
		if !testproc.EventuallyGone(pids[m]) {
			t.Errorf("the %s (pid %d) outlived its killed server", m, pids[m])
		}
	}
}
