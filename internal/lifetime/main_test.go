package lifetime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestMain lets this test binary serve the reaper of commands, as toolhost
// does, so that commands run here below one; started with childArg it is
// one of the test commands' processes instead (childMain).
func TestMain(m *testing.M) {
	MainIfAsked()
	if len(os.Args) >= 4 && os.Args[1] == childArg {
		os.Exit(childMain(os.Args[2], os.Args[3]))
	}
	code := m.Run()
	// The cgroups the tests' commands ran in go with them.
	KillAll()
	os.Exit(code)
}

// childArg starts this test binary as a test command's process:
//
//	lifetime.test -lifetime-child MODE DIR
//
// so that the tests of process lifetimes need no shell and run the same on
// Linux and Windows. Every mode writes its pid to DIR/MODE.pid first.
const childArg = "-lifetime-child"

// childMain runs one mode of a test command's process:
//   - sleeper: waits until killed;
//   - parent: starts a sleeper, then waits until killed (a command that
//     runs a child);
//   - orphaner: starts an abandoner and a sleeper of its own, then waits
//     until killed;
//   - abandoner: starts an orphan and exits: the orphan's parent is gone;
//   - orphan: a sleeper whose parent has exited;
//   - leaver: starts a sleeper and exits (`server &`);
//   - server: the server (Init), which starts a parent command with Reaped
//     and waits until killed;
//   - idle: a server that ends (KillAll) having started nothing; it writes
//     its token to DIR/idle.token;
//   - asker: the same, but it asks whether commands run in cgroups first.
func childMain(mode, dir string) int {
	if err := os.WriteFile(filepath.Join(dir, mode+".pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return 2
	}
	start := func(m string) error {
		// Not through this package: the processes a command starts itself.
		return exec.Command(os.Args[0], childArg, m, dir).Start()
	}
	switch mode {
	case "sleeper", "orphan":
	case "parent":
		if start("sleeper") != nil {
			return 2
		}
	case "orphaner":
		if start("abandoner") != nil || start("sleeper") != nil {
			return 2
		}
	case "abandoner":
		if start("orphan") != nil {
			return 2
		}
		return 0
	case "leaver":
		if start("sleeper") != nil {
			return 2
		}
		return 0
	case "idle", "asker":
		Init()
		if os.WriteFile(filepath.Join(dir, mode+".token"), []byte(server), 0o644) != nil {
			return 2
		}
		if mode == "asker" {
			_ = CgroupStatus()
		}
		KillAll()
		return 0
	case "server":
		Init()
		if Start(Reaped(context.Background(), nil, os.Args[0], childArg, "parent", dir)) != nil {
			return 2
		}
	default:
		return 2
	}
	// Until killed, with no test left to kill it: a bound, never a wait
	// any test relies on.
	time.Sleep(time.Hour)
	return 0
}
