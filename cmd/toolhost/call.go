package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// runCall runs one tool call from the command line. The person typing the
// command is the user, so the call runs in bypassPermissions mode unless
// --mode says otherwise; deny rules and the refusal of writes outside the
// workspace still apply.
func runCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root (default: the current directory)")
	mode := fs.String("mode", tools.ModeBypassPermissions, "permission mode: default, acceptEdits, plan, bypassPermissions or dontAsk")
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolhost call [flags] TOOL [JSON|-]\n\nRuns one call; JSON is the tool's input ('-' reads it from stdin, omitted means {}).\nExit code 1 when the result is an error.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return 2
	}
	name := fs.Arg(0)
	input := json.RawMessage("{}")
	if fs.NArg() == 2 {
		raw := fs.Arg(1)
		if raw == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintf(stderr, "toolhost: reading the input from stdin: %v\n", err)
				return 1
			}
			raw = string(b)
		}
		if !json.Valid([]byte(raw)) {
			fmt.Fprintf(stderr, "toolhost: the input is not valid JSON: %s\nQuote it for the shell, e.g. toolhost call Read '{\"file_path\":\"README.md\"}'\n", strings.TrimSpace(raw))
			return 2
		}
		input = json.RawMessage(raw)
	}
	chosen := false
	fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "mode" })
	sess, err := newCLISessionFor(*root, *mode, chosen, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost: %v\n", err)
		return 1
	}
	defer sess.Close()
	// MCP servers start only for a call that needs one (a server's tool, or
	// ListMcpResources / ReadMcpResource): starting them costs processes and
	// seconds.
	entry, known := sess.Registry.Lookup(name)
	if (known && entry.Category == tools.CategoryMCP) || (!known && strings.HasPrefix(strings.ToLower(name), "mcp__")) {
		if err := sess.MCP.Start(ctx); err != nil {
			fmt.Fprintf(stderr, "toolhost: %v\n", err)
		}
		if err := sess.MCP.WaitSettled(ctx); err != nil {
			fmt.Fprintln(stderr, "toolhost: interrupted while the MCP servers started")
			return 130
		}
	}
	resp, err := sess.Pipeline.Call(ctx, newTerminalHost(stdin, stderr), engine.Request{Name: name, Input: input})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "toolhost: interrupted")
			return 130
		}
		fmt.Fprintf(stderr, "toolhost: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(resp)
	} else {
		printResult(stdout, resp.Result)
	}
	if resp.IsError {
		return 1
	}
	return 0
}

// newCLISession builds a session rooted at root (default: the current
// directory) in the given permission mode. The person at the terminal sees
// what they ask for, so Write and Edit need no prior Read. Its MCP servers
// stay stopped until a call needs them.
func newCLISession(root, mode string) (*session.Session, error) {
	return newCLISessionFor(root, mode, false, io.Discard)
}

// newCLISessionFor is newCLISession for a mode the user may have chosen
// with a flag (bypassPermissions chosen so trusts the folder); what an
// untrusted folder asked for and did not get is printed once to notices.
func newCLISessionFor(root, mode string, chosen bool, notices io.Writer) (*session.Session, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot find the current directory: %w; pass --root", err)
		}
		root = wd
	}
	sess, err := session.New(session.Options{Roots: []string{root}, Mode: mode, ModeChosenByUser: chosen, NoMCP: true})
	if err != nil {
		return nil, err
	}
	fmt.Fprint(notices, sess.TrustNotice())
	sess.Workspace.SetReadBeforeWrite(false)
	return sess, nil
}

// printResult prints the text blocks of a result; images are summarised.
// On a terminal, control characters and bidirectional overrides are
// written out (internal/visible): a file a repository ships must not
// drive the terminal (set its title, write the clipboard with OSC 52,
// hide or rewrite lines) when Read prints it. Piped output stays as is.
func printResult(w io.Writer, r *tools.Result) {
	show := func(s string) string { return s }
	if isTerminal(w) {
		show = visible.Text
	}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			fmt.Fprintln(w, show(strings.TrimRight(c.Text, "\n")))
		case "image":
			fmt.Fprintf(w, "[image %s, %d bytes base64]\n", c.MimeType, len(c.Data))
		}
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
