// Command toolhost is the tool layer of an AI coding agent: `toolhost serve`
// speaks JSON-RPC with LSP framing on stdio for editors, `toolhost mcp` serves
// the same tools over MCP, `toolhost call` runs one call from a shell, and
// `toolhost tools` lists, documents, enables and disables tools.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/internal/version"
)

const usage = `toolhost — the tool layer of an AI coding agent, as an editor backend

Usage:
  toolhost [serve]              serve JSON-RPC (LSP framing) on stdio for an editor
  toolhost mcp [--attach]       serve the tools as an MCP server on stdio
                                (--attach: inside the running editor session)
  toolhost call TOOL JSON       run one call and print the result
  toolhost tools list           list the tools with their categories
  toolhost tools docs [-o F]    write the tool reference (default docs/tools.md)
  toolhost tools enable NAME…   enable tools in .toolhost/settings.local.json
  toolhost tools disable NAME…  disable tools in .toolhost/settings.local.json
  toolhost trust [DIR]          trust a folder's settings, hooks and MCP servers
  toolhost trust --revoke DIR   stop trusting a folder (--list lists them)
  toolhost demo [FILE]          replay the sample editor session and print it
  toolhost version              print the version

Run 'toolhost COMMAND -h' for a command's flags.
`

// watchdogCommand runs the watchdog of a server's processes (see
// internal/lifetime); it is not a command for people.
const watchdogCommand = "__watchdog"

func main() {
	// Commands run below a reaper, the same binary (internal/lifetime).
	lifetime.MainIfAsked()
	if len(os.Args) == 2 && os.Args[1] == watchdogCommand {
		lifetime.Watch(os.Stdin)
		return
	}
	// Every process a call starts ends with the server, however it ends:
	// a signal or the end of input here, a kill -9 through the watchdog.
	lifetime.Init(watchdogCommand)
	// A closed terminal (SIGHUP) ends the server like Ctrl-C and SIGTERM:
	// cleanly, with its processes. A server's output is a pipe to its
	// client: a client gone away must not kill it while it cleans up
	// (background tasks, MCP servers), so its writes fail with EPIPE.
	ctx, stop := context.WithCancel(context.Background())
	releaseSignals := lifetime.HandleSignals(stop, serves(os.Args[1:]))
	finished := make(chan struct{})
	go endAfterGrace(ctx, finished, shutdownGrace, os.Stderr, func(code int) {
		lifetime.KillAll()
		os.Exit(code)
	})
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	close(finished)
	stop()
	releaseSignals()
	lifetime.KillAll()
	os.Exit(code)
}

// shutdownGrace is how long the server may take to end after a signal.
const shutdownGrace = 5 * time.Second

// endAfterGrace ends the program (exit) when ctx is done and the command
// has not finished within grace. A call busy computing, not waiting, does
// not see its context end; the server must end all the same, with its
// processes.
func endAfterGrace(ctx context.Context, finished <-chan struct{}, grace time.Duration, stderr io.Writer, exit func(code int)) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-finished:
	case <-timer.C:
		fmt.Fprintf(stderr, "toolhost: still busy %s after the signal to stop; ending now\n", grace)
		exit(1)
	}
}

// serves reports whether the command line runs a server (serve, the
// default, or mcp), whose output is a pipe to its client.
func serves(args []string) bool {
	return len(args) == 0 || args[0] == "serve" || args[0] == "mcp"
}

// run dispatches a command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, stdin, stdout, stderr)
	case "mcp":
		return runMCP(ctx, args, stdin, stdout, stderr)
	case "call":
		return runCall(ctx, args, stdin, stdout, stderr)
	case "tools":
		return runTools(ctx, args, stdout, stderr)
	case "trust":
		return runTrust(ctx, args, stdout, stderr)
	case "demo":
		return runDemo(ctx, args, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "toolhost", version.String())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "toolhost: unknown command %q\n\n%s", cmd, usage)
	return 2
}
