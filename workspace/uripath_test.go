package workspace

import "testing"

// The Windows mapping between paths and file URIs is string work, tested
// on every system; uri_windows_test.go runs it through the exported calls.

func TestWindowsPathFromURI(t *testing.T) {
	tests := []struct {
		name, host, path string
		want             string
		ok               bool
	}{
		{"VS Code's form (colon encoded, decoded by url.Parse)", "", "/c:/Users/me/a b.go", `C:\Users\me\a b.go`, true},
		{"upper-case drive", "", "/D:/x", `D:\x`, true},
		{"drive root", "", "/c:/", `C:\`, true},
		{"bare drive", "", "/c:", `C:\`, true},
		{"localhost", "localhost", "/c:/x", `C:\x`, true},
		{"UNC share", "server", "/share/dir/f.txt", `\\server\share\dir\f.txt`, true},
		{"UNC without a share", "server", "/", "", false},
		{"no drive", "", "/Users/me", "", false},
		{"drive-relative", "", "/c:x", "", false},
		{"not a letter", "", "/1:/x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := windowsPath(tt.host, tt.path)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("windowsPath(%q, %q) = %q, %v; want %q, %v", tt.host, tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestWindowsURIPath(t *testing.T) {
	tests := []struct {
		abs, host, path string
	}{
		{`C:\Users\me\a.go`, "", "/C:/Users/me/a.go"},
		{`C:/mixed\seps/a.go`, "", "/C:/mixed/seps/a.go"},
		{`\\server\share\x`, "server", "/share/x"},
		{`\\?\C:\very\long\path`, "", "/C:/very/long/path"},
		{`\\?\UNC\server\share\x`, "server", "/share/x"},
	}
	for _, tt := range tests {
		host, path := windowsURIPath(tt.abs)
		if host != tt.host || path != tt.path {
			t.Errorf("windowsURIPath(%q) = %q, %q; want %q, %q", tt.abs, host, path, tt.host, tt.path)
		}
		// And back: the path a URI of it maps to is the file's.
		back, ok := windowsPath(host, path)
		if !ok {
			t.Errorf("windowsPath(%q, %q) refused the URI path of %q", host, path, tt.abs)
		}
		if host == "" && back[:1] != tt.path[1:2] {
			t.Errorf("drive of %q came back as %q", tt.abs, back)
		}
	}
}
