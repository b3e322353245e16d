package mcpserver

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
)

// stdioBench is a minimal MCP client of Serve over OS pipes, as an MCP
// client talks to `toolhost mcp` over its stdin and stdout: one line out,
// one line back, so what is measured is the server's share of a call.
type stdioBench struct {
	w   *os.File
	r   *bufio.Reader
	seq int
}

func startStdioBench(b *testing.B, root string) *stdioBench {
	b.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	// The user's settings allow the benchmark's command, as a user who
	// runs it would.
	conf := b.TempDir()
	if err := os.MkdirAll(filepath.Join(conf, "toolhost"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "toolhost", "settings.json"), []byte(`{"permissions":{"allow":["Bash(echo hi)","Edit"]}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("XDG_CONFIG_HOME", conf)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, inR, outW, Options{Roots: []string{root}})
		_ = outW.Close()
	}()
	b.Cleanup(func() {
		_ = inW.Close()
		cancel()
		<-done
		_ = outR.Close()
		_ = inR.Close()
	})
	c := &stdioBench{w: inW, r: bufio.NewReaderSize(outR, 1<<16)}
	c.call(b, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	if _, err := c.w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"); err != nil {
		b.Fatal(err)
	}
	return c
}

// call sends a request and reads lines until its answer.
func (c *stdioBench) call(b *testing.B, method string, params any) json.RawMessage {
	c.seq++
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.seq, "method": method, "params": params})
	if _, err := c.w.Write(append(line, '\n')); err != nil {
		b.Fatal(err)
	}
	for {
		reply, err := c.r.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(reply, &m); err != nil {
			b.Fatalf("%s: %s", method, reply)
		}
		if m.ID == nil || *m.ID != c.seq {
			continue // a notification (tools/list_changed)
		}
		if m.Error != nil {
			b.Fatalf("%s: %s", method, reply)
		}
		return m.Result
	}
}

// benchStdioCall measures one tools/call round trip over the pipes and
// reports its p50.
func benchStdioCall(b *testing.B, root, tool string, args map[string]any, check func(text string) bool) {
	c := startStdioBench(b, root)
	params := map[string]any{"name": tool, "arguments": args}
	first := c.call(b, "tools/call", params)
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(first, &res); err != nil || res.IsError || len(res.Content) == 0 || !check(res.Content[0].Text) {
		b.Fatalf("unexpected result: %s", first)
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c.call(b, "tools/call", params)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
}

// BenchmarkStdioCallRead reads 50 lines from the middle of a 5,000-line
// file through toolhost mcp's stdio transport.
func BenchmarkStdioCallRead(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&sb, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	benchStdioCall(b, root, "Read", map[string]any{"file_path": file, "offset": 2500, "limit": 50}, func(text string) bool {
		return strings.Contains(text, "  2500\tline 2500:")
	})
}

// BenchmarkStdioCallBashEcho runs `echo hi` through Bash over toolhost
// mcp's stdio transport.
func BenchmarkStdioCallBashEcho(b *testing.B) {
	benchStdioCall(b, b.TempDir(), "Bash", map[string]any{"command": "echo hi"}, func(text string) bool {
		return strings.HasPrefix(text, "hi")
	})
}

// BenchmarkStdioCallBigWrite writes 60,000 lines (about 5 MB) over a file
// of as many lines, every line changed, through toolhost mcp's stdio
// transport: the MCP half of the big Write (the editor's half is
// lspserver's BenchmarkCallToolBigWrite). Calls alternate between two
// texts so that each one changes every line.
func BenchmarkStdioCallBigWrite(b *testing.B) {
	root := b.TempDir()
	text := func(tag string) string {
		var sb strings.Builder
		for i := range 60_000 {
			fmt.Fprintf(&sb, "%s line %08d: the quick brown fox jumps over the lazy dog, again and again\n", tag, i)
		}
		return sb.String()
	}
	texts := []string{text("a"), text("b")}
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, []byte(texts[1]), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startStdioBench(b, root)
	c.call(b, "tools/call", map[string]any{"name": "Read", "arguments": map[string]any{"file_path": file, "limit": 5}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := c.call(b, "tools/call", map[string]any{"name": "Write", "arguments": map[string]any{"file_path": file, "content": texts[i%2]}})
		if i == 0 && !strings.Contains(string(res[:min(len(res), 400)]), "\"text\":\"Updated ") {
			b.Fatalf("the Write failed: %.400s", res)
		}
	}
	b.StopTimer()
	got, err := os.ReadFile(file)
	if err != nil || string(got) != texts[(b.N-1)%2] {
		b.Fatalf("the file does not hold the last Write's text (%v)", err)
	}
}

// BenchmarkStdioCallBigEdit replaces one line in the middle of a 45 MB
// file through toolhost mcp's stdio transport, as bench/mcp's big Edit
// row does with a fresh server per call.
func BenchmarkStdioCallBigEdit(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := range 560_000 {
		fmt.Fprintf(&sb, "x line %08d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startStdioBench(b, root)
	c.call(b, "tools/call", map[string]any{"name": "Read", "arguments": map[string]any{"file_path": file, "limit": 5}})
	lines := []string{"x line 00280000:", "x LINE 00280000:"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := c.call(b, "tools/call", map[string]any{"name": "Edit", "arguments": map[string]any{"file_path": file, "old_string": lines[i%2], "new_string": lines[(i+1)%2]}})
		if i == 0 && strings.Contains(string(res), `"isError":true`) {
			b.Fatalf("the Edit failed: %.400s", res)
		}
	}
}
