package workspace

import "testing"

func TestURIsOnWindows(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"file:///c%3A/Users/me/proj/main.go", `C:\Users\me\proj\main.go`},
		{"file:///C:/Users/me/a%20b.go", `C:\Users\me\a b.go`},
		{"file:///c%3A/x/../y", `C:\y`},
		{"file://server/share/f.txt", `\\server\share\f.txt`},
	}
	for _, tt := range tests {
		got, err := URIToPath(tt.uri)
		if err != nil || got != tt.want {
			t.Errorf("URIToPath(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
		back, err := URIToPath(PathToURI(got))
		if err != nil || back != got {
			t.Errorf("round trip of %q gave %q, %v", got, back, err)
		}
	}
	for _, bad := range []string{"file:///Users/me", "file:///c%3Arel"} {
		if got, err := URIToPath(bad); err == nil {
			t.Errorf("URIToPath(%q) = %q, want an error (not an absolute Windows path)", bad, got)
		}
	}
}
