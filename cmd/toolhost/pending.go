package main

import (
	"context"
	"fmt"
	"io"
)

// The commands below are wired as their packages land.

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolhost serve: not built in this revision")
	return 1
}

func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolhost mcp: not built in this revision")
	return 1
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolhost demo: not built in this revision")
	return 1
}

func toolsDocs(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolhost tools docs: not built in this revision")
	return 1
}

func toolsSetEnabled(enable bool, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolhost tools enable/disable: not built in this revision")
	return 1
}
