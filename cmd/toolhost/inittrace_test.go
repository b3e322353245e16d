package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Budgets of what the program's package initialisation may allocate, in
// bytes, which every start pays before main (GODEBUG=inittrace=1). Bytes,
// not time: they do not depend on the machine or its load. The test binary,
// run with an environment of one variable, allocates about 87 KB before
// main, about 9 KB of it in this module's own packages (the tool families'
// schema variables, 1.5 KB at most in one); docs/mcp.md (the start
// section) and the commits tell what was moved to first use to get there. A
// tool schema generated, a table built or a pattern compiled at package
// level instead of on first use shows here.
// Raise a budget only for work the first reply needs.
const (
	initBudgetTotal     = 100 << 10
	initBudgetOwn       = 14 << 10
	initBudgetOwnPerPkg = 4 << 10
)

// unlinked are packages whose initialisation the program no longer pays
// for, and that must not come back through a new import: x/text's language
// tables and message catalog (third_party/jsonschema prints with fmt, and
// third_party/xnet's charset keeps its own index of labels).
var unlinked = []string{
	"golang.org/x/text/message",
	"golang.org/x/text/internal/language/compact",
	"golang.org/x/text/encoding/htmlindex",
}

// modulePrefix names this module's packages in the trace.
const modulePrefix = "github.com/toolhost/toolhost/"

// TestPackageInitStaysSmall runs this test binary, which links what the
// program links, with the init trace on and checks the budgets.
func TestPackageInitStaysSmall(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	// Only the trace's variable: the first lookup of a variable, which a
	// package's init may make, copies the whole environment, and the
	// budget must not depend on the machine's.
	cmd.Env = []string{"GODEBUG=inittrace=1"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the test binary: %v\n%s", err, stderr.String())
	}
	total, own, perPkg := 0, 0, map[string]int{}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unreadable trace line %q", sc.Text())
		}
		total += b
		if slices.Contains(unlinked, f[1]) {
			t.Errorf("%s is linked again and initialised at every start; find the import that brought it (go mod why -m, go list -deps) and keep it out", f[1])
		}
		if strings.HasPrefix(f[1], modulePrefix) {
			own += b
			perPkg[f[1]] += b
		}
	}
	if total == 0 {
		t.Fatalf("no init trace in the output:\n%s", stderr.String())
	}
	if total > initBudgetTotal {
		t.Errorf("package initialisation allocates %d KB, over its budget of %d KB: move the new work to its first use (sync.OnceValue)", total>>10, initBudgetTotal>>10)
	}
	if own > initBudgetOwn {
		t.Errorf("this module's packages allocate %d KB at initialisation, over their budget of %d KB: move the new work to its first use (sync.OnceValue)", own>>10, initBudgetOwn>>10)
	}
	for pkg, b := range perPkg {
		if b > initBudgetOwnPerPkg {
			t.Errorf("%s allocates %d KB at initialisation, over the budget of %d KB per package: move the work to its first use (sync.OnceValue)", pkg, b>>10, initBudgetOwnPerPkg>>10)
		}
	}
}
