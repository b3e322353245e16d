package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Big files: an Edit of one line in a 47 MB file and a Write of 5 MB whose
// every line changed, each in a fresh server process so that its peak
// resident memory (VmHWM) is the call's own. Both servers get the same
// files; each first Reads the file (a few lines: both refuse to Read 47 MB
// whole, and both want a Read before a change).

const (
	editLines  = 580_000 // about 47 MB
	writeLines = 60_000  // about 5 MB
)

// bigText is n lines of about 81 bytes, each with its number.
func bigText(n int, tag string) string {
	var b strings.Builder
	b.Grow(n * 82)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s line %08d: the quick brown fox jumps over the lazy dog, again and again\n", tag, i)
	}
	return b.String()
}

// bigResult is one peer's figures.
type bigResult struct {
	editTime, writeTime, sparseTime time.Duration
	editPeak, writePeak, sparsePeak int64 // bytes
}

// measureBigFiles runs the big-file calls rounds times per peer, runs
// alternating, and prints the medians side by side.
func measureBigFiles(ctx context.Context, peers []peer, tmp string, rounds int) error {
	if rounds == 0 {
		return nil // -big-rounds 0: not measured
	}
	editText, oldWrite, newWrite := bigText(editLines, "x"), bigText(writeLines, "old"), bigText(writeLines, "new")
	sparseText := "first MARK\n" + editText + "last MARK\n"
	results := map[string][]bigResult{}
	for i := range rounds {
		for _, p := range alternate(peers, i) {
			var r bigResult
			var err error
			dir := filepath.Join(tmp, "big-"+p.name)
			r.editTime, r.editPeak, err = bigCall(ctx, p, dir, "edit.txt", editText, "Edit", map[string]any{
				"old_string": "x line 00290000:", "new_string": "x LINE 00290000:",
			}, "x LINE 00290000:")
			if err != nil {
				return fmt.Errorf("%s Edit of %d MB: %w", p.name, len(editText)>>20, err)
			}
			r.writeTime, r.writePeak, err = bigCall(ctx, p, dir, "write.txt", oldWrite, "Write", map[string]any{
				"content": newWrite,
			}, "new line 00059999:")
			if err != nil {
				return fmt.Errorf("%s Write of %d MB: %w", p.name, len(newWrite)>>20, err)
			}
			// replace_all touching only the first and last lines: a diff
			// of everything in between unless the change stays sparse.
			r.sparseTime, r.sparsePeak, err = bigCall(ctx, p, dir, "sparse.txt", sparseText, "Edit", map[string]any{
				"old_string": "MARK", "new_string": "mark", "replace_all": true,
			}, "last mark")
			if err != nil {
				return fmt.Errorf("%s Edit replace_all of %d MB: %w", p.name, len(sparseText)>>20, err)
			}
			results[p.name] = append(results[p.name], r)
		}
	}
	median := func(name string, f func(bigResult) float64) float64 {
		var xs []float64
		for _, r := range results[name] {
			xs = append(xs, f(r))
		}
		return medianOf(xs)
	}
	fmt.Printf("\nBig files, a fresh server per call, median of %d rounds (Edit: one line of a %.0f MB file; Write: %.1f MB, every line changed)\n\n",
		rounds, float64(len(editText))/1e6, float64(len(newWrite))/1e6)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measure\ttoolhost\tclaude\ttoolhost/claude\ttarget\t")
	et, ec := median("toolhost", func(r bigResult) float64 { return r.editTime.Seconds() }), median("claude", func(r bigResult) float64 { return r.editTime.Seconds() })
	fmt.Fprintf(tw, "Edit time\t%.2f s\t%.2f s\t%.2f\t%s\t\n", et, ec, et/ec, verdict(et/ec <= 1.0/3, "≤ 1/3 of claude's"))
	em, emc := median("toolhost", func(r bigResult) float64 { return float64(r.editPeak) }), median("claude", func(r bigResult) float64 { return float64(r.editPeak) })
	size := float64(len(editText))
	fmt.Fprintf(tw, "Edit peak memory\t%.0f MB (%.1f× file)\t%.0f MB (%.1f× file)\t%.2f\t%s\t\n", em/1e6, em/size, emc/1e6, emc/size, em/emc, verdict(em <= 3*size, "≤ 3× the file"))
	st, sc := median("toolhost", func(r bigResult) float64 { return r.sparseTime.Seconds() }), median("claude", func(r bigResult) float64 { return r.sparseTime.Seconds() })
	fmt.Fprintf(tw, "Edit replace_all, first+last line\t%.2f s\t%.2f s\t%.2f\t%s\t\n", st, sc, st/sc, verdict(st/sc <= 1.0/3, "≤ 1/3 of claude's"))
	sm, smc := median("toolhost", func(r bigResult) float64 { return float64(r.sparsePeak) }), median("claude", func(r bigResult) float64 { return float64(r.sparsePeak) })
	fmt.Fprintf(tw, "  its peak memory\t%.0f MB (%.1f× file)\t%.0f MB (%.1f× file)\t%.2f\t%s\t\n", sm/1e6, sm/size, smc/1e6, smc/size, sm/smc, verdict(sm <= 3*size, "≤ 3× the file"))
	wt, wc := median("toolhost", func(r bigResult) float64 { return r.writeTime.Seconds() }), median("claude", func(r bigResult) float64 { return r.writeTime.Seconds() })
	fmt.Fprintf(tw, "Write time\t%.2f s\t%.2f s\t%.2f\t%s\t\n", wt, wc, wt/wc, verdict(wt <= 0.3, "≤ 0.3 s"))
	wm, wmc := median("toolhost", func(r bigResult) float64 { return float64(r.writePeak) }), median("claude", func(r bigResult) float64 { return float64(r.writePeak) })
	fmt.Fprintf(tw, "Write peak memory\t%.0f MB\t%.0f MB\t%.2f\t\t\n", wm/1e6, wmc/1e6, wm/wmc)
	if err := tw.Flush(); err != nil {
		return err
	}
	if baseBin != "" {
		bt := func(f func(bigResult) float64) float64 { return median("base", f) / median("toolhost", f) }
		fmt.Printf("\nbase/toolhost (below 1 is a regression): Edit %.2f, Edit replace_all %.2f, Write %.2f; peak memory: Edit %.2f, Write %.2f\n",
			bt(func(r bigResult) float64 { return r.editTime.Seconds() }), bt(func(r bigResult) float64 { return r.sparseTime.Seconds() }),
			bt(func(r bigResult) float64 { return r.writeTime.Seconds() }),
			bt(func(r bigResult) float64 { return float64(r.editPeak) }), bt(func(r bigResult) float64 { return float64(r.writePeak) }))
	}
	fmt.Println("\nThe Write through an editor (workspace/applyEdit) is measured in process: go test -bench WriteEveryLineChanged ./tools/fs")
	return nil
}

func verdict(ok bool, target string) string {
	if ok {
		return target + " meets"
	}
	return target + " MISSES"
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// bigCall writes content to dir/name, starts the peer, Reads the file's
// first lines, then times tool with args (plus file_path) and returns the
// time and the server's peak resident memory.
func bigCall(ctx context.Context, p peer, dir, name, content, tool string, args map[string]any, want string) (time.Duration, int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(p.cmd[0], p.cmd[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), p.env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	// Claude Code's Edit result carries the whole original file: the
	// client's line cap must exceed it.
	cs, err := client.Connect(cctx, &sdk.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: 1 << 30},
		&sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	if _, err := callTool(cctx, cs, "Read", map[string]any{"file_path": file, "limit": 5}, "line 00000001"); err != nil {
		return 0, 0, fmt.Errorf("the first Read: %w", err)
	}
	args["file_path"] = file
	d, err := callTool(cctx, cs, tool, args, "")
	if err != nil {
		return 0, 0, err
	}
	got, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, err
	}
	if !strings.Contains(string(got), want) {
		return 0, 0, fmt.Errorf("the file does not hold %q after the call", want)
	}
	return d, peakMemory(cmd.Process.Pid), nil
}

// peakMemory is a process's peak resident set (VmHWM), in bytes.
func peakMemory(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
