package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/lspserver"
	"github.com/toolhost/toolhost/mcpserver"
)

// runServe serves one editor session on stdin/stdout. Exit code 0 after
// shutdown + exit, 1 when the client left without shutdown (LSP).
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxBytes := fs.Int64("max-message-bytes", 0, "refuse messages whose Content-Length is larger (default 64 MiB; server.maxMessageBytes)")
	verbose := fs.Bool("v", false, "log debug messages to stderr")
	noEndpoint := fs.Bool("no-agent-endpoint", false, "do not serve the session to other agents over MCP (the setting server.agentEndpoint: false does the same)")
	// LSP clients add these by convention (vscode-languageclient adds
	// --stdio for its stdio transport); stdio is the only transport.
	fs.Bool("stdio", true, "use stdin/stdout (the only transport; accepted for LSP clients that pass it)")
	fs.Int("clientProcessId", 0, "the client's process id (accepted and ignored)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolhost serve [flags]\n\nServes JSON-RPC with LSP framing on stdin/stdout for an editor (see docs/protocol.md).\nLogs go to stderr.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	err := lspserver.Serve(ctx, stdin, stdout, lspserver.Options{
		Log:             stderrLogger(stderr, *verbose),
		MaxMessageBytes: *maxBytes,
		AgentEndpoint:   !*noEndpoint,
	})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, lspserver.ErrExitWithoutShutdown):
		return 1
	case errors.Is(err, context.Canceled):
		return 130
	}
	fmt.Fprintf(stderr, "toolhost serve: %v\n", err)
	return 1
}

// runMCP serves the tools as an MCP server on stdin/stdout.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root (default: the current directory)")
	maxBytes := fs.Int("max-message-bytes", 0, "answer longer input messages with an error and skip them (default 64 MiB; server.maxMessageBytes)")
	verbose := fs.Bool("v", false, "log debug messages to stderr")
	attach := fs.Bool("attach", false, "run the calls in the running editor session whose workspace holds the current folder (or -session's); without one, serve a standalone session and say so")
	deferred := fs.Bool("deferred", false, "list deferred tools (the tools.deferred setting) by name only, to be loaded with ToolSearch, even to a client that does not ask (docs/mcp.md)")
	sessionFile := fs.String("session", "", "with -attach: the editor session's file (default: $"+discovery.EnvVar+", else found by the current folder)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolhost mcp [flags]\n\nServes the tools as an MCP server on stdin/stdout (see docs/mcp.md; -attach: docs/agents.md).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	tuneGC()
	stdin, restore := pollableStdin(stdin)
	defer restore()
	var roots []string
	if *root != "" {
		roots = []string{*root}
	}
	log := stderrLogger(stderr, *verbose)
	opts := mcpserver.Options{Roots: roots, Log: log, MaxMessageBytes: *maxBytes, DeferListing: *deferred}
	if *attach {
		sess, why := findSession(*sessionFile, *root)
		if why == "" {
			err := mcpserver.Attach(ctx, stdin, stdout, mcpserver.AttachOptions{Session: sess.Info, Log: log, MaxMessageBytes: *maxBytes, DeferListing: *deferred})
			switch {
			case err == nil, errors.Is(err, context.Canceled), errors.Is(err, io.EOF):
				return 0
			case errors.Is(err, mcpserver.ErrSessionEnded):
				fmt.Fprintf(stderr, "toolhost mcp --attach: the editor session (pid %d) ended; restart the MCP server once the editor runs again\n", sess.PID)
				return 1
			}
			// Nothing was served yet: the session file was stale or its
			// token wrong. Say so and serve on our own.
			why = err.Error()
		}
		fmt.Fprintf(stderr, "toolhost mcp --attach: %s; serving a standalone session (no editor: edits are written to disk, prompts go through this MCP client)\n", why)
		opts.Instructions = "toolhost (standalone): no running editor session was found for this folder (" + why + "), so edits are written straight to disk and prompts go through this client. Start the editor with toolhost (VS Code extension or Neovim plugin) in this folder and restart this server to work inside it."
	}
	err := mcpserver.Serve(ctx, stdin, stdout, opts)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "toolhost mcp: %v\n", err)
		return 1
	}
	return 0
}

// findSession picks the editor session -attach reaches: the file named by
// the flag or the environment, else the session whose workspace holds the
// folder (root, or the current directory). why says what went wrong when
// there is none.
func findSession(file, root string) (sess discovery.Session, why string) {
	if file == "" {
		file = os.Getenv(discovery.EnvVar)
	}
	if file != "" {
		info, err := discovery.Read(file)
		switch {
		case err != nil:
			return sess, fmt.Sprintf("the session file %s cannot be used (%v)", file, err)
		case !discovery.Alive(info.PID):
			return sess, fmt.Sprintf("the editor session of %s (pid %d) is not running", file, info.PID)
		}
		return discovery.Session{Path: file, Info: info}, ""
	}
	folder := root
	if folder == "" {
		wd, err := os.Getwd()
		if err != nil {
			return sess, "no current folder to find a session by: " + err.Error()
		}
		folder = wd
	}
	found, err := discovery.Find(folder)
	if err != nil {
		return sess, err.Error()
	}
	return found, ""
}

// mcpGCPercent is the garbage collector's target for toolhost mcp. Its
// live heap is a few MB while the MCP SDK allocates generously for every
// message (a 32 KB buffer each time it decodes JSON), so at Go's default
// of 100 a collection ran every few calls and showed in the slowest tenth
// of latencies: 3,000 Reads in a row had a p90 of 850-875 µs at 100 and
// 557-568 µs at 400 (p50 440-456 against 428-433 µs), for a peak of 30 MB
// resident instead of 19 MB. toolhost serve stays at the default: its
// messages allocate little, and measured the same way its Reads in a row
// were 90 µs slower at p50 with 400 and no better at p90.
const mcpGCPercent = 400

// softMemoryLimit is the heap size past which the collector runs whatever
// GOGC says. GOGC=400 lets garbage grow to four times the live heap, which
// is a few MB for calls of ordinary size but hundreds of MB around an Edit
// of a 45 MB file (the old and the new content are live, and each copy
// made on the way is garbage): the limit keeps such a call near three
// times the file, and costs nothing below it.
const softMemoryLimit = 64 << 20

// tuneGC applies mcpGCPercent unless the user set GOGC, and
// softMemoryLimit unless the user set GOMEMLIMIT.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

// stderrLogger logs warnings and errors (debug with -v) as text to w.
func stderrLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose || os.Getenv("TOOLHOST_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
