package lspserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools/engine"
)

// benchConn is a client of Serve over OS pipes, as an editor talks to the
// server over its stdin and stdout.
type benchConn struct {
	w    *os.File
	r    *bufio.Reader
	sess *session.Session
	seq  int
}

func startBench(b *testing.B, root string) *benchConn {
	b.Helper()
	return startBenchCaps(b, root, map[string]any{})
}

// startBenchCaps is startBench for a client with the capabilities caps.
func startBenchCaps(b *testing.B, root string, caps map[string]any) *benchConn {
	b.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	c := &benchConn{w: inW, r: bufio.NewReaderSize(outR, 1<<16)}
	sessions := make(chan *session.Session, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(context.Background(), inR, outW, Options{OnSession: func(s *session.Session) { sessions <- s }})
		_ = outW.Close()
	}()
	b.Cleanup(func() {
		_ = inW.Close()
		<-done
		_ = outR.Close()
	})
	// bypassPermissions: the benchmark client shows no prompts, and what is
	// measured is the call, not the permission layer's refusal.
	c.call(b, "initialize", map[string]any{"rootPath": root, "capabilities": caps,
		"initializationOptions": map[string]any{"permissions": map[string]any{"defaultMode": "bypassPermissions"}}})
	c.sess = <-sessions
	return c
}

// call sends a request and waits for its reply.
func (c *benchConn) call(b *testing.B, method string, params any) json.RawMessage {
	c.seq++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.seq, "method": method, "params": params})
	if err := script.WriteFrame(c.w, body); err != nil {
		b.Fatal(err)
	}
	reply, err := script.ReadFrame(c.r)
	if err != nil {
		b.Fatal(err)
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(reply, &m); err != nil || m.Error != nil {
		b.Fatalf("%s: %s", method, reply)
	}
	return m.Result
}

// benchCall measures one tool call over the connection and, as the peer,
// the same call made in process through the pipeline. It reports the p50
// latency of both and their ratio: what the JSON-RPC layer costs.
func benchCall(b *testing.B, root, tool string, input map[string]any, check func(text string) bool) {
	c := startBench(b, root)
	raw, _ := json.Marshal(input)
	req := engine.Request{Name: tool, Input: raw}
	// One call of each first, so cold caches do not count.
	first := c.call(b, "toolhost/callTool", map[string]any{"name": tool, "input": input})
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(first, &res); err != nil || res.IsError || len(res.Content) == 0 || !check(res.Content[0].Text) {
		b.Fatalf("unexpected result: %s", first)
	}
	if _, err := c.sess.Pipeline.Call(context.Background(), nil, req); err != nil {
		b.Fatal(err)
	}
	rpc := make([]time.Duration, 0, b.N)
	direct := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c.call(b, "toolhost/callTool", map[string]any{"name": tool, "input": input})
		rpc = append(rpc, time.Since(start))
		start = time.Now()
		if _, err := c.sess.Pipeline.Call(context.Background(), nil, req); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
	}
	b.StopTimer()
	rp, dp := p50(rpc), p50(direct)
	b.ReportMetric(float64(rp.Microseconds()), "rpc-p50-µs")
	b.ReportMetric(float64(dp.Microseconds()), "direct-p50-µs")
	if dp > 0 {
		b.ReportMetric(float64(rp)/float64(dp), "rpc/direct")
	}
}

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkCallToolRead reads 50 lines from the middle of a 5,000-line file.
func BenchmarkCallToolRead(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&sb, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	benchCall(b, root, "Read", map[string]any{"file_path": file, "offset": 2500, "limit": 50}, func(text string) bool {
		return strings.Contains(text, "  2500\tline 2500:") && strings.Contains(text, "  2549\tline 2549:")
	})
}

// BenchmarkCallToolBashEcho runs `echo hi` through Bash.
func BenchmarkCallToolBashEcho(b *testing.B) {
	benchCall(b, b.TempDir(), "Bash", map[string]any{"command": "echo hi"}, func(text string) bool {
		return strings.HasPrefix(text, "hi")
	})
}
