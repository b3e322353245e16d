package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/lspserver"
)

// defaultDemo is the sample session, relative to the repository root.
const defaultDemo = "testdata/sessions/demo.txtar"

// runDemo replays a scripted editor session (the sample by default) against
// an in-process server over pipes and prints it readably.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	file := defaultDemo
	switch len(args) {
	case 0:
	case 1:
		file = args[0]
	default:
		fmt.Fprintln(stderr, "Usage: toolhost demo [FILE.txtar]")
		return 2
	}
	serve := func(ctx context.Context, in io.Reader, out io.Writer) error {
		return lspserver.Serve(ctx, in, out, lspserver.Options{Log: slog.New(slog.DiscardHandler)})
	}
	if err := script.Demo(ctx, stdout, file, serve); err != nil {
		if errors.Is(err, fs.ErrNotExist) && file == defaultDemo {
			fmt.Fprintf(stderr, "toolhost demo: %s not found: run it from the repository root (make demo), or pass a session file\n", defaultDemo)
			return 1
		}
		fmt.Fprintf(stderr, "toolhost demo: %v\n", err)
		return 1
	}
	return 0
}
