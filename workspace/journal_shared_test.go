package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// TestJournalSharedByTwoServers runs two journals on one folder, as two
// editor windows on one workspace do: neither may lose the other's lines.
func TestJournalSharedByTwoServers(t *testing.T) {
	type step struct {
		server int // 0 or 1
		turn   string
	}
	tests := []struct {
		name     string
		turnsMax int
		steps    []step
		// want are the turns every journal (and a fresh one) lists,
		// oldest first.
		want []string
	}{
		{
			name:     "each sees the other's changes",
			turnsMax: 10,
			steps:    []step{{0, "t1"}, {1, "t2"}, {0, "t3"}},
			want:     []string{"t1", "t2", "t3"},
		},
		{
			name:     "a trim keeps the other's newer turns",
			turnsMax: 2,
			steps:    []step{{0, "t1"}, {1, "t2"}, {0, "t3"}, {1, "t4"}},
			want:     []string{"t3", "t4"},
		},
		{
			name:     "a trim by one is read whole by the other",
			turnsMax: 2,
			steps:    []step{{0, "t1"}, {0, "t2"}, {1, "t3"}, {0, "t4"}, {1, "t5"}},
			want:     []string{"t4", "t5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, files := t.TempDir(), t.TempDir()
			opts := workspace.JournalOptions{TurnsMax: tt.turnsMax}
			servers := []*workspace.Journal{workspace.OpenJournal(dir, opts), workspace.OpenJournal(dir, opts)}
			for i, s := range tt.steps {
				ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: fmt.Sprintf("c%d", i), Agent: "a", Turn: s.turn})
				path := filepath.Join(files, s.turn)
				if err := servers[s.server].Record(ctx, nil, path, []byte("before "+s.turn), []byte("after "+s.turn)); err != nil {
					t.Fatal(err)
				}
			}
			for name, j := range map[string]*workspace.Journal{"first": servers[0], "second": servers[1], "restarted": workspace.OpenJournal(dir, opts)} {
				entries := j.Entries()
				var turns []string
				seqs := map[int64]bool{}
				for _, e := range entries {
					turns = append(turns, e.Turn)
					if seqs[e.Seq] {
						t.Errorf("%s server: number %d is given twice", name, e.Seq)
					}
					seqs[e.Seq] = true
					if _, err := j.Content(e.Before); err != nil {
						t.Errorf("%s server: %s lost its content before: %v", name, e.Turn, err)
					}
				}
				if !slices.Equal(turns, tt.want) {
					t.Errorf("%s server lists turns %v, want %v", name, turns, tt.want)
				}
			}
		})
	}
}

// TestJournalParallelAppends records from two journals on one folder at
// once: every line is whole and every number unique.
func TestJournalParallelAppends(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	servers := []*workspace.Journal{workspace.OpenJournal(dir, workspace.JournalOptions{}), workspace.OpenJournal(dir, workspace.JournalOptions{})}
	const perServer = 40
	var wg sync.WaitGroup
	for s, j := range servers {
		wg.Go(func() {
			for i := range perServer {
				ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: fmt.Sprintf("s%d-%d", s, i), Agent: "a", Turn: "t"})
				if err := j.Record(ctx, nil, filepath.Join(files, "f"), []byte(fmt.Sprint(i)), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	entries := workspace.OpenJournal(dir, workspace.JournalOptions{}).Entries()
	if len(entries) != 2*perServer {
		t.Fatalf("a fresh journal lists %d changes, want %d", len(entries), 2*perServer)
	}
	seqs := map[int64]bool{}
	for _, e := range entries {
		if seqs[e.Seq] {
			t.Errorf("number %d is given twice", e.Seq)
		}
		seqs[e.Seq] = true
	}
	data, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 2*perServer {
		t.Errorf("the log has %d lines, want %d", n, 2*perServer)
	}
}

// TestJournalAfterCutLine: a line a crash cut short is skipped, and the
// next change is not glued to it.
func TestJournalAfterCutLine(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(`{"seq":1,"turn":"t0","path":"/x","af`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: "c", Agent: "a", Turn: "t1"})
	if err := workspace.OpenJournal(dir, workspace.JournalOptions{}).Record(ctx, nil, filepath.Join(files, "f"), nil, []byte("x")); err != nil {
		t.Fatal(err)
	}
	entries := workspace.OpenJournal(dir, workspace.JournalOptions{}).Entries()
	if len(entries) != 1 || entries[0].Turn != "t1" {
		t.Errorf("after a cut line the journal lists %+v, want the one change of t1", entries)
	}
}

// BenchmarkJournalRecord is the journal's share of an Edit's cost: the
// lock across processes, the read of what another server appended, the
// append (1 KB contents, distinct each time; 50 turns, so no trim).
func BenchmarkJournalRecord(b *testing.B) {
	dir, files := b.TempDir(), b.TempDir()
	j := workspace.OpenJournal(dir, workspace.JournalOptions{})
	before := []byte(strings.Repeat("x", 1024))
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		before[i%len(before)]++
		c := workspace.WithOrigin(ctx, workspace.Origin{CallID: fmt.Sprint(i), Agent: "a", Turn: fmt.Sprint(i % 50)})
		if err := j.Record(c, nil, filepath.Join(files, "f"), before, nil); err != nil {
			b.Fatal(err)
		}
	}
}
