package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

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
	// A client that goes away must not kill the server while it cleans up
	// (background tasks, MCP servers): writes fail with EPIPE instead.
	signal.Ignore(syscall.SIGPIPE)
	err := lspserver.Serve(ctx, stdin, stdout, lspserver.Options{
		Log:             stderrLogger(stderr, *verbose),
		MaxMessageBytes: *maxBytes,
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolhost mcp [flags]\n\nServes the tools as an MCP server on stdin/stdout (see docs/mcp.md).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	stdin, restore := pollableStdin(stdin)
	defer restore()
	var roots []string
	if *root != "" {
		roots = []string{*root}
	}
	err := mcpserver.Serve(ctx, stdin, stdout, mcpserver.Options{Roots: roots, Log: stderrLogger(stderr, *verbose), MaxMessageBytes: *maxBytes})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "toolhost mcp: %v\n", err)
		return 1
	}
	return 0
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
