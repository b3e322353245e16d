// Command mcpbench compares `toolhost mcp` with `claude mcp serve` as MCP
// servers: the time from starting the process to its initialize reply
// (read by the minimal client, raw.go: the start the targets are about)
// and to a completed MCP handshake and tool list (the SDK client, whose
// own decoding and notifications/initialized are in those figures), and
// the latency of Read (50 lines of a 5,000-line file) and
// Bash (`echo hi`) calls. Both servers are driven by the same Go SDK client
// over the same files, and their runs alternate so that drift of the
// machine hits both alike; the calls are then repeated with a minimal
// client (raw.go) that shows each server's own share of a round trip. It
// prints p50/p90 per server and the ratio claude/toolhost.
//
// Usage (from the repository root, after `npm install` in test/mcp):
//
//	go run ./bench/mcp [-starts 10] [-calls 200] [-toolhost BIN] [-claude BIN] [-base BIN]
//
// With -base, a previous build of toolhost runs alongside, interleaved, and
// each row shows base/toolhost, so that a regression shows as a ratio
// below 1 (make bench BASE=<commit>). Each row also shows its floor, run
// interleaved from this program: a hello-world Go binary's start, a bare
// `bash -c 'echo hi'`, and rg run directly over the same folder.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigRounds is how many times the big-file calls are measured; onlyBig
// skips the other measures.
var (
	bigRounds = 3
	onlyBig   bool
	baseBin   string
)

// userConfig writes the user's toolhost settings the benchmark runs with
// and returns their config folder: Edit and Write allowed (the permission
// mode acceptEdits) and the benchmark's Bash command, as Claude Code's MCP
// server allows them without asking. They are the user's settings, not
// the workspace's: a folder nobody trusted widens no permission.
func userConfig(home string) (string, error) {
	conf := filepath.Join(home, "config")
	if err := os.MkdirAll(filepath.Join(conf, "toolhost"), 0o755); err != nil {
		return "", err
	}
	settings := `{"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(echo hi)"]}}`
	return conf, os.WriteFile(filepath.Join(conf, "toolhost", "settings.json"), []byte(settings), 0o644)
}

// peer is one server under test.
type peer struct {
	name string
	cmd  []string
	env  []string
	dir  string
}

// protocolVersion is what both servers speak; fixing it skips the
// discovery round trip of newer clients, which neither server implements.
const protocolVersion = "2025-11-25"

func main() {
	starts := flag.Int("starts", 10, "process starts measured per server")
	calls := flag.Int("calls", 200, "calls of each tool measured per server")
	toolhostBin := flag.String("toolhost", "", "toolhost binary (default: build ./cmd/toolhost)")
	claudeBin := flag.String("claude", "test/mcp/node_modules/.bin/claude", "claude binary")
	flag.IntVar(&bigRounds, "big-rounds", 3, "rounds of the big-file calls per server")
	flag.BoolVar(&onlyBig, "only-big", false, "measure only the big-file calls")
	flag.StringVar(&baseBin, "base", "", "a previous toolhost binary measured alongside (ratios base/toolhost)")
	flag.Parse()
	if err := run(*starts, *calls, *toolhostBin, *claudeBin); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run(starts, calls int, toolhostBin, claudeBin string) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if toolhostBin == "" {
		toolhostBin = filepath.Join(tmp, "toolhost")
		build := exec.Command("go", "build", "-o", toolhostBin, "./cmd/toolhost")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building toolhost: %w", err)
		}
	}
	// Each binary timed is copied next to the hello-world built below, so
	// that all of them are fresh files the page cache holds as they were
	// written. A binary whose pages came back into the cache one fault at
	// a time starts slower here: the same toolhost took 4.6 ms to print
	// its version that way against 3.6 ms read whole (200 runs each), a
	// gap larger than any change the start rows are meant to show.
	if toolhostBin, err = freshCopy(tmp, "toolhost", toolhostBin); err != nil {
		return err
	}
	if baseBin != "" {
		if baseBin, err = freshCopy(tmp, "base", baseBin); err != nil {
			return err
		}
	}
	claudePath, err := filepath.Abs(claudeBin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(claudePath); err != nil {
		return fmt.Errorf("claude not found (%v): run `npm install` in test/mcp", err)
	}

	work, file, err := makeWorkspace(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	conf, err := userConfig(home)
	if err != nil {
		return err
	}
	// Claude Code serves its tools without a login; these keep it from
	// reaching for the network and from touching the user's own config.
	claudeEnv := []string{
		"HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	}
	peers := []peer{
		{name: "toolhost", cmd: []string{toolhostBin, "mcp"}, dir: work, env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + conf}},
		{name: "claude", cmd: []string{claudePath, "mcp", "serve"}, dir: work, env: claudeEnv},
	}
	if baseBin != "" {
		peers = append(peers, peer{name: "base", cmd: []string{baseBin, "mcp"}, dir: work, env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + conf}})
	}
	small, err := makeSmallFolder(work)
	if err != nil {
		return err
	}
	hello, err := buildHello(tmp)
	if err != nil {
		return err
	}

	if onlyBig {
		return measureBigFiles(ctx, peers, tmp, bigRounds)
	}
	startTimes := map[string][]time.Duration{}
	listedTimes := map[string][]time.Duration{}
	replyTimes := map[string][]time.Duration{}
	// The binary's own floor: toolhost --version does nothing but start
	// (the runtime, the package initialisation) and exit.
	var versionTimes []time.Duration
	for i := range starts {
		startTimes[floor] = append(startTimes[floor], timeRun(exec.Command(hello)))
		versionTimes = append(versionTimes, timeRun(exec.Command(toolhostBin, "--version")))
		for _, p := range alternate(peers, i) {
			initialized, listed, err := measureStart(ctx, p)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			startTimes[p.name] = append(startTimes[p.name], initialized)
			listedTimes[p.name] = append(listedTimes[p.name], listed)
			reply, err := measureReply(ctx, p)
			if err != nil {
				return fmt.Errorf("%s (minimal client): %w", p.name, err)
			}
			replyTimes[p.name] = append(replyTimes[p.name], reply)
		}
	}
	replyTimes[floor] = startTimes[floor]

	sessions := map[string]*sdk.ClientSession{}
	for _, p := range peers {
		cs, err := connect(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		defer cs.Close()
		sessions[p.name] = cs
	}
	readArgs := map[string]any{"file_path": file, "offset": 2000, "limit": 50}
	bashArgs := map[string]any{"command": "echo hi"}
	grepArgs := map[string]any{"pattern": "needle", "path": small, "output_mode": "files_with_matches"}
	globArgs := map[string]any{"pattern": "**/*.go", "path": small}
	// One unmeasured round of each call warms caches on both sides and
	// checks that the calls succeed. A tool a server does not have (Claude
	// Code's server has no Grep or Glob) is left out of its column.
	lacks := map[string]bool{}
	for _, p := range peers {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{{"Read", readArgs, "line 2000"}, {"Bash", bashArgs, "hi"}, {"Grep", grepArgs, "f7.txt"}, {"Glob", globArgs, "f7.go"}} {
			if _, err := callTool(ctx, sessions[p.name], c.tool, c.args, c.want); err != nil {
				if p.name == "claude" && strings.Contains(err.Error(), "not found") {
					lacks[p.name+" "+c.tool] = true
					continue
				}
				return fmt.Errorf("%s %s: %w", p.name, c.tool, err)
			}
		}
	}
	pingTimes := map[string][]time.Duration{}
	readTimes := map[string][]time.Duration{}
	bashTimes := map[string][]time.Duration{}
	grepTimes := map[string][]time.Duration{}
	globTimes := map[string][]time.Duration{}
	for i := range calls {
		bashTimes[floor] = append(bashTimes[floor], timeRun(exec.Command("bash", "-c", "echo hi")))
		grepTimes[floor] = append(grepTimes[floor], timeRun(exec.Command("rg", "--files-with-matches", "needle", small)))
		globTimes[floor] = append(globTimes[floor], timeRun(exec.Command("rg", "--files", "--glob", "**/*.go", small)))
		for _, p := range alternate(peers, i) {
			start := time.Now()
			if err := sessions[p.name].Ping(ctx, nil); err != nil {
				return fmt.Errorf("%s ping: %w", p.name, err)
			}
			pingTimes[p.name] = append(pingTimes[p.name], time.Since(start))
			d, err := callTool(ctx, sessions[p.name], "Read", readArgs, "line 2049")
			if err != nil {
				return fmt.Errorf("%s Read: %w", p.name, err)
			}
			readTimes[p.name] = append(readTimes[p.name], d)
			d, err = callTool(ctx, sessions[p.name], "Bash", bashArgs, "hi")
			if err != nil {
				return fmt.Errorf("%s Bash: %w", p.name, err)
			}
			bashTimes[p.name] = append(bashTimes[p.name], d)
			for _, c := range []struct {
				tool  string
				args  map[string]any
				want  string
				times map[string][]time.Duration
			}{{"Grep", grepArgs, "f7.txt", grepTimes}, {"Glob", globArgs, "f7.go", globTimes}} {
				if lacks[p.name+" "+c.tool] {
					continue
				}
				d, err = callTool(ctx, sessions[p.name], c.tool, c.args, c.want)
				if err != nil {
					return fmt.Errorf("%s %s: %w", p.name, c.tool, err)
				}
				c.times[p.name] = append(c.times[p.name], d)
			}
		}
	}

	rawPing, rawRead, rawBash, err := measureRaw(ctx, peers, calls, readArgs, bashArgs)
	if err != nil {
		return err
	}

	fmt.Printf("MCP servers side by side: %d starts, %d calls of each tool per server, runs alternating\n", starts, calls)
	fmt.Println("floor: what the row costs without a server, run interleaved (start: a hello-world Go binary to its exit; Bash: bash -c 'echo hi' from Go; Grep, Glob: rg over the same folder)")
	if baseBin != "" {
		fmt.Printf("base: %s; base/toolhost below 1 is a regression\n", baseBin)
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "measure\ttoolhost p50\tp90\tclaude p50\tclaude/toolhost\ttarget\t"
	if baseBin != "" {
		head += "base p50\tbase/toolhost\t"
	}
	fmt.Fprintln(tw, head+"floor p50\ttoolhost/floor\ttarget\t")
	for _, row := range []struct {
		name  string
		times map[string][]time.Duration
		// target is the ratio claude/toolhost aims at, floorTarget the
		// ratio toolhost/floor; 0 for none.
		target, floorTarget float64
	}{
		{"start → initialize reply", replyTimes, 40, 2},
		{"start → initialized (SDK client)", startTimes, 0, 0},
		{"start → tools listed", listedTimes, 0, 0},
		{"ping (protocol floor)", pingTimes, 0, 0},
		{"Read 50 of 5,000 lines", readTimes, 20, 0},
		{"Bash echo hi", bashTimes, 3, 1.5},
		{"Grep, 50 files", grepTimes, 0, 1.3},
		{"Glob, 50 files", globTimes, 0, 1.3},
		{"minimal client: ping", rawPing, 0, 0},
		{"minimal client: Read", rawRead, 0, 0},
		{"minimal client: Bash", rawBash, 0, 0},
	} {
		if len(row.times["toolhost"]) == 0 {
			continue // not measured in this run (-starts 0, -calls 0)
		}
		t50, t90 := percentiles(row.times["toolhost"])
		c50, _ := percentiles(row.times["claude"])
		ratio := float64(c50) / float64(t50)
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%.1f×\t%s\t", row.name, ms(t50), ms(t90), ms(c50), ratio, meets(ratio >= row.target, row.target, "≥ %g×"))
		if c50 == 0 {
			line = fmt.Sprintf("%s\t%s\t%s\t(no such tool)\t\t\t", row.name, ms(t50), ms(t90))
		}
		if baseBin != "" {
			b50, _ := percentiles(row.times["base"])
			line += fmt.Sprintf("%s\t%.2f\t", ms(b50), float64(b50)/float64(t50))
		}
		if f50, _ := percentiles(row.times[floor]); f50 > 0 {
			fr := float64(t50) / float64(f50)
			line += fmt.Sprintf("%s\t%.2f\t%s\t", ms(f50), fr, meets(fr <= row.floorTarget, row.floorTarget, "≤ %g×"))
		} else {
			line += "\t\t\t"
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v50, _ := percentiles(versionTimes); v50 > 0 {
		f50, _ := percentiles(startTimes[floor])
		fmt.Printf("\nthe binary's own start floor: toolhost --version to its exit p50 %s, %.2f× the hello-world (the runtime's start and the package initialisation, before any server work)\n", ms(v50), float64(v50)/float64(f50))
	}
	// What a ratio can reach: a call costs at least one protocol round
	// trip, so no server can be faster than the other's call time divided
	// by its own ping.
	c50, _ := percentiles(rawRead["claude"])
	p50, _ := percentiles(rawPing["toolhost"])
	if p50 > 0 {
		fmt.Printf("\nWith the minimal client a Read ratio above %.1f× would need toolhost to answer a Read faster than it answers a ping.\n",
			float64(c50)/float64(p50))
	}
	return measureBigFiles(ctx, peers, tmp, bigRounds)
}

// alternate returns the peers in turn order for round i: each goes first
// every other round.
func alternate(peers []peer, i int) []peer {
	out := slices.Clone(peers)
	if i%2 == 1 {
		slices.Reverse(out)
	}
	return out
}

// makeWorkspace writes the 5,000-line file both servers read.
func makeWorkspace(tmp string) (work, file string, err error) {
	work = filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", "", err
	}
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	file = filepath.Join(work, "big.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return "", "", err
	}
	return work, file, nil
}

// connect starts the peer and completes the MCP handshake.
func connect(ctx context.Context, p peer) (*sdk.ClientSession, error) {
	cmd := exec.Command(p.cmd[0], p.cmd[1:]...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env...)
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 100 * time.Millisecond},
		&sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
}

// measureStart is the time from starting the process to a completed
// handshake, and to the first tools/list answered (what a client waits for
// before it can use the server); the process is stopped afterwards,
// outside the measure.
func measureStart(ctx context.Context, p peer) (initialized, listed time.Duration, err error) {
	start := time.Now()
	cs, err := connect(ctx, p)
	initialized = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return 0, 0, err
	}
	return initialized, time.Since(start), nil
}

// callTool calls a tool, checks the result holds want, and returns the
// round-trip time.
func callTool(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, want string) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return 0, errors.New("error result: " + text.String())
	}
	if !strings.Contains(text.String(), want) {
		b, _ := json.Marshal(res.Content)
		return 0, fmt.Errorf("result lacks %q: %.300s", want, b)
	}
	return d, nil
}

func percentiles(ds []time.Duration) (p50, p90 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0, 0
	}
	return s[len(s)*50/100], s[min(len(s)-1, len(s)*90/100)]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// floor names the times of a row's floor in its map.
const floor = "floor"

// meets says whether a target (format, e.g. "≥ %g×") is met; "" without
// one.
func meets(ok bool, target float64, format string) string {
	if target == 0 {
		return ""
	}
	if ok {
		return fmt.Sprintf(format+" meets", target)
	}
	return fmt.Sprintf(format+" MISSES", target)
}

// timeRun runs cmd to its end, its output discarded, and returns the
// time it took.
func timeRun(cmd *exec.Cmd) time.Duration {
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpbench: %v: %v\n", cmd.Args, err)
		os.Exit(1)
	}
	return time.Since(start)
}

// freshCopy copies the executable at path to tmp/bin/name and returns
// the copy's path.
func freshCopy(tmp, name, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the %s binary: %w", name, err)
	}
	dir := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		return "", fmt.Errorf("copying the %s binary: %w", name, err)
	}
	return dst, nil
}

// buildHello builds a hello-world Go program, the start floor, and
// returns its path.
func buildHello(tmp string) (string, error) {
	dir := filepath.Join(tmp, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-o", bin, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hello-world: %v: %s", err, out)
	}
	return bin, nil
}

// makeSmallFolder writes the 50-file folder Grep and Glob search: 25 text
// files and 25 Go files, the needle in f7.txt.
func makeSmallFolder(work string) (string, error) {
	dir := filepath.Join(work, "small")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := range 25 {
		text := strings.Repeat("nothing to see here\n", 40)
		if i == 7 {
			text += "a needle\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(text), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte("package small\n"), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
