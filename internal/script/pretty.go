package script

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// Printer writes messages for a person to read: a heading per message with
// its direction, kind and method, the params or result indented, and the
// text of tool results as it would reach the model.
type Printer struct {
	// mu serialises printing: the script and the server's reader both print.
	mu sync.Mutex
	w  io.Writer
	// methods remembers each request's method by direction and id, so a
	// response can say what it answers.
	methods map[string]string
}

// NewPrinter returns a Printer writing to w.
func NewPrinter(w io.Writer) *Printer {
	return &Printer{w: w, methods: map[string]string{}}
}

// Observe prints one message; it fits Options.Observe.
func (p *Printer) Observe(dir Direction, msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	arrow, who := "→", "editor → toolhost"
	if dir == ServerToClient {
		arrow, who = "←", "toolhost → editor"
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		fmt.Fprintf(p.w, "%s %s: raw bytes %q\n\n", arrow, who, truncateText(string(msg), 200))
		return
	}
	key := func(d Direction) string { return fmt.Sprintf("%d/%s", d, m.ID) }
	switch {
	case m.Method != "" && len(m.ID) > 0:
		p.methods[key(dir)] = m.Method
		fmt.Fprintf(p.w, "%s %s: request %s %s\n", arrow, who, m.ID, m.Method)
		p.body(m.Params)
	case m.Method != "":
		fmt.Fprintf(p.w, "%s %s: notification %s\n", arrow, who, m.Method)
		p.body(m.Params)
	default:
		other := ClientToServer
		if dir == ClientToServer {
			other = ServerToClient
		}
		method := p.methods[key(other)]
		if len(m.Error) > 0 {
			fmt.Fprintf(p.w, "%s %s: error for %s %s\n", arrow, who, m.ID, method)
			p.body(m.Error)
			return
		}
		fmt.Fprintf(p.w, "%s %s: result of %s %s\n", arrow, who, m.ID, method)
		p.result(m.Result)
	}
}

// body prints JSON indented, shortening long strings.
func (p *Printer) body(raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		fmt.Fprintln(p.w)
		return
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		fmt.Fprintf(p.w, "    %s\n\n", raw)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	_ = enc.Encode(shorten(v))
	fmt.Fprintf(p.w, "    %s\n\n", strings.TrimRight(buf.String(), "\n"))
}

// result prints a tool result's text blocks as they are, a tool list one
// tool a line, else the JSON.
func (p *Printer) result(raw json.RawMessage) {
	var list struct {
		Tools []struct {
			Name     string `json:"name"`
			Function *struct {
				Name string `json:"name"`
			} `json:"function"`
			Category    string `json:"category"`
			SideEffect  string `json:"sideEffect"`
			AutoAllowed bool   `json:"autoAllowed"`
			Docs        struct {
				Short string `json:"short"`
			} `json:"docs"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list.Tools) > 0 && list.Tools[0].Category != "" {
		fmt.Fprintf(p.w, "    %d tools (definitions with input schemas elided here):\n", len(list.Tools))
		for _, t := range list.Tools {
			name := t.Name
			if t.Function != nil {
				name = t.Function.Name
			}
			auto := ""
			if t.AutoAllowed {
				auto = ", runs without asking"
			}
			fmt.Fprintf(p.w, "    %-18s %s, side effect %s%s — %s\n", name, t.Category, t.SideEffect, auto, truncateText(t.Docs.Short, 90))
		}
		fmt.Fprintln(p.w)
		return
	}
	var tr struct {
		Content *[]struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(raw, &tr) != nil || tr.Content == nil {
		p.body(raw)
		return
	}
	if tr.IsError {
		fmt.Fprintln(p.w, "    (isError: true)")
	}
	for _, c := range *tr.Content {
		if c.Type != "text" {
			fmt.Fprintf(p.w, "    [%s block]\n", c.Type)
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(c.Text, "\n"), "\n") {
			fmt.Fprintf(p.w, "    │ %s\n", line)
		}
	}
	fmt.Fprintln(p.w)
}

// shorten cuts long strings and long lists so the printout stays readable.
func shorten(v any) any {
	switch x := v.(type) {
	case string:
		return truncateText(x, 160)
	case map[string]any:
		for k, e := range x {
			x[k] = shorten(e)
		}
	case []any:
		if len(x) > 12 {
			x = append(x[:12:12], fmt.Sprintf("… %d more", len(x)-12))
		}
		for i, e := range x {
			x[i] = shorten(e)
		}
		return x
	}
	return v
}

// truncateText cuts s to at most n bytes, on a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Demo replays the session in file against serve in a temporary workspace
// and prints it readably to w. It fails when the server's messages differ
// from the transcript's.
func Demo(ctx context.Context, w io.Writer, file string, serve ServeFunc) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s, err := Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	dir, err := os.MkdirTemp("", "toolhost-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if comment := strings.TrimSpace(string(s.archive.Comment)); comment != "" {
		fmt.Fprintf(w, "%s\n\n", comment)
	}
	fmt.Fprintf(w, "workspace $WORK = %s/ws (files from %s)\n\n", dir, file)
	printer := NewPrinter(w)
	res, err := s.Replay(ctx, serve, Options{Dir: dir, Observe: printer.Observe})
	if err != nil {
		return err
	}
	if len(res.Failures) > 0 {
		return fmt.Errorf("the session did not go as scripted:\n%s", strings.Join(res.Failures, "\n"))
	}
	fmt.Fprintln(w, "Every message matched the transcript and the workspace files are as expected.")
	return nil
}
