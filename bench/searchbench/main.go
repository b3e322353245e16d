// Command searchbench times toolhost's Grep and Glob against ripgrep and fd
// run directly, on a generated tree (about 20,000 files by default), and
// prints the median of repeated runs and the ratio tool / direct command.
// Each tool run goes through the tool's Execute, result text included; each
// direct run starts the program and reads all its output, as the tool does.
//
//	go run ./bench/searchbench -files 20000 -runs 21
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

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
}

func main() {
	files := flag.Int("files", 20000, "files in the generated tree")
	runs := flag.Int("runs", 21, "timed runs per measurement (after 2 warm-up runs)")
	dir := flag.String("dir", "", "folder for the tree (default: a new temporary folder, removed afterwards)")
	flag.Parse()
	log.SetFlags(0)

	root := *dir
	if root == "" {
		tmp, err := os.MkdirTemp("", "searchbench-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	start := time.Now()
	written, err := searchtest.Generate(root, *files)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tree: %d files in %s (generated in %s)\n", len(written), root, time.Since(start).Round(time.Millisecond))
	// A repository, so fd (which has no --no-require-git) honours the
	// .gitignore files as ripgrep and the tools do.
	if err := exec.Command("git", "init", "-q", root).Run(); err != nil {
		log.Printf("git init: %v (fd will not honour .gitignore)", err)
	}

	rg := search.FindRipgrep()
	if rg == "" {
		log.Fatal("rg is not on PATH; install ripgrep to compare")
	}
	fd, _ := exec.LookPath("fdfind")
	if fd == "" {
		fd, _ = exec.LookPath("fd")
	}
	ws := workspace.New(root)
	grepRg, grepGo, glob := search.NewGrep(ws, rg), search.NewGrep(ws, ""), search.NewGlob(ws)
	rgArgs := func(extra ...string) []string {
		return append(append([]string{rg}, rgFlags...), append(extra, "--", root)...)
	}
	scenarios := []scenario{
		{"Grep files_with_matches, literal", grepRg, `{"pattern":"NewServer"}`, rgArgs("--files-with-matches", "--regexp", "NewServer"), 1.15},
		{"Grep files_with_matches, regexp", grepRg, `{"pattern":"func \\w+Server\\d+"}`, rgArgs("--files-with-matches", "--regexp", `func \w+Server\d+`), 1.15},
		{"Grep content -n, rare regexp", grepRg, `{"pattern":"Retry int","output_mode":"content"}`, rgArgs("--line-number", "--regexp", "Retry int"), 1.15},
		{"Grep content -n, 250 of many lines", grepRg, `{"pattern":"func \\w+Server\\d+","output_mode":"content"}`, rgArgs("--line-number", "--regexp", `func \w+Server\d+`), 1.15},
		{"Grep count -i", grepRg, `{"pattern":"errorhandler","-i":true,"output_mode":"count"}`, rgArgs("--count", "--ignore-case", "--regexp", "errorhandler"), 1.15},
		{"Grep type go", grepRg, `{"pattern":"deadline","type":"go"}`, rgArgs("--files-with-matches", "--type", "go", "--regexp", "deadline"), 1.15},
		// Glob includes ignored files, as Claude Code's rg --files --no-ignore does.
		{"Glob **/*.go vs rg --files -g", glob, `{"pattern":"**/*.go"}`, append(append([]string{rg}, rgFlags...), "--no-ignore", "--files", "--glob", "*.go", root), 1.5},
		{"Glob src/**/*.ts vs rg --files -g", glob, `{"pattern":"src/**/*.ts"}`, append(append([]string{rg}, rgFlags...), "--no-ignore", "--files", "--glob", "**/src/**/*.ts", root), 1.5},
	}
	if fd != "" {
		scenarios = append(scenarios, scenario{"Glob **/*.go vs fd", glob, `{"pattern":"**/*.go"}`, []string{fd, "--hidden", "--no-ignore", "--type", "f", "--glob", "*.go", ".", root}, 1.5})
	}
	// The Go implementation, for information: it is what runs without rg.
	scenarios = append(scenarios,
		scenario{"Grep (Go, no rg) files_with_matches, literal", grepGo, `{"pattern":"NewServer"}`, rgArgs("--files-with-matches", "--regexp", "NewServer"), 0},
		scenario{"Grep (Go, no rg) count -i", grepGo, `{"pattern":"errorhandler","-i":true,"output_mode":"count"}`, rgArgs("--count", "--ignore-case", "--regexp", "errorhandler"), 0},
	)

	fmt.Printf("%d timed runs each, medians; ratio = tool / direct command\n\n", *runs)
	fmt.Printf("%-46s %10s %10s %7s %8s\n", "scenario", "tool", "direct", "ratio", "target")
	failed := false
	for _, s := range scenarios {
		toolTimes, directTimes := make([]time.Duration, 0, *runs), make([]time.Duration, 0, *runs)
		for i := 0; i < *runs+2; i++ {
			// Alternate, so drift in the machine's load hits both alike.
			tt := timeTool(s.tool, s.input)
			dt := timeCommand(s.direct)
			if i >= 2 {
				toolTimes, directTimes = append(toolTimes, tt), append(directTimes, dt)
			}
		}
		tm, dm := median(toolTimes), median(directTimes)
		ratio := float64(tm) / float64(dm)
		target, verdict := "-", ""
		if s.target > 0 {
			target = fmt.Sprintf("≤ %.2f", s.target)
			if ratio > s.target {
				verdict, failed = "  over target", true
			}
		}
		fmt.Printf("%-46s %10s %10s %7.2f %8s%s\n", s.name, ms(tm), ms(dm), ratio, target, verdict)
	}
	fmt.Printf("\ndirect commands: %s ... (same ignore flags as the tool)\n", strings.Join(rgArgs()[:3], " "))
	if failed {
		os.Exit(1)
	}
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

func timeCommand(argv []string) time.Duration {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, out)
	err = cmd.Wait()
	d := time.Since(start)
	if err != nil || n == 0 {
		log.Fatalf("%v: %v (%d bytes)", argv, err, n)
	}
	return d
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
