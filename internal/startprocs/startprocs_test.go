package startprocs

import (
	"runtime"
	"sync"
	"testing"
)

func TestHolds(t *testing.T) {
	unset := func(string) (string, bool) { return "", false }
	set := func(k string) (string, bool) { return "3", k == "GOMAXPROCS" }
	for _, tc := range []struct {
		name   string
		args   []string
		lookup func(string) (string, bool)
		want   bool
	}{
		{"mcp", []string{"toolhost", "mcp"}, unset, true},
		{"mcp with flags", []string{"toolhost", "mcp", "-attach"}, unset, true},
		{"the user's GOMAXPROCS", []string{"toolhost", "mcp"}, set, false},
		{"serve", []string{"toolhost", "serve"}, unset, false},
		{"no command", []string{"toolhost"}, unset, false},
		{"call", []string{"toolhost", "call", "Read", "{}"}, unset, false},
		{"a test binary", []string{"startprocs.test", "-test.v"}, unset, false},
	} {
		if got := holds(tc.args, tc.lookup); got != tc.want {
			t.Errorf("%s: holds(%q) = %v, want %v", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestReleaseGivesTheDefaultBack lowers GOMAXPROCS as init does for
// `toolhost mcp` and checks that Release restores the runtime's default,
// once.
func TestReleaseGivesTheDefaultBack(t *testing.T) {
	if held {
		t.Fatal("init lowered GOMAXPROCS in a test binary")
	}
	before := runtime.GOMAXPROCS(0)
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	if def == 1 {
		runtime.GOMAXPROCS(before)
		t.Skip("the runtime's default here is one processor: nothing to restore")
	}
	held, releaseOnce = true, sync.Once{}
	t.Cleanup(func() { held = false; runtime.GOMAXPROCS(before) })
	runtime.GOMAXPROCS(1)
	Release()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("after Release GOMAXPROCS = %d, want the default %d", got, def)
	}
	runtime.GOMAXPROCS(1)
	Release()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("a second Release changed GOMAXPROCS to %d; it acts once", got)
	}
}
