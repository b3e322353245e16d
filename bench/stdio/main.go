// Command stdio measures toolhost as an editor sees it: a real `toolhost
// serve` process over stdio with LSP framing. It reports the time from
// process start to the initialize reply, and the per-call latency of
// toolhost/callTool for Read (50 lines of a 5,000-line file) and Bash
// `echo hi`, as p50/p90 figures next to the targets; then a Write of a
// large file that changes every line, through an editor that applies the
// server's workspace/applyEdit (bigwrite.go).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	json "github.com/segmentio/encoding/json"
)

func main() {
	bin := flag.String("bin", "bin/toolhost", "the toolhost binary")
	starts := flag.Int("starts", 20, "process starts to time")
	calls := flag.Int("calls", 300, "calls of each tool to time")
	bigMB := flag.Int("bigwrite-mb", 5, "size in MB of the file the big Write through the editor replaces")
	bigRuns := flag.Int("bigwrite-runs", 3, "runs of the big Write through the editor (0 skips it)")
	bigOnly := flag.Bool("bigwrite-only", false, "measure only the big Write through the editor")
	flag.Parse()
	// The servers start in their own folders: a relative path would be
	// looked up there.
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if *bigOnly {
		if err := runBigWrite(*bin, *bigMB, *bigRuns); err != nil {
			fmt.Fprintln(os.Stderr, "bench/stdio:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *starts, *calls, *bigMB, *bigRuns); err != nil {
		fmt.Fprintln(os.Stderr, "bench/stdio:", err)
		os.Exit(1)
	}
}

func run(bin string, starts, calls, bigMB, bigRuns int) error {
	dir, err := os.MkdirTemp("", "toolhost-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "line %d of the benchmark file with some text to read\n", i)
	}
	file := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return err
	}

	var startTimes []time.Duration
	for i := 0; i < starts; i++ {
		t0 := time.Now()
		c, err := startServer(bin, dir)
		if err != nil {
			return err
		}
		startTimes = append(startTimes, time.Since(t0))
		c.close()
	}

	c, err := startServer(bin, dir)
	if err != nil {
		return err
	}
	defer c.close()
	read := map[string]any{"name": "Read", "input": map[string]any{"file_path": file, "offset": 2000, "limit": 50}}
	bash := map[string]any{"name": "Bash", "input": map[string]any{"command": "echo hi"}}
	// Warm up both paths once, then interleave so drift hits both equally.
	for _, p := range []any{read, bash} {
		if _, err := c.call("toolhost/callTool", p); err != nil {
			return err
		}
	}
	var readTimes, bashTimes []time.Duration
	for i := 0; i < calls; i++ {
		for _, x := range []struct {
			p   any
			out *[]time.Duration
		}{{read, &readTimes}, {bash, &bashTimes}} {
			t0 := time.Now()
			res, err := c.call("toolhost/callTool", x.p)
			if err != nil {
				return err
			}
			*x.out = append(*x.out, time.Since(t0))
			if res["isError"] == true {
				return fmt.Errorf("call failed: %v", res["content"])
			}
		}
	}
	// The protocol floor: a request the server answers at once (an unknown
	// method gets -32601), and Read alone, not right after a Bash.
	var floorTimes, readAloneTimes []time.Duration
	for i := 0; i < calls; i++ {
		t0 := time.Now()
		_, _ = c.call("toolhost/noSuchMethod", map[string]any{})
		floorTimes = append(floorTimes, time.Since(t0))
	}
	for i := 0; i < calls; i++ {
		t0 := time.Now()
		if _, err := c.call("toolhost/callTool", read); err != nil {
			return err
		}
		readAloneTimes = append(readAloneTimes, time.Since(t0))
	}
	fmt.Printf("toolhost serve over stdio (%d starts, %d calls each)\n", starts, calls)
	report("round trip floor (unknown method)", floorTimes, 0)
	report("callTool Read, calls in a row", readAloneTimes, 300*time.Microsecond)
	report("start → initialize reply", startTimes, 30*time.Millisecond)
	report("callTool Read 50 of 5,000 lines", readTimes, 300*time.Microsecond)
	report("callTool Bash echo hi", bashTimes, 4*time.Millisecond)
	if bigRuns == 0 {
		return nil
	}
	return runBigWrite(bin, bigMB, bigRuns)
}

func report(name string, d []time.Duration, target time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	p50, p90 := d[len(d)/2], d[len(d)*9/10]
	if target == 0 {
		fmt.Printf("  %-34s p50 %9s  p90 %9s\n", name, round(p50), round(p90))
		return
	}
	verdict := "meets"
	if p50 > target {
		verdict = "MISSES"
	}
	fmt.Printf("  %-34s p50 %9s  p90 %9s  target p50 ≤ %-7s %s (%.2f× target)\n", name, round(p50), round(p90), target, verdict, float64(p50)/float64(target))
}

func round(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.3fms", float64(d)/1e6)
	}
	return d.Round(10 * time.Microsecond).String()
}

// client is a minimal LSP-framed JSON-RPC client that answers nothing: the
// benchmark declares no client capabilities, so the server sends no requests.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
	// sendBuf and readBuf are reused from message to message, as an
	// editor's transport reuses its buffers: a 5 MB Write's call and
	// didChange would otherwise each fault in fresh memory, and that cost
	// would count as the server's in the Write's time.
	sendBuf, readBuf []byte
}

func startServer(bin, root string) (*client, error) {
	return startServerWith(bin, root, map[string]any{})
}

// startServerWith starts a server for a client with the given capabilities.
func startServerWith(bin, root string, capabilities map[string]any) (*client, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Dir = root
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w (run make build first)", bin, err)
	}
	c := &client{cmd: cmd, in: in, out: bufio.NewReader(out)}
	params := map[string]any{"processId": os.Getpid(), "rootUri": "file://" + root, "capabilities": capabilities,
		"initializationOptions": map[string]any{"permissions": map[string]any{"defaultMode": "bypassPermissions"}}}
	if _, err := c.call("initialize", params); err != nil {
		c.close()
		return nil, err
	}
	return c, c.notify("initialized", map[string]any{})
}

func (c *client) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	body, err := json.Append(c.sendBuf[:0], msg, json.EscapeHTML|json.SortMapKeys)
	if err != nil {
		return err
	}
	c.sendBuf = body
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.in.Write(body)
	return err
}

func (c *client) notify(method string, params any) error {
	return c.write(map[string]any{"method": method, "params": params})
}

func (c *client) call(method string, params any) (map[string]any, error) {
	c.id++
	if err := c.write(map[string]any{"id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		msg, err := c.read()
		if err != nil {
			return nil, err
		}
		if id, ok := msg["id"].(float64); ok && int(id) == c.id && msg["method"] == nil {
			if e, ok := msg["error"]; ok {
				return nil, fmt.Errorf("%s: %v", method, e)
			}
			res, _ := msg["result"].(map[string]any)
			return res, nil
		}
	}
}

func (c *client) read() (map[string]any, error) {
	body, err := c.readBody()
	if err != nil {
		return nil, err
	}
	var msg map[string]any
	return msg, json.Unmarshal(body, &msg)
}

// readBody reads one message's body.
func (c *client) readBody() ([]byte, error) {
	length := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a message without Content-Length")
	}
	// The body is only valid until the next read: what the callers keep
	// of it is decoded into copies.
	if cap(c.readBuf) < length {
		c.readBuf = make([]byte, length)
	}
	body := c.readBuf[:length]
	if _, err := io.ReadFull(c.out, body); err != nil {
		return nil, err
	}
	return body, nil
}

func (c *client) close() {
	c.call("shutdown", nil)
	c.notify("exit", nil)
	c.in.Close()
	c.cmd.Wait()
}
