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
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	if runtime.GOOS == "windows" {
		u.Host, u.Path = windowsURIPath(abs)
	}
	return u.String()
}

// windowsURIPath splits a Windows path into a file URI's host and path:
// C:\x → "", /C:/x; \\server\share\x → server, /share/x. A long-path
// prefix (\\?\, \\?\UNC\) is the API's, not the file's name, and is dropped.
// Pure string work, so that it is tested on every system.
func windowsURIPath(abs string) (host, path string) {
	switch {
	case strings.HasPrefix(abs, `\\?\UNC\`):
		abs = `\\` + abs[len(`\\?\UNC\`):]
	case strings.HasPrefix(abs, `\\?\`):
		abs = abs[len(`\\?\`):]
	}
	p := strings.ReplaceAll(abs, `\`, "/")
	if rest, ok := strings.CutPrefix(p, "//"); ok {
		host, path, _ = strings.Cut(rest, "/")
		return host, "/" + path
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	return "", p
}

// windowsPath turns a file URI's host and (decoded) path into a Windows
// path: /c:/x (VS Code sends file:///c%3A/x) → C:\x, with the drive letter
// upper-cased as Windows' own calls give it so that one file has one path;
// host server, /share/x → \\server\share\x. ok is false for a path that is
// not absolute.
func windowsPath(host, p string) (path string, ok bool) {
	if host != "" && !strings.EqualFold(host, "localhost") {
		share := strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", `\`)
		return `\\` + host + `\` + share, share != ""
	}
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	if len(p) < 2 || p[1] != ':' || !isASCIILetter(p[0]) {
		return "", false
	}
	p = strings.ToUpper(p[:1]) + strings.ReplaceAll(p[1:], "/", `\`)
	if len(p) == 2 {
		p += `\`
	}
	return p, p[2] == '\\'
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

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
	if runtime.GOOS == "windows" {
		// A host is a UNC server (file://server/share/x).
		p, ok := windowsPath(u.Host, u.Path) // url.Parse has already percent-decoded the path
		if !ok {
			return "", fmt.Errorf("file URI %q does not hold an absolute path", uri)
		}
		return filepath.Clean(p), nil
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("file URI %q names host %q: only local files are supported", uri, u.Host)
	}
	p := filepath.FromSlash(u.Path) // url.Parse has already percent-decoded it
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file URI %q does not hold an absolute path", uri)
	}
	return filepath.Clean(p), nil
}
