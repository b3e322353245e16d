package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/toolhost/toolhost/tools"
)

// runTools handles `toolhost tools list|docs|enable|disable`.
func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	sub := "list"
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list":
		return toolsList(stdout, stderr)
	case "docs":
		return toolsDocs(args, stdout, stderr)
	case "lm":
		return toolsLM(args, stdout, stderr)
	case "enable", "disable":
		return toolsSetEnabled(sub == "enable", args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "toolhost tools: unknown subcommand %q: use list, docs, lm, enable or disable\n", sub)
	return 2
}

func toolsList(stdout, stderr io.Writer) int {
	sess, err := newCLISession("", tools.ModeDefault)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost: %v\n", err)
		return 1
	}
	defer sess.Close()
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCATEGORY\tSIDE EFFECT\tENABLED\tSUMMARY")
	for _, e := range sess.Registry.Entries(true) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", e.Tool.Name(), e.Category, e.Tool.SideEffect(), e.Enabled, summary(e.Tool))
	}
	tw.Flush()
	return 0
}

// summary is a tool's short documentation, else its description's first line.
func summary(t tools.Tool) string {
	if d, ok := t.(tools.Documented); ok && d.Docs().Short != "" {
		return d.Docs().Short
	}
	desc := t.Description()
	for i, r := range desc {
		if r == '\n' || r == '.' {
			return desc[:i]
		}
	}
	return desc
}
