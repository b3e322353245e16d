// Command searchbench times toolhost's Grep and Glob against ripgrep and fd
// run directly, and prints the median of repeated runs and the ratio tool /
// direct command. Each tool run goes through the tool's Execute, result text
// included; each direct run starts the program and reads all its output, as
// the tool does.
//
// By default it generates a tree (about 20,000 files) in a temporary
// folder, or in -dir, which must be new or empty: the tree and a `git init`
// would otherwise land among someone's files. A later run with the same
// -dir and -files times the tree generated there again. -tree times an existing tree
// instead, such as a real repository, which is what users search; -grep and
// -glob choose the patterns there.
//
//	go run ./bench/searchbench -files 20000 -runs 21
//	go run ./bench/searchbench -tree ~/src/linux -grep 'struct file' -glob '**/*.c'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/bench/internal/procstat"
	"github.com/toolhost/toolhost/internal/execjail"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/search"
	"github.com/toolhost/toolhost/tools/search/searchtest"
	"github.com/toolhost/toolhost/workspace"
)

// rgFlags are the flags toolhost's Grep passes to ripgrep besides the mode
// and the pattern, so the direct run does the same search.
var rgFlags = []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-messages", "--case-sensitive",
	"--glob", "!.git", "--glob", "!.hg", "--glob", "!.svn", "--glob", "!.bzr", "--glob", "!.jj", "--glob", "!.sl"}

type scenario struct {
	name   string
	tool   tools.Tool
	input  string
	direct []string // program and arguments; "" when there is none
	target float64  // the ratio to stay under
	// jailed, when set, is the folder the direct command is also run
	// jailed to, as Grep runs ripgrep (internal/execjail): the target is
	// then the ratio to that run, which is the tool's own overhead; the
	// ratio to the plain run shows what the jail adds besides.
	jailed string
}

func main() {
	files := flag.Int("files", 20000, "files in the generated tree")
	runs := flag.Int("runs", 21, "timed runs per measurement (after 2 warm-up runs)")
	dir := flag.String("dir", "", "new or empty folder to generate the tree in (default: a temporary folder, removed afterwards)")
	tree := flag.String("tree", "", "time an existing tree (e.g. a repository) instead of generating one; nothing is written to it")
	grepPattern := flag.String("grep", "TODO", "with -tree: the Grep pattern (a regular expression)")
	globPattern := flag.String("glob", "**/*.go", "with -tree: the Glob pattern")
	only := flag.String("only", "", "time only the scenarios whose name matches this regular expression, e.g. 'many lines' or '^Grep content'")
	flag.Parse()
	log.SetFlags(0)
	var onlyRe *regexp.Regexp
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			log.Fatalf("searchbench: -only: %v", err)
		}
		onlyRe = re
	}

	root, cleanup, err := prepareTree(*dir, *tree, *files)
	if err != nil {
		log.Fatalf("searchbench: %v", err)
	}
	defer cleanup()

	rg := search.FindRipgrep()
	if rg == "" {
		log.Fatal("rg is not on PATH; install ripgrep to compare")
	}
	fd, _ := exec.LookPath("fdfind")
	if fd == "" {
		fd, _ = exec.LookPath("fd")
	}
	var scenarios []scenario
	if *tree != "" {
		scenarios = treeScenarios(root, rg, fd, *grepPattern, *globPattern)
	} else {
		scenarios = generatedScenarios(root, rg, fd)
	}
	if onlyRe != nil {
		scenarios = slices.DeleteFunc(scenarios, func(s scenario) bool { return !onlyRe.MatchString(s.name) })
		if len(scenarios) == 0 {
			log.Fatalf("searchbench: no scenario's name matches -only %q; run without -only to see their names", *only)
		}
	}
	if failed := measure(scenarios, *runs); failed {
		os.Exit(1)
	}
}

// prepareTree returns the folder to search and what removes what was made
// for it. With tree it is that existing folder, untouched. Otherwise a tree
// of files files is generated in dir, which must not exist or be empty, or
// in a new temporary folder, and made a git repository so fd (which has no
// --no-require-git) honours its .gitignore files as ripgrep and the tools do.
func prepareTree(dir, tree string, files int) (string, func(), error) {
	nothing := func() {}
	if tree != "" {
		if dir != "" {
			return "", nothing, fmt.Errorf("-dir and -tree exclude each other: -dir generates a tree, -tree times an existing one")
		}
		st, err := os.Stat(tree)
		if err != nil {
			return "", nothing, fmt.Errorf("-tree %s: %w", tree, err)
		}
		if !st.IsDir() {
			return "", nothing, fmt.Errorf("-tree %s is not a folder", tree)
		}
		abs, err := filepath.Abs(tree)
		return abs, nothing, err
	}
	root, cleanup := dir, nothing
	if root == "" {
		tmp, err := os.MkdirTemp("", "searchbench-")
		if err != nil {
			return "", nothing, err
		}
		root, cleanup = tmp, func() { os.RemoveAll(tmp) }
	} else {
		entries, err := os.ReadDir(root)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return "", nothing, fmt.Errorf("-dir %s: %w", root, err)
		case len(entries) > 0:
			if generatedBefore(root, files) {
				fmt.Printf("tree: %d files in %s (generated by an earlier -dir run)\n", files, root)
				return root, nothing, nil
			}
			return "", nothing, fmt.Errorf("-dir %s is not empty: the benchmark writes %d files and runs git init there. Give a new or empty folder (or one an earlier -dir run generated with the same -files), or time that tree as it is with -tree %s", root, files, root)
		}
	}
	start := time.Now()
	written, err := searchtest.Generate(root, files)
	if err != nil {
		cleanup()
		return "", nothing, err
	}
	fmt.Printf("tree: %d files in %s (generated in %s)\n", len(written), root, time.Since(start).Round(time.Millisecond))
	if err := exec.Command("git", "init", "-q", root).Run(); err != nil {
		log.Printf("git init: %v (fd will not honour .gitignore)", err)
	} else if dir != "" {
		// Inside .git, which no search looks into.
		_ = os.WriteFile(filepath.Join(root, generatedMark), []byte(strconv.Itoa(files)), 0o644)
	}
	return root, cleanup, nil
}

// generatedMark is the file, in a tree -dir generated, that holds the
// number of files it was generated with: a later -dir run with the same
// -files times that tree again rather than refusing a folder that is not
// empty.
const generatedMark = ".git/searchbench-files"

// generatedBefore says whether dir holds a tree generated by -dir with
// files files.
func generatedBefore(dir string, files int) bool {
	b, err := os.ReadFile(filepath.Join(dir, generatedMark))
	return err == nil && string(b) == strconv.Itoa(files)
}

// rgCommand is ripgrep with the tool's flags, extra, and root.
func rgCommand(rg, root string, extra ...string) []string {
	return append(append([]string{rg}, rgFlags...), append(extra, "--", root)...)
}

// generatedScenarios are the measurements on the generated tree, whose
// words are known, with the ratios to stay under.
func generatedScenarios(root, rg, fd string) []scenario {
	ws := workspace.New(root)
	grepRg, grepGo, glob := search.NewGrep(ws, rg), search.NewGrep(ws, ""), search.NewGlob(ws)
	rgArgs := func(extra ...string) []string { return rgCommand(rg, root, extra...) }
	// Grep runs ripgrep jailed by Landlock (internal/execjail): the target
	// holds the tool to the same ripgrep run the same way (jailed, below),
	// and the ratio to a plain rg is printed beside it (the jail's own cost:
	// a start of the helper, ≈ 3 ms, and the kernel's check of each open).
	// 1.1 is the target on this tree (issue 21's 20,000-file Grep ratio).
	const grepTarget = 1.1
	scenarios := []scenario{
		{"Grep files_with_matches, literal", grepRg, `{"pattern":"NewServer"}`, rgArgs("--files-with-matches", "--regexp", "NewServer"), grepTarget, root},
		{"Grep count -i", grepRg, `{"pattern":"errorhandler","-i":true,"output_mode":"count"}`, rgArgs("--count", "--ignore-case", "--regexp", "errorhandler"), grepTarget, root},
		{"Grep type go", grepRg, `{"pattern":"deadline","type":"go"}`, rgArgs("--files-with-matches", "--type", "go", "--regexp", "deadline"), grepTarget, root},
	}
	// Each output mode for a rare pattern, a moderate one and one that
	// matches most lines ("e": 663,000 lines, of which content mode shows
	// head_limit's 250).
	for _, p := range []struct{ name, pattern string }{
		{"rare", "Retry int"},
		{"moderate", `func \w+Server\d+`},
		{"many lines", "e"},
	} {
		input := func(mode string) string {
			b, _ := json.Marshal(map[string]string{"pattern": p.pattern, "output_mode": mode})
			return string(b)
		}
		scenarios = append(scenarios,
			scenario{"Grep files_with_matches, " + p.name, grepRg, input(search.ModeFilesWithMatches), rgArgs("--files-with-matches", "--regexp", p.pattern), grepTarget, root},
			scenario{"Grep content -n, " + p.name, grepRg, input(search.ModeContent), rgArgs("--line-number", "--regexp", p.pattern), grepTarget, root},
			scenario{"Grep count, " + p.name, grepRg, input(search.ModeCount), rgArgs("--count", "--regexp", p.pattern), grepTarget, root},
		)
	}
	// Glob is held to issue 21's 1.1 against rg --files, which stats
	// nothing where Glob stats every match for its newest-first order.
	const globTarget = 1.1
	scenarios = append(scenarios, []scenario{
		{"Glob **/*.go vs rg --files -g", glob, `{"pattern":"**/*.go"}`, append(append([]string{rg}, rgFlags...), "--no-ignore", "--files", "--glob", "*.go", root), globTarget, ""},
		{"Glob src/**/*.ts vs rg --files -g", glob, `{"pattern":"src/**/*.ts"}`, append(append([]string{rg}, rgFlags...), "--no-ignore", "--files", "--glob", "**/src/**/*.ts", root), globTarget, ""},
	}...)
	if fd != "" {
		scenarios = append(scenarios, scenario{"Glob **/*.go vs fd", glob, `{"pattern":"**/*.go"}`, []string{fd, "--hidden", "--no-ignore", "--type", "f", "--glob", "*.go", ".", root}, 1.5, ""})
	}
	// The Go implementation, for information: it is what runs without rg.
	return append(scenarios,
		scenario{"Grep (Go, no rg) files_with_matches, literal", grepGo, `{"pattern":"NewServer"}`, rgArgs("--files-with-matches", "--regexp", "NewServer"), 0, ""},
		scenario{"Grep (Go, no rg) count -i", grepGo, `{"pattern":"errorhandler","-i":true,"output_mode":"count"}`, rgArgs("--count", "--ignore-case", "--regexp", "errorhandler"), 0, ""},
	)
}

// treeScenarios are the measurements on an existing tree with the given
// patterns. They are reported without targets: how a tree's size and
// content weigh on the ratio is what they show.
func treeScenarios(root, rg, fd, grepPattern, globPattern string) []scenario {
	ws := workspace.New(root)
	grepRg, grepGo, glob := search.NewGrep(ws, rg), search.NewGrep(ws, ""), search.NewGlob(ws)
	input := func(fields ...any) string {
		m := map[string]any{}
		for i := 0; i+1 < len(fields); i += 2 {
			m[fields[i].(string)] = fields[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	rgArgs := func(extra ...string) []string { return rgCommand(rg, root, extra...) }
	scenarios := []scenario{
		// As on the generated tree, ripgrep also runs jailed as Grep runs
		// it, which tells the jail's share from the tool's.
		{"Grep files_with_matches", grepRg, input("pattern", grepPattern), rgArgs("--files-with-matches", "--regexp", grepPattern), 0, root},
		{"Grep content -n", grepRg, input("pattern", grepPattern, "output_mode", "content"), rgArgs("--line-number", "--regexp", grepPattern), 0, root},
		{"Grep count -i", grepRg, input("pattern", grepPattern, "-i", true, "output_mode", "count"), rgArgs("--count", "--ignore-case", "--regexp", grepPattern), 0, root},
		{"Glob vs rg --files -g", glob, input("pattern", globPattern), append(append([]string{rg}, rgFlags...), "--files", "--glob", globPattern, root), 0, ""},
	}
	if fd != "" {
		scenarios = append(scenarios, scenario{"Glob vs fd", glob, input("pattern", globPattern), []string{fd, "--hidden", "--type", "f", "--glob", globPattern, ".", root}, 0, ""})
	}
	return append(scenarios,
		scenario{"Grep (Go, no rg) files_with_matches", grepGo, input("pattern", grepPattern), rgArgs("--files-with-matches", "--regexp", grepPattern), 0, ""})
}

// measure times each scenario and prints a table; it reports whether a
// ratio went over its target.
func measure(scenarios []scenario, runs int) (failed bool) {
	fmt.Printf("%d timed runs each, medians; ratio = tool / direct command\n\n", runs)
	fmt.Printf("%-46s %10s %10s %7s %8s %7s\n", "scenario", "tool", "direct", "ratio", "target", "cpu")
	jailNote := false
	for i, s := range scenarios {
		fmt.Fprintf(os.Stderr, "searchbench: %d/%d %s\r", i+1, len(scenarios), s.name)
		toolTimes, directTimes, jailedTimes := make([]time.Duration, 0, runs), make([]time.Duration, 0, runs), make([]time.Duration, 0, runs)
		// Processor time over the timed runs, the tool's with its rg's
		// and the direct command's with the reading of its output: it
		// does not grow with the machine's load as wall-clock time does.
		var toolCPU, directCPU time.Duration
		var output int64
		for i := 0; i < runs+2; i++ {
			// Alternate, so drift in the machine's load hits all alike.
			var tt, dt time.Duration
			var n int64
			tc := cpuOf(func() { tt = timeTool(s.tool, s.input) })
			direct := exec.Command(s.direct[0], s.direct[1:]...)
			dc := cpuOf(func() { dt, n = timeCommand(direct, direct.Start, s.direct) })
			output = n
			var jt time.Duration
			if s.jailed != "" {
				jailed := jailedCommand(s.jailed, s.direct)
				jt, _ = timeCommand(jailed.Cmd, jailed.Start, s.direct)
			}
			if i >= 2 {
				toolTimes, directTimes, jailedTimes = append(toolTimes, tt), append(directTimes, dt), append(jailedTimes, jt)
				toolCPU, directCPU = toolCPU+tc, directCPU+dc
			}
		}
		tm, dm := median(toolTimes), median(directTimes)
		ratio := float64(tm) / float64(dm)
		plain := ""
		if s.jailed != "" {
			// The target is held against the jailed run.
			jm := median(jailedTimes)
			plain = fmt.Sprintf("  (%.2f× plain rg, %s)", ratio, ms(dm))
			dm, ratio, jailNote = jm, float64(tm)/float64(jm), true
		}
		target, verdict := "-", ""
		if output == 0 {
			// Only a tree given with -tree can get here: the generated
			// tree's words are known.
			verdict = "  (no matches: choose patterns with -grep and -glob)"
		}
		if s.target > 0 {
			// The words make bench's closing summary (scripts/bench.sh).
			target, verdict = fmt.Sprintf("≤ %.2f", s.target), "  meets"
			if ratio > s.target {
				verdict, failed = "  misses", true
			}
		}
		cpuRatio := "-"
		if directCPU > 0 {
			cpuRatio = fmt.Sprintf("%.2f", float64(toolCPU)/float64(directCPU))
		}
		fmt.Printf("%-46s %10s %10s %7.2f %8s %7s%s%s\n", s.name, ms(tm), ms(dm), ratio, target, cpuRatio, verdict, plain)
	}
	fmt.Println("\ncpu: the processor time of the tool (its ripgrep included) over that of the plain direct command (reading its output included), summed over the timed runs;\n" +
		"it holds on a busy machine, where wall-clock medians also measure the other processes.")
	fmt.Printf("direct commands: ripgrep with the same ignore flags as the tool: %s\n", strings.Join(rgFlags, " "))
	if jailNote {
		fmt.Println("Grep rows with ripgrep: the direct command runs jailed as Grep runs it (Landlock, set up on the thread that starts it);\n" +
			"the ratio in parentheses is to a plain rg, which adds the jail's own cost.")
	}
	return failed
}

// cpuOf is the processor time this process and the children it waited
// for used while f ran; 0 where /proc cannot say.
func cpuOf(f func()) time.Duration {
	before, err := procstat.CPUTimeWithChildren()
	f()
	after, err2 := procstat.CPUTimeWithChildren()
	if err != nil || err2 != nil {
		return 0
	}
	return after - before
}

func timeTool(t tools.Tool, input string) time.Duration {
	start := time.Now()
	res, err := t.Execute(context.Background(), &tools.Call{Input: json.RawMessage(input), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	d := time.Since(start)
	if err != nil || res.IsError {
		log.Fatalf("%s %s: %v %s", t.Name(), input, err, res.Text())
	}
	return d
}

// jailedCommand is argv run jailed read-only to root, as Grep runs ripgrep.
func jailedCommand(root string, argv []string) *execjail.Cmd {
	return execjail.CommandContext(context.Background(), execjail.Readable{Paths: []string{root}}, argv[0], argv[1:]...)
}

// timeCommand runs cmd, started by startCmd (argv, for messages), reads its output and returns
// the time and the number of bytes read. An exit status of 1 without
// output is ripgrep's "no match", not a failure.
func timeCommand(cmd *exec.Cmd, startCmd func() error, argv []string) (time.Duration, int64) {
	start := time.Now()
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := startCmd(); err != nil {
		log.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, out)
	err = cmd.Wait()
	d := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && n == 0) {
		log.Fatalf("%v: %v (%d bytes)", argv, err, n)
	}
	return d, n
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
