package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// runTrust handles `toolhost trust [DIR]`, `toolhost trust --revoke DIR` and
// `toolhost trust --list`. Trust is kept in the user's config folder, keyed
// by the folder's real path; running sessions notice the change and reload
// their settings.
func runTrust(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	revoke := fs.Bool("revoke", false, "stop trusting DIR")
	list := fs.Bool("list", false, "list the trusted folders")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: toolhost trust [DIR]          trust DIR (default: the current folder)
       toolhost trust --revoke DIR  stop trusting DIR
       toolhost trust --list        list the trusted folders

A folder's own settings (.toolhost/settings.json, .toolhost/settings.local.json)
and .mcp.json may only restrict toolhost until you trust the folder: its hooks,
MCP servers, allow rules, looser modes and extra directories are ignored.
Trusting a folder trusts the folders under it too.`)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	tf := settings.TrustFile{Path: settings.DefaultTrustFilePath()}
	switch {
	case *list:
		if fs.NArg() != 0 || *revoke {
			fs.Usage()
			return 2
		}
		folders, err := tf.List()
		if err != nil {
			fmt.Fprintf(stderr, "toolhost trust: %v\n", err)
			return 1
		}
		if len(folders) == 0 {
			fmt.Fprintf(stdout, "No trusted folders (%s).\n", tf.Path)
		}
		for _, f := range folders {
			fmt.Fprintf(stdout, "%s\t(since %s)\n", f.Path, f.TrustedAt.Format("2006-01-02 15:04 MST"))
		}
		return 0
	case *revoke:
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "toolhost trust --revoke: name the folder to stop trusting (toolhost trust --list shows them)")
			return 2
		}
		found, err := tf.Revoke(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(stderr, "toolhost trust: %v\n", err)
			return 1
		}
		if !found {
			fmt.Fprintf(stderr, "toolhost trust: %s was not trusted (toolhost trust --list shows the trusted folders)\n", fs.Arg(0))
			return 1
		}
		if by, still := tf.Covers(fs.Arg(0)); still {
			fmt.Fprintf(stdout, "No longer trusted on its own, but still trusted through %s.\n", by)
			return 0
		}
		shown := fs.Arg(0)
		if real, err := settings.RealPath(shown); err == nil {
			shown = real
		}
		fmt.Fprintf(stdout, "No longer trusted: %s. Its settings may only restrict again; running sessions reload them.\n", shown)
		return 0
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	real, err := settings.RealPath(dir)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost trust: %v\n", err)
		return 1
	}
	// Show what trusting turns on before it does.
	if sess, err := session.New(session.Options{Roots: []string{real}, Mode: tools.ModeDefault, NoMCP: true}); err == nil {
		items := sess.UntrustedItems(real)
		sess.Close()
		if len(items) > 0 {
			fmt.Fprintln(stdout, "Trusting it turns on:")
			for _, i := range items {
				fmt.Fprintf(stdout, "  - %s (%s)\n", i.What, i.File)
			}
		}
	}
	if _, err := tf.Trust(real); err != nil {
		fmt.Fprintf(stderr, "toolhost trust: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Trusted: %s (kept in %s). It and every folder under it are trusted; running sessions reload their settings. toolhost trust --revoke %s undoes it.\n", real, tf.Path, real)
	return 0
}
