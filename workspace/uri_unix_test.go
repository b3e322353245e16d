//go:build unix

package workspace

import (
	"strings"
	"testing"
)

func TestURIRoundTrip(t *testing.T) {
	for _, p := range []string{
		"/tmp/plain.go",
		"/tmp/with space/a#b?c.txt",
		"/tmp/ünïcödé/日本語.md",
		"/tmp/100%/x",
	} {
		uri := PathToURI(p)
		if !strings.HasPrefix(uri, "file:///") {
			t.Errorf("PathToURI(%q) = %q, want a file:/// URI", p, uri)
		}
		if strings.ContainsAny(uri[len("file://"):], " #?") {
			t.Errorf("PathToURI(%q) = %q leaves characters unescaped", p, uri)
		}
		back, err := URIToPath(uri)
		if err != nil || back != p {
			t.Errorf("URIToPath(%q) = %q, %v; want %q", uri, back, err, p)
		}
	}
}

func TestURIToPath(t *testing.T) {
	tests := []struct {
		uri     string
		want    string
		wantErr string
	}{
		{uri: "file:///home/u/a%20b.go", want: "/home/u/a b.go"},
		{uri: "file://localhost/etc/hosts", want: "/etc/hosts"},
		{uri: "FILE:///x/../y", want: "/y"},
		{uri: "file:///caf%C3%A9", want: "/café"},
		{uri: "untitled:Untitled-1", wantErr: "scheme"},
		{uri: "https://example.com/a.go", wantErr: "scheme"},
		{uri: "file://server/share/x", wantErr: "host"},
		{uri: "file:relative/x", wantErr: "absolute"},
		{uri: "file:///bad%zz", wantErr: "bad document URI"},
	}
	for _, tt := range tests {
		got, err := URIToPath(tt.uri)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("URIToPath(%q) = %q, %v; want error containing %q", tt.uri, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("URIToPath(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
}
