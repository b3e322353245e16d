package search

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/workspace"
)

// newLongLineReader streams ripgrep --json output whose second message is
// a match on a line of n bytes, without holding the line in memory.
func newLongLineReader(n int64) io.Reader {
	begin := `{"type":"begin","data":{"path":{"text":"min.js"}}}` + "\n"
	head := `{"type":"match","data":{"path":{"text":"min.js"},"lines":{"text":"`
	foot := `\n"},"line_number":7,"absolute_offset":0,"submatches":[{"match":{"text":"x"},"start":0,"end":1}]}}` + "\n"
	small := `{"type":"match","data":{"path":{"text":"a.go"},"lines":{"text":"x := 1\n"},"line_number":3,"absolute_offset":0,"submatches":[{"match":{"text":"x"},"start":0,"end":1}]}}` + "\n"
	return io.MultiReader(strings.NewReader(begin+head), io.LimitReader(repeatByte('a'), n), strings.NewReader(foot+small))
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestParseRgJSONOmitsHugeLines: a matching line longer than ripgrep's
// output reader keeps (here 300 MiB, past what a line scanner would hold)
// is reported on its line as omitted, and the search goes on to the next
// match, instead of failing the whole Grep.
func TestParseRgJSONOmitsHugeLines(t *testing.T) {
	w := newWindow(&grepQuery{mode: ModeContent})
	stopped, err := parseRgJSON(newLongLineReader(300<<20), w, maxCollectedBytes)
	hits := w.files
	if err != nil || stopped {
		t.Fatalf("parseRgJSON: stopped=%v err=%v", stopped, err)
	}
	if len(hits) != 2 {
		t.Fatalf("got %d files, want min.js and a.go", len(hits))
	}
	long := hits[0]
	if long.path != "min.js" || len(long.lines) != 1 || long.lines[0].num != 7 || !strings.Contains(long.lines[0].text, "Omitted long matching line: about 300 MiB") {
		t.Errorf("long line: %+v", long)
	}
	if got := hits[1]; got.path != "a.go" || len(got.lines) != 1 || got.lines[0].text != "x := 1" {
		t.Errorf("next match: %+v", got)
	}
}

func TestFindLineNumber(t *testing.T) {
	for in, want := range map[string]int{
		`"},"line_number":42,"abs`:           42,
		`"},"line_number":42`:                0, // may go on
		`no key here`:                        0,
		`\"line_number\":5 "line_number":6,`: 6,
	} {
		if got := findLineNumber([]byte(in)); got != want {
			t.Errorf("findLineNumber(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestGoGrepOmitsHugeLines: the Go backend shows a matching line longer
// than maxRgLine as omitted, as the ripgrep backend does, instead of
// copying it into the results (past maxCollectedBytes, the search used to
// stop with no line shown at all).
func TestGoGrepOmitsHugeLines(t *testing.T) {
	old := maxCollectedBytes
	maxCollectedBytes = 4 << 20
	defer func() { maxCollectedBytes = old }()
	dir := t.TempDir()
	big := append(bytes.Repeat([]byte("a"), maxRgLine+1<<20), []byte("NEEDLE\n")...)
	if err := os.WriteFile(filepath.Join(dir, "min.js"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, NewGrep(workspace.New(dir), ""), map[string]any{"pattern": "NEEDLE", "output_mode": "content"})
	if res.IsError || !strings.Contains(res.Text(), "min.js:1:[Omitted long matching line: about 9 MiB") || strings.Contains(res.Text(), "stopped early") {
		t.Errorf("got %.300q, want the line shown as omitted", res.Text())
	}
}

// TestOmittedLineSizeIsTheLines: ripgrep's message for a line that matches
// everywhere lists every submatch, tens of times the line's size; the note
// gives the line's own size.
func TestOmittedLineSizeIsTheLines(t *testing.T) {
	for _, tt := range []struct {
		name string
		line int64
		want string
	}{
		{"2 MiB line, 40 MiB of submatches", 2 << 20, "about 2 MiB"},
		{"9 MiB line, 40 MiB of submatches", 9 << 20, "about 9 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := `{"type":"match","data":{"path":{"text":"min.js"},"lines":{"text":"`
			mid := `\n"},"line_number":7,"absolute_offset":0,"submatches":[`
			sub := `{"match":{"text":"a"},"start":0,"end":1},`
			foot := `{"match":{"text":"a"},"start":0,"end":1}]}}` + "\n"
			r := io.MultiReader(strings.NewReader(head), io.LimitReader(repeatByte('a'), tt.line), strings.NewReader(mid),
				io.LimitReader(&repeatString{s: sub}, 40<<20), strings.NewReader(foot))
			w := newWindow(&grepQuery{mode: ModeContent})
			_, err := parseRgJSON(r, w, maxCollectedBytes)
			hits := w.files
			if err != nil || len(hits) != 1 || len(hits[0].lines) != 1 {
				t.Fatalf("parseRgJSON: %v %+v", err, hits)
			}
			if got := hits[0].lines[0].text; !strings.Contains(got, tt.want) || hits[0].lines[0].num != 7 {
				t.Errorf("note %q on line %d, want %q on line 7", got, hits[0].lines[0].num, tt.want)
			}
		})
	}
}

// repeatString reads s over and over.
type repeatString struct {
	s   string
	off int
}

func (r *repeatString) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.off:])
		n += c
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}

// TestGrepOfALineMatchingEverywhere: a 10 MiB line that matches at every
// byte, in a folder and as a single file, comes back as a bounded note
// that gives the line's own size, and the lines around it as usual.
func TestGrepOfALineMatchingEverywhere(t *testing.T) {
	dir := t.TempDir()
	big := append([]byte("a\n"), bytes.Repeat([]byte("a"), 10<<20)...)
	big = append(big, "\na\n"...)
	if err := os.WriteFile(filepath.Join(dir, "min.js"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	backends := folderBackends(t)
	if rg := FindRipgrep(); rg != "" {
		// A single file is searched by rg without a jail.
		backends["ripgrep"] = rg
	}
	for backend, rgPath := range backends {
		for _, path := range []string{dir, filepath.Join(dir, "min.js")} {
			t.Run(backend+"/"+filepath.Base(path), func(t *testing.T) {
				start := time.Now()
				res := run(t, NewGrep(workspace.New(dir), rgPath), map[string]any{"pattern": "a", "output_mode": "content", "-n": true, "path": path})
				t.Logf("%s took %v", backend, time.Since(start))
				text := res.Text()
				if res.IsError || len(text) > 4096 {
					t.Fatalf("got %d bytes (error %v): %.300q", len(text), res.IsError, text)
				}
				for _, want := range []string{"min.js:1:a\n", "min.js:2:[Omitted long matching line: about 10 MiB", "min.js:3:a"} {
					if !strings.Contains(text, want) {
						t.Errorf("no %q in %q", want, text)
					}
				}
			})
		}
	}
}
