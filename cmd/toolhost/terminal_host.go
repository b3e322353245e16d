package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
)

// terminalHost is the Host of `toolhost call`: files are written to disk, and
// prompts and questions are asked on the terminal when stdin is one; without
// a terminal they cannot be asked (and the pipeline denies).
type terminalHost struct {
	tools.NoHost
	out io.Writer

	// mu serialises dialogs on the shared terminal.
	mu sync.Mutex
	// in reads answers; nil when stdin is not a terminal.
	in *bufio.Reader
}

func newTerminalHost(stdin io.Reader, out io.Writer) *terminalHost {
	h := &terminalHost{out: out}
	if f, ok := stdin.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			h.in = bufio.NewReader(f)
		}
	}
	return h
}

// readLine reads one answer, giving up when ctx ends.
func (h *terminalHost) readLine(ctx context.Context) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := h.in.ReadString('\n')
		ch <- line{strings.TrimSpace(s), err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l := <-ch:
		if l.err != nil && l.s == "" {
			return "", tools.ErrDismissed
		}
		return l.s, nil
	}
}

func (h *terminalHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	if h.in == nil {
		return tools.PermissionResponse{}, tools.ErrCannotAsk
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// What the terminal shows is escaped (internal/visible): text from the
	// model or the workspace must not move the cursor over, or recolour,
	// what the user reads before answering.
	fmt.Fprintf(h.out, "\n%s (risk: %s)\n", visible.Line(req.Title), req.Risk)
	if req.Preview != nil {
		fmt.Fprintln(h.out, visible.Text(req.Preview.Text))
	}
	fmt.Fprint(h.out, "Allow? [y]es / [a]lways / [N]o: ")
	ans, err := h.readLine(ctx)
	if err != nil {
		return tools.PermissionResponse{}, err
	}
	switch strings.ToLower(ans) {
	case "y", "yes":
		return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
	case "a", "always":
		return tools.PermissionResponse{Decision: tools.DecisionAllowAlways}, nil
	}
	return tools.PermissionResponse{Decision: tools.DecisionDeny, Message: "denied at the terminal"}, nil
}

func (h *terminalHost) AskUserQuestion(ctx context.Context, _ string, qs []tools.Question) (map[string]string, error) {
	if h.in == nil {
		return nil, tools.ErrCannotAsk
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	answers := map[string]string{}
	for _, q := range qs {
		fmt.Fprintf(h.out, "\n%s\n", visible.Text(q.Question))
		for i, o := range q.Options {
			fmt.Fprintf(h.out, "  %d. %s — %s\n", i+1, visible.Line(o.Label), visible.Line(o.Description))
		}
		hint := "number"
		if q.MultiSelect {
			hint = "numbers separated by commas"
		}
		fmt.Fprintf(h.out, "Answer (%s, or your own text): ", hint)
		ans, err := h.readLine(ctx)
		if err != nil {
			return nil, err
		}
		answers[q.Question] = pickOptions(q, ans)
	}
	return answers, nil
}

// pickOptions turns "1,3" into the labels of those options; anything else is
// free text.
func pickOptions(q tools.Question, ans string) string {
	var labels []string
	for _, part := range strings.Split(ans, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > len(q.Options) {
			return ans
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	return strings.Join(labels, ", ")
}
