package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// windowFile is a file's lines as a backend reports them, for the window
// tests: line numbers with gaps, every third one a context line when
// context is asked for.
type windowFile struct {
	path  string
	lines []hitLine
}

// windowFiles makes n files of 0 to 40 lines in a fixed pseudo-random
// shape; with parts, each line also has 0 to 2 matched parts (-o).
func windowFiles(n int, parts bool) []windowFile {
	rng := rand.New(rand.NewPCG(21, uint64(n)))
	var files []windowFile
	for i := range n {
		f := windowFile{path: fmt.Sprintf("/t/d%02d/f%03d.%s", rng.IntN(7), i, []string{"go", "md", "txt"}[i%3])}
		num := 0
		for j := range 1 + rng.IntN(40) {
			num += 1 + rng.IntN(3)*rng.IntN(2) // runs of adjacent lines, and gaps
			l := hitLine{num: num, text: fmt.Sprintf("line %d of %s", num, f.path), match: j%3 != 1}
			if parts {
				for k := range rng.IntN(3) {
					l.parts = append(l.parts, "part"+strconv.Itoa(k))
				}
			}
			f.lines = append(f.lines, l)
		}
		files = append(files, f)
	}
	return files
}

// feedWindow hands files to w as ripgrep reports them: line by line, in
// the order given, a file's lines together or (interleaved) taking turns.
func feedWindow(w *window, files []windowFile, interleaved bool) {
	feed := func(f windowFile, l hitLine) {
		h := w.file([]byte(f.path))
		if l.match {
			h.count++
		}
		if w.onlyMatching {
			w.put(h, hitLine{num: l.num, text: l.text, match: l.match, parts: slices.Clone(l.parts)})
		} else {
			w.line(h, l.num, []byte(l.text), l.match)
		}
	}
	if !interleaved {
		for _, f := range files {
			for _, l := range f.lines {
				feed(f, l)
			}
		}
		return
	}
	for i := 0; ; i++ {
		fed := false
		for _, f := range files {
			if i < len(f.lines) {
				feed(f, f.lines[i])
				fed = true
			}
		}
		if !fed {
			return
		}
	}
}

// TestWindowShowsWhatKeepingEverythingShows: whatever the order in which
// files and lines arrive, a window that keeps only what head_limit and
// offset can show gives the same result, text and structured output, as
// one that keeps every line; and it holds about need entries, not all.
func TestWindowShowsWhatKeepingEverythingShows(t *testing.T) {
	kinds := map[string]int{".md": 0, ".go": 1, ".txt": 2}
	byKind := func(path string) int { return kinds[filepath.Ext(path)] }
	type query struct {
		name         string
		context      bool
		onlyMatching bool
		rank         func(string) int
	}
	queries := []query{
		{name: "lines"},
		{name: "context", context: true},
		{name: "only matching", onlyMatching: true},
		{name: "by kind", rank: byKind},
		{name: "context by kind", context: true, rank: byKind},
	}
	orders := map[string]func([]windowFile) []windowFile{
		"sorted": func(f []windowFile) []windowFile {
			return slices.SortedFunc(slices.Values(f), func(a, b windowFile) int { return strings.Compare(a.path, b.path) })
		},
		"reversed": func(f []windowFile) []windowFile {
			s := slices.SortedFunc(slices.Values(f), func(a, b windowFile) int { return strings.Compare(a.path, b.path) })
			slices.Reverse(s)
			return s
		},
		"shuffled": func(f []windowFile) []windowFile {
			s := slices.Clone(f)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
			return s
		},
	}
	windows := []struct{ limit, offset int }{{1, 0}, {3, 0}, {25, 0}, {25, 40}, {250, 0}, {10, 290}, {5, 5000}, {0, 0}, {0, 30}}
	for _, qc := range queries {
		files := windowFiles(60, qc.onlyMatching)
		for orderName, order := range orders {
			for _, interleaved := range []bool{false, true} {
				for _, win := range windows {
					name := fmt.Sprintf("%s/%s/interleaved=%v/limit=%d,offset=%d", qc.name, orderName, interleaved, win.limit, win.offset)
					t.Run(name, func(t *testing.T) {
						q := &grepQuery{mode: ModeContent, onlyMatching: qc.onlyMatching, rank: qc.rank}
						if qc.context {
							q.before, q.after = 1, 1
						}
						all := newWindow(q) // need 0: keeps every line
						feedWindow(all, order(files), interleaved)
						q.need = windowNeed(win.limit, win.offset)
						w := newWindow(q)
						feedWindow(w, order(files), interleaved)

						if win.limit > 0 {
							if held := w.heldEntries; held > 2*q.need+1 {
								t.Errorf("the window holds %d entries for a need of %d", held, q.need)
							}
						}
						wantText, wantOut := formatGrep(q, all.files, true, win.limit, win.offset)
						gotText, gotOut := formatGrep(q, w.files, true, win.limit, win.offset)
						if gotText != wantText {
							t.Errorf("window's result differs from keeping everything\n--- got\n%s\n--- want\n%s", gotText, wantText)
						}
						if fmt.Sprint(gotOut) != fmt.Sprint(wantOut) {
							t.Errorf("structured output: got %+v, want %+v", gotOut, wantOut)
						}
					})
				}
			}
		}
	}
}

// rgTextOutput is ripgrep's plain content output for files files of
// lines matching lines each, as Grep asks for it.
func rgTextOutput(files, lines int) []byte {
	var b bytes.Buffer
	for f := range files {
		for l := 1; l <= lines; l++ {
			fmt.Fprintf(&b, "/tree/dir%d/file%d.go\x00%d:%d:\tline %d matches e somewhere\n", f%10, f, l, l*40, l)
		}
	}
	return b.Bytes()
}

// TestParseRgTextAllocatesPerFileNotPerLine: reading ripgrep's output
// costs allocations for each file and for the lines the window keeps,
// none for the lines past the window, however many.
func TestParseRgTextAllocatesPerFileNotPerLine(t *testing.T) {
	allocs := func(lines int) float64 {
		out := rgTextOutput(50, lines)
		return testing.AllocsPerRun(5, func() {
			w := newWindow(&grepQuery{mode: ModeContent, need: DefaultHeadLimit})
			if _, err := parseRgText(bytes.NewReader(out), w, maxCollectedBytes, nil); err != nil {
				t.Fatal(err)
			}
			if len(w.files) != 50 {
				t.Fatalf("%d files, want 50", len(w.files))
			}
		})
	}
	few, many := allocs(10), allocs(2000)
	t.Logf("allocations: %.0f for 10 lines a file, %.0f for 2,000", few, many)
	if many > few+50 {
		t.Errorf("%.0f allocations for 2,000 lines a file against %.0f for 10: lines past the window are allocated", many, few)
	}
}

// BenchmarkParseRgText reads ripgrep's output for a pattern matching many
// lines (20,000 files of 33 lines: the shape of "e" on the benchmark
// tree), where the result shows 250 of them.
func BenchmarkParseRgText(b *testing.B) {
	out := rgTextOutput(20000, 33)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		w := newWindow(&grepQuery{mode: ModeContent, need: DefaultHeadLimit})
		if _, err := parseRgText(bytes.NewReader(out), w, maxCollectedBytes, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGrepWindowAgreesWithTheWholeResult: on a tree, with each backend, a
// page of a content result (head_limit and offset) is that page of the
// whole result (head_limit 0), and it says truly how many entries follow.
func TestGrepWindowAgreesWithTheWholeResult(t *testing.T) {
	ws, _ := generatedWorkspace(t, 300)
	inputs := []map[string]any{
		{"pattern": "e", "output_mode": "content"},
		{"pattern": "server", "output_mode": "content", "-C": 2},
		{"pattern": `\w+rror`, "output_mode": "content", "-o": true, "-i": true},
		{"pattern": `\{\n\s+\w+`, "output_mode": "content", "multiline": true},
	}
	pages := []struct{ limit, offset int }{{1, 0}, {250, 0}, {40, 123}, {7, 2000}}
	for backend, rgPath := range folderBackends(t) {
		g := NewGrep(ws, rgPath)
		for _, in := range inputs {
			whole := maps.Clone(in)
			whole["head_limit"] = 0
			res := run(t, g, whole)
			if res.IsError || strings.Contains(res.Text(), "stopped early") {
				t.Fatalf("%s %v: %.300s", backend, in, res.Text())
			}
			lines := strings.Split(res.Structured.(GrepOutput).Content, "\n")
			if len(lines) < 50 {
				t.Fatalf("%s %v: only %d entries; the test wants many", backend, in, len(lines))
			}
			for _, p := range pages {
				page := maps.Clone(in)
				page["head_limit"], page["offset"] = p.limit, p.offset
				t.Run(fmt.Sprintf("%s/%v/limit=%d,offset=%d", backend, in["pattern"], p.limit, p.offset), func(t *testing.T) {
					res := run(t, g, page)
					out := res.Structured.(GrepOutput)
					from, to := min(p.offset, len(lines)), min(p.offset+p.limit, len(lines))
					if want := strings.Join(lines[from:to], "\n"); out.Content != want {
						t.Errorf("page differs from the whole result's\n--- got\n%.2000s\n--- want\n%.2000s", out.Content, want)
					}
					if out.TotalLines != len(lines) || out.NumLines != to-from {
						t.Errorf("totalLines %d, numLines %d; want %d and %d", out.TotalLines, out.NumLines, len(lines), to-from)
					}
					more := len(lines) - to
					note := fmt.Sprintf("[%d more entries not shown. Pass offset: %d", more, to)
					if more > 0 && from < to && !strings.Contains(res.Text(), note) {
						t.Errorf("no %q in %.300q", note, res.Text()[len(out.Content):])
					}
					if from == to && !strings.Contains(res.Text(), fmt.Sprintf("there are only %d entries", len(lines))) {
						t.Errorf("past the end: %.300q", res.Text())
					}
				})
			}
		}
	}
}

// TestSkimPartsCountsAsDecoding: for a match message of ripgrep's --json
// output, skimParts finds the same file and counts the same -o parts as
// decoding it and splitting it as the Go backend does.
func TestSkimPartsCountsAsDecoding(t *testing.T) {
	// msg is ripgrep's message for a match on line, with the submatches
	// subs (byte ranges of line), each given as text or, not UTF-8, as
	// bytes.
	msg := func(path, line string, subs ...[2]int) string {
		data := func(s string) string {
			if utf8.ValidString(s) {
				b, _ := json.Marshal(map[string]string{"text": s})
				return string(b)
			}
			b, _ := json.Marshal(map[string][]byte{"bytes": []byte(s)})
			return string(b)
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"match","data":{"path":%s,"lines":%s,"line_number":3,"absolute_offset":10,"submatches":[`, data(path), data(line))
		for i, s := range subs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"match":%s,"start":%d,"end":%d}`, data(line[s[0]:s[1]]), s[0], s[1])
		}
		b.WriteString("]}}")
		return b.String()
	}
	tests := []struct {
		name string
		msg  string
		want int
	}{
		{"one part", msg("a.go", "x := 1\n", [2]int{0, 1}), 1},
		{"several", msg("a.go", "e e e\n", [2]int{0, 1}, [2]int{2, 3}, [2]int{4, 5}), 3},
		{"an empty match", msg("a.go", "abc\n", [2]int{1, 1}, [2]int{1, 2}), 1},
		{"a carriage return alone", msg("w.txt", "ab\r\n", [2]int{2, 3}), 0},
		{"ending in a carriage return", msg("w.txt", "ab\r\n", [2]int{1, 3}), 1},
		{"two carriage returns", msg("w.txt", "\r\r\n", [2]int{0, 2}), 1},
		{"quotes and braces in the texts", msg(`d/"q"{"match":{.go`, `say "hi" {"match":{"text":""}}`+"\n", [2]int{4, 8}), 1},
		{"a path not UTF-8", msg("/t/a\xff.go", "zz\n", [2]int{0, 1}, [2]int{1, 2}), 2},
		{"a part not UTF-8", msg("b.bin", "\xffab\n", [2]int{0, 1}), 1},
		{"a backslash before the quote", msg(`c:\`, `a\`+"\n", [2]int{0, 2}), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m rgMessage
			if err := json.Unmarshal([]byte(tc.msg), &m); err != nil {
				t.Fatalf("the test's message is not JSON: %v\n%s", err, tc.msg)
			}
			var split fileHits
			subs := make([][2]int, len(m.Data.Submatches))
			for i, s := range m.Data.Submatches {
				subs[i] = [2]int{s.Start, s.End}
			}
			split.addMatch(m.Data.LineNumber, m.Data.Lines.String(), subs)
			decoded := 0
			for _, l := range split.lines {
				decoded += len(l.parts)
			}
			path, parts, ok := skimParts([]byte(tc.msg))
			if !ok {
				t.Fatalf("skimParts refused %s", tc.msg)
			}
			var p rgData
			if err := json.Unmarshal(path, &p); err != nil || p.String() != m.Data.Path.String() {
				t.Errorf("path %s (%v), want %q", path, err, m.Data.Path.String())
			}
			if parts != decoded || parts != tc.want {
				t.Errorf("skimParts counts %d parts, decoding %d, want %d", parts, decoded, tc.want)
			}
		})
	}
	for _, notMatch := range []string{`{"type":"context","data":{"path":{"text":"a"}}}`, `{"type":"match","data":{"path":{"text":"a`} {
		if _, _, ok := skimParts([]byte(notMatch)); ok {
			t.Errorf("skimParts took %s", notMatch)
		}
	}
}
