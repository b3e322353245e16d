package workspace

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// PathToURI turns an absolute file path into a file:// URI, percent-encoding
// what URIs cannot carry (spaces, '#', '?', non-ASCII bytes).
func PathToURI(abs string) string {
	p := filepath.ToSlash(abs)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String()
}

// URIToPath turns a file:// URI into an absolute, cleaned path. Other
// schemes (untitled:, https:, vscode-notebook-cell:) are an error rather than
// a guess: go.lsp.dev/uri panics on them, and the workspace only tracks files.
func URIToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("bad document URI %q: %w", uri, err)
	}
	if !strings.EqualFold(u.Scheme, "file") {
		return "", fmt.Errorf("unsupported URI scheme %q in %q: only file:// documents are tracked", u.Scheme, uri)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("file URI %q names host %q: only local files are supported", uri, u.Host)
	}
	p := u.Path // url.Parse has already percent-decoded it
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file URI %q does not hold an absolute path", uri)
	}
	return filepath.Clean(p), nil
}
