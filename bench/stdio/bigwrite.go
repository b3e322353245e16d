package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/bench/internal/procstat"
)

// bigWriteTarget is the target for a Write of a 5 MB file that
// changes every line, through the editor.
const bigWriteTarget = 300 * time.Millisecond

// runBigWrite times Write of a file of mb megabytes with every line
// changed, through the editor path: the client has the file open, applies
// the server's workspace/applyEdit to its buffer (UTF-16 positions, as VS
// Code), reports the change with didChange and answers applied; the server
// then writes the file. Each run checks that the buffer and the disk hold
// the new content.
func runBigWrite(bin string, mb, runs int) error {
	dir, err := os.MkdirTemp("", "toolhost-bigwrite-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var b strings.Builder
	for n := 1; b.Len() < mb<<20; n++ {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", n)
	}
	old := b.String()
	next := strings.ToUpper(old)
	file := filepath.Join(dir, "rewrite.txt")
	uri := "file://" + file

	var times, cpus, clientCPUs []time.Duration
	var faults, clientFaults []int64
	var peaks int64
	for run := 0; run < runs; run++ {
		if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
			return err
		}
		c, err := startServerWith(bin, dir, map[string]any{"workspace": map[string]any{"applyEdit": true}})
		if err != nil {
			return err
		}
		ed := &editorBuffer{text: old, version: 1}
		err = c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "plaintext", "version": 1, "text": old,
		}})
		if err == nil {
			_, err = c.callServing("toolhost/callTool", map[string]any{"name": "Read", "input": map[string]any{"file_path": file, "limit": 5}}, ed.serve(c, uri))
		}
		var res map[string]any
		var server0, server1, self0, self1 procstat.Usage
		if err == nil {
			server0, err = procstat.UsageOf(c.cmd.Process.Pid)
		}
		if err == nil {
			self0, err = procstat.UsageOf(os.Getpid())
		}
		t0 := time.Now()
		if err == nil {
			res, err = c.callServing("toolhost/callTool", map[string]any{"name": "Write", "input": map[string]any{"file_path": file, "content": next}}, ed.serve(c, uri))
		}
		took := time.Since(t0)
		if err == nil {
			server1, err = procstat.UsageOf(c.cmd.Process.Pid)
		}
		if err == nil {
			self1, err = procstat.UsageOf(os.Getpid())
		}
		var peak int64
		if err == nil {
			peak, err = procstat.PeakRSS(c.cmd.Process.Pid)
		}
		c.close()
		if err != nil {
			return fmt.Errorf("a Write of %d MB through the editor: %w", mb, err)
		}
		if res["isError"] == true {
			return fmt.Errorf("a Write of %d MB through the editor failed: %.300v", mb, res["content"])
		}
		if ed.text != next {
			return fmt.Errorf("after a Write of %d MB, the editor's buffer does not hold the new content after %d edits", mb, ed.applied)
		}
		if disk, err := os.ReadFile(file); err != nil || !bytes.Equal(disk, []byte(next)) {
			return fmt.Errorf("after a Write of %d MB, the file on disk does not hold the new content (%v)", mb, err)
		}
		server, client := server1.Since(server0), self1.Since(self0)
		times = append(times, took)
		cpus = append(cpus, server.CPU)
		faults = append(faults, server.Faults)
		clientCPUs = append(clientCPUs, client.CPU)
		clientFaults = append(clientFaults, client.Faults)
		peaks = max(peaks, peak)
	}
	fmt.Printf("\nBig files through the editor (%d runs, each in a new server; server CPU shows its own cost on a busy machine)\n", runs)
	report(fmt.Sprintf("Write %d MB, every line changed", mb), times, bigWriteTarget)
	report("  its server CPU", cpus, 0)
	slices.Sort(faults)
	fmt.Printf("  %-34s p50 %d (pages touched for the first time; independent of the load)\n", "  its server's minor page faults", faults[len(faults)/2])
	fmt.Printf("  %-34s %.0f MB (the largest of the runs)\n", "  the server's peak RSS (VmHWM)", float64(peaks)/(1<<20))
	report("  the client's own CPU", clientCPUs, 0)
	slices.Sort(clientFaults)
	fmt.Printf("  %-34s p50 %d\n", "  the client's minor page faults", clientFaults[len(clientFaults)/2])
	return nil
}

// editorBuffer is the client's copy of one open document.
type editorBuffer struct {
	text    string
	version int
	applied int
}

// serve answers the server's requests during a call: workspace/applyEdit
// is applied to the buffer and reported with didChange before the answer,
// as editors do; any other request is declined.
func (ed *editorBuffer) serve(c *client, uri string) func(method string, params json.RawMessage) (any, error) {
	return func(method string, params json.RawMessage) (any, error) {
		if method != "workspace/applyEdit" {
			return nil, fmt.Errorf("the benchmark's client does not handle %s", method)
		}
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					TextDocument struct {
						URI string `json:"uri"`
					} `json:"textDocument"`
					Edits []textEdit `json:"edits"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		var changes []map[string]any
		for _, dc := range p.Edit.DocumentChanges {
			if dc.TextDocument.URI != uri {
				return map[string]any{"applied": false, "failureReason": "not the open document"}, nil
			}
			edits := dc.Edits
			// Applied last to first, each edit's range still addresses the
			// text before it; didChange lists them in the same order.
			sort.SliceStable(edits, func(i, j int) bool { return less(edits[j].Range.Start, edits[i].Range.Start) })
			for _, e := range edits {
				start, end := offsetOf(ed.text, e.Range.Start), offsetOf(ed.text, e.Range.End)
				ed.text = ed.text[:start] + e.NewText + ed.text[end:]
				changes = append(changes, map[string]any{"range": e.Range, "text": e.NewText})
				ed.applied++
			}
		}
		ed.version++
		if err := c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": ed.version},
			"contentChanges": changes,
		}); err != nil {
			return nil, err
		}
		return map[string]any{"applied": true}, nil
	}
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type textEdit struct {
	Range struct {
		Start position `json:"start"`
		End   position `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

func less(a, b position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// offsetOf converts a position in UTF-16 code units to a byte offset of text.
func offsetOf(text string, p position) int {
	off := 0
	for l := 0; l < p.Line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	units := 0
	for off < len(text) && text[off] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		units += len(utf16.Encode([]rune{r}))
		off += size
	}
	return off
}

// callServing is call for a client that answers the server's requests
// with serve while it waits.
func (c *client) callServing(method string, params any, serve func(string, json.RawMessage) (any, error)) (map[string]any, error) {
	c.id++
	id := c.id
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		body, err := c.readBody()
		if err != nil {
			return nil, err
		}
		// Only the envelope is decoded: a large result is skipped over, not
		// built into maps, so the client's share of the time stays small.
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		// The params stay a view of the body, which serve decodes before
		// the next read.
		if _, err := json.Parse(body, &msg, json.DontCopyRawMessage); err != nil {
			return nil, err
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			result, err := serve(msg.Method, msg.Params)
			answer := map[string]any{"id": msg.ID, "result": result}
			if err != nil {
				answer = map[string]any{"id": msg.ID, "error": map[string]any{"code": -32601, "message": err.Error()}}
			}
			if err := c.write(answer); err != nil {
				return nil, err
			}
		case msg.Method != "":
			// a notification (progress, logs)
		case string(msg.ID) == fmt.Sprint(id):
			if len(msg.Error) > 0 {
				return nil, fmt.Errorf("%s: %s", method, msg.Error)
			}
			content := make([]any, len(msg.Result.Content))
			for i, c := range msg.Result.Content {
				content[i] = c.Text
			}
			return map[string]any{"isError": msg.Result.IsError, "content": content}, nil
		}
	}
}
