package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// referenceDoc returns the tool reference of the built-in tools. It is built
// in an empty workspace with no user settings, so the text depends on the
// code alone.
func referenceDoc() (string, error) {
	dir, err := os.MkdirTemp("", "toolhost-docs-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	sess, err := session.New(session.Options{
		Roots:          []string{dir},
		UserConfigPath: filepath.Join(dir, "no-user-settings.json"),
		NoMCP:          true,
	})
	if err != nil {
		return "", err
	}
	defer sess.Close()
	return tools.Reference(sess.Registry), nil
}

// toolsDocs writes the tool reference (docs/tools.md by default).
func toolsDocs(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "docs/tools.md", "where to write the reference ('-' for stdout)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	doc, err := referenceDoc()
	if err != nil {
		fmt.Fprintf(stderr, "toolhost tools docs: %v\n", err)
		return 1
	}
	if *out == "-" {
		fmt.Fprint(stdout, doc)
		return 0
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintf(stderr, "toolhost tools docs: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, []byte(doc), 0o644); err != nil {
		fmt.Fprintf(stderr, "toolhost tools docs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return 0
}

// toolsSetEnabled enables or disables tools in the workspace's
// .toolhost/settings.local.json (tools.enabled / tools.disabled). Names are
// checked against the built-in tools; MCP tool names (mcp__…) and prefixes
// ending in "*" are taken as given.
func toolsSetEnabled(enable bool, args []string, stdout, stderr io.Writer) int {
	verb := map[bool]string{true: "enable", false: "disable"}[enable]
	fs := flag.NewFlagSet("tools "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root (default: the current directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "Usage: toolhost tools %s [--root DIR] NAME...\n", verb)
		return 2
	}
	sess, err := newCLISession(*root, tools.ModeDefault)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost: %v\n", err)
		return 1
	}
	defer sess.Close()
	var names, unknown, optIn []string
	for _, n := range fs.Args() {
		if strings.HasPrefix(n, "mcp__") || strings.HasSuffix(n, "*") {
			names = append(names, n)
			continue
		}
		e, ok := sess.Registry.Lookup(n)
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		names = append(names, e.Tool.Name())
		if e.OptIn {
			optIn = append(optIn, e.Tool.Name())
		}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(stderr, "toolhost tools %s: unknown tools: %s (see toolhost tools list)\n", verb, strings.Join(unknown, ", "))
		return 1
	}
	store, wsRoot := sess.Settings, sess.Workspace.Root()
	if len(optIn) > 0 {
		// Opt-in tools (off by default) are turned on and off in tools.optIn.
		if enable {
			err = store.UpdateLocalList(wsRoot, "tools.optIn", optIn, nil)
		} else {
			err = store.UpdateLocalList(wsRoot, "tools.optIn", nil, optIn)
		}
	}
	switch {
	case err != nil:
	case enable:
		err = store.UpdateLocalList(wsRoot, "tools.disabled", nil, names)
		if err == nil && len(store.Current().Tools.Enabled) > 0 {
			err = store.UpdateLocalList(wsRoot, "tools.enabled", names, nil)
		}
	default:
		err = store.UpdateLocalList(wsRoot, "tools.enabled", nil, names)
		if err == nil {
			err = store.UpdateLocalList(wsRoot, "tools.disabled", names, nil)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolhost tools %s: %v\n", verb, err)
		return 1
	}
	for _, n := range names {
		e, ok := sess.Registry.Lookup(n)
		switch {
		case ok && e.Enabled != enable && enable && !sess.Settings.Current().Trust.Trusted(wsRoot):
			// The folder's own settings may only turn tools off until it
			// is trusted.
			fmt.Fprintf(stdout, "%s: saved, but %s is not a trusted folder, so its settings may only turn tools off; run %s to apply them\n", n, wsRoot, session.TrustCommand(wsRoot))
		case ok && e.Enabled != enable:
			fmt.Fprintf(stdout, "%s: still %sd by another settings file (tools.enabled/tools.disabled); see toolhost tools list\n", n, map[bool]string{true: "disable", false: "enable"}[enable])
		default:
			fmt.Fprintf(stdout, "%s %sd\n", n, verb)
		}
	}
	fmt.Fprintf(stdout, "saved in %s\n", settings.LocalPath(wsRoot))
	return 0
}
