// Package search holds the tools that find files and text in the workspace:
// Glob (files by name pattern), Grep (text by regular expression, through
// ripgrep when it is installed and a Go implementation otherwise), LS (one
// folder) and Tree (a folder tree). All of them skip what .gitignore,
// .ignore and .rgignore files exclude and the folders of version-control
// systems, the way ripgrep does (see internal/ignore).
package search

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// resolveDir turns an optional path from tool input into an absolute path
// that exists; an empty path means the first workspace root. The Result is
// set when the path is unusable and says why.
func resolveDir(ws *workspace.Workspace, path string, wantDir bool) (string, os.FileInfo, *tools.Result) {
	if strings.TrimSpace(path) == "" {
		path = ws.Root()
	}
	abs, err := ws.Resolve(path)
	if err != nil {
		return "", nil, tools.ErrorResult("%v", err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil, tools.ErrorResult("the path %s does not exist. Give an existing folder, absolute or relative to %s, or omit path to use the workspace root.", abs, ws.Root())
		}
		return "", nil, tools.ErrorResult("cannot read %s: %v", abs, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return "", nil, tools.ErrorResult("%v.", &workspace.NotRegularError{Path: abs, Mode: info.Mode()})
	}
	if wantDir && !info.IsDir() {
		return "", nil, tools.ErrorResult("%s is a file, not a folder. Give the folder that contains it.", abs)
	}
	return abs, info, nil
}

// decodeInput unmarshals a tool's input; a failure is a result the model can
// act on.
func decodeInput(tool string, input json.RawMessage, v any) *tools.Result {
	if err := json.Unmarshal(input, v); err != nil {
		return tools.ErrorResult("the input of %s is not valid: %v. Send a JSON object with the fields of its schema.", tool, err)
	}
	return nil
}

// readPaths is the Access of a call that reads under path (or the root).
func readPaths(path string) tools.Access {
	if strings.TrimSpace(path) == "" {
		path = "."
	}
	return tools.Access{ReadPaths: []string{path}}
}

// plural returns "1 file" or "n files".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// folderLine is the first line of LS and Tree: the folder listed, ending in
// a slash, as visible.Name shows it.
func folderLine(dir string) string {
	return visible.Name(strings.TrimSuffix(dir, "/")) + "/\n"
}
