package udiff

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// numbered is n distinct lines of about 60 bytes.
func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %07d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return lines
}

// TestSparseChangesInBigTextStaySmall: changes far apart in a text well
// past GapSize give one small hunk each, not one hunk of everything
// between the first and the last change.
func TestSparseChangesInBigTextStaySmall(t *testing.T) {
	lines := numbered(40_000) // about 2.4 MB
	old := strings.Join(lines, "")
	changed := append([]string(nil), lines...)
	for _, i := range []int{0, 20_000, 39_999} {
		changed[i] = strings.ToUpper(changed[i])
	}
	new := strings.Join(changed, "")
	if len(old) < 4*GapSize {
		t.Fatalf("the text (%d bytes) must be well past GapSize", len(old))
	}

	changes := Changes(old, new)
	if len(changes) != 3 {
		t.Fatalf("got %d changes, want 3 (one per changed line): %+v", len(changes), changes)
	}
	for _, c := range changes {
		if c.OldEnd-c.OldStart != len(lines[0]) || c.NewEnd-c.NewStart != len(lines[0]) {
			t.Errorf("change %+v is not the one changed line", c)
		}
	}
	hunks := Hunks(old, new)
	wantStarts := []int{1, 19_998, 39_997}
	if len(hunks) != len(wantStarts) {
		t.Fatalf("got %d hunks, want %d", len(hunks), len(wantStarts))
	}
	for i, h := range hunks {
		if h.OldStart != wantStarts[i] || len(h.Lines) > 2*Context+2 {
			t.Errorf("hunk %d starts at %d with %d lines; want start %d and at most %d lines", i, h.OldStart, len(h.Lines), wantStarts[i], 2*Context+2)
		}
	}
	if got := apply(t, old, hunks); got != new {
		t.Fatal("applying the hunks does not give the new text")
	}
}

// TestBigRandomChangesApply: on texts past GapSize with random insertions,
// deletions, changed and repeated lines, the hunks turn old into new, and
// the changes tile both texts (between them, old and new are equal).
func TestBigRandomChangesApply(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	base := numbered(8_000) // about 480 KB
	for round := 0; round < 12; round++ {
		old := append([]string(nil), base...)
		// Repeated lines (never anchors) in some rounds.
		if round%3 == 0 {
			for i := 0; i < 500; i++ {
				old[r.Intn(len(old))] = "}\n"
			}
		}
		new := append([]string(nil), old...)
		for n := r.Intn(40) + 1; n > 0; n-- {
			i := r.Intn(len(new))
			switch r.Intn(4) {
			case 0:
				new = append(new[:i], new[i+1:]...)
			case 1:
				new = append(new[:i], append([]string{"inserted\n"}, new[i:]...)...)
			case 2:
				new[i] = "changed " + new[i]
			default: // a block moved: anchors out of order
				j := r.Intn(len(new))
				new[i], new[j] = new[j], new[i]
			}
		}
		if round%4 == 1 { // a last line without a newline
			new[len(new)-1] = strings.TrimSuffix(new[len(new)-1], "\n")
		}
		o, n := strings.Join(old, ""), strings.Join(new, "")
		// The anchors alone, as when no middle line splits the text.
		onlyAnchors := changer{old: o, new: n, splits: maxSplits}
		onlyAnchors.region(0, len(o), 0, len(n), true)
		for _, changes := range [][]Change{Changes(o, n), onlyAnchors.out} {
			po, pn := 0, 0
			for _, c := range changes {
				if c.OldStart < po || c.NewStart < pn || o[po:c.OldStart] != n[pn:c.NewStart] {
					t.Fatalf("round %d: change %+v does not follow equal text after %d/%d", round, c, po, pn)
				}
				po, pn = c.OldEnd, c.NewEnd
			}
			if o[po:] != n[pn:] {
				t.Fatalf("round %d: the texts differ after the last change", round)
			}
			hunks, _ := HunksOf(o, n, changes, -1)
			if got := apply(t, o, hunks); got != n {
				t.Fatalf("round %d: applying the hunks does not give the new text", round)
			}
			if len(changes) > 200 {
				t.Errorf("round %d: %d changes for at most 40 edits of lines", round, len(changes))
			}
		}
	}
}

// TestHunksOfCap: a patch past the limit keeps whole lines up to it, its
// hunks count only the lines they hold (so they still apply), and says how
// much was left out.
func TestHunksOfCap(t *testing.T) {
	lines := numbered(5_000)
	old := strings.Join(lines, "")
	new := strings.ToUpper(old)
	const limit = 64 << 10
	hunks, omitted := HunksOf(old, new, Changes(old, new), limit)
	if omitted == 0 {
		t.Fatal("a patch of about 600 KB under a 64 KB limit reports nothing omitted")
	}
	kept := 0
	for _, h := range hunks {
		plus, minus := 0, 0
		for _, l := range h.Lines {
			kept += len(l) + 1
			switch l[0] {
			case '+':
				plus++
			case '-':
				minus++
			}
		}
		if h.OldLines != minus || h.NewLines != plus {
			t.Errorf("hunk counts -%d +%d, holds -%d +%d", h.OldLines, h.NewLines, minus, plus)
		}
	}
	if kept > limit || kept < limit/2 {
		t.Errorf("kept %d bytes of lines under a limit of %d", kept, limit)
	}
	if kept+omitted < len(old)+len(new) {
		t.Errorf("kept %d + omitted %d is less than the whole change (%d)", kept, omitted, len(old)+len(new))
	}
	apply(t, old, hunks) // the partial patch still matches the old text
	if whole, omitted := HunksOf(old, new, Changes(old, new), -1); omitted != 0 || len(whole) != 1 || len(whole[0].Lines) != 10_000 {
		t.Errorf("without a limit: %d hunks, omitted %d", len(whole), omitted)
	}
}

// TestRewriteNeedsNoLineTables: a text past GapSize whose every line
// changed is one change, and finding that out allocates a small fraction
// of the text (the filter of the new side's lines), not tables of every
// line; a text with shared lines still finds its anchors through the
// filter.
func TestRewriteNeedsNoLineTables(t *testing.T) {
	old := strings.Join(numbered(40_000), "") // about 2.4 MB
	tests := []struct {
		name        string
		new         string
		wantChanges int
		maxAlloc    int
	}{
		{"every line changed", strings.ToUpper(old), 1, len(old) / 8},
		// Every other line changed: 20,000 anchors, which need their
		// table; only the count of changes is checked.
		{"every other line changed", everyOther(old), 20_000, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Change
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got = Changes(old, tt.new)
			runtime.ReadMemStats(&after)
			if len(got) != tt.wantChanges {
				t.Fatalf("got %d changes, want %d", len(got), tt.wantChanges)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; tt.maxAlloc >= 0 && alloc > uint64(tt.maxAlloc) {
				t.Errorf("Changes allocated %d bytes for a %d-byte text; want at most %d", alloc, len(old), tt.maxAlloc)
			}
		})
	}
}

// everyOther upper-cases every other line of text.
func everyOther(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i += 2 {
		lines[i] = strings.ToUpper(lines[i])
	}
	return strings.Join(lines, "")
}

// BenchmarkChangesRewrite is the line diff of a 5 MB text whose every line
// changed (a Write that rewrites a file).
func BenchmarkChangesRewrite(b *testing.B) {
	old := strings.Join(numbered(85_000), "")
	new := strings.ToUpper(old)
	b.SetBytes(int64(len(old)))
	b.ReportAllocs()
	for b.Loop() {
		Changes(old, new)
	}
}
