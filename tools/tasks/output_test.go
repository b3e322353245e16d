package tasks

import (
	"strconv"
	"strings"
	"testing"
)

func TestOutputRender(t *testing.T) {
	tests := []struct {
		name     string
		cap      int
		writes   []string
		max      int
		want     string
		wantNote bool
	}{
		{"small output whole", 100, []string{"hello ", "world"}, 50, "hello world", false},
		{"over render cap", 1000, []string{strings.Repeat("a", 40) + strings.Repeat("b", 40)}, 20, "", true},
		{"over store cap", 20, []string{"0123456789", "abcdefghij", "ABCDEFGHIJ", "klmnopqrst"}, 100, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOutput(tc.cap)
			total := 0
			for _, w := range tc.writes {
				o.Write([]byte(w))
				total += len(w)
			}
			got := o.Render(tc.max)
			if !tc.wantNote {
				if got != tc.want {
					t.Errorf("got %q, want %q", got, tc.want)
				}
				return
			}
			all := strings.Join(tc.writes, "")
			head, rest, ok := strings.Cut(got, "\n\n[… ")
			if !ok {
				t.Fatalf("no note in %q", got)
			}
			_, tail, _ := strings.Cut(rest, "…]\n\n")
			if !strings.HasPrefix(all, head) || !strings.HasSuffix(all, tail) || head == "" || tail == "" {
				t.Errorf("head %q / tail %q are not the ends of %q", head, tail, all)
			}
			if cut := total - len(head) - len(tail); !strings.HasPrefix(rest, strconv.Itoa(cut)+" bytes") {
				t.Errorf("note %q does not say %d bytes were cut", rest, cut)
			}
		})
	}
}

func TestOutputBoundedUnderFlood(t *testing.T) {
	o := NewOutput(4096)
	chunk := []byte(strings.Repeat("x", 1000) + "\n")
	for range 20_000 {
		o.Write(chunk)
	}
	o.Write([]byte("THE END"))
	if o.Total() != 20_000*int64(len(chunk))+7 {
		t.Errorf("total %d", o.Total())
	}
	if kept := len(o.head) + len(o.tail); kept > 2*4096 {
		t.Errorf("keeps %d bytes for a 4096-byte cap", kept)
	}
	if !strings.HasSuffix(o.Render(1000), "THE END") || !strings.HasSuffix(o.Tail(20), "THE END") {
		t.Errorf("the latest output is lost")
	}
}

func TestOutputKeepsCharactersWhole(t *testing.T) {
	o := NewOutput(1 << 20)
	o.Write([]byte(strings.Repeat("é", 100)))
	got := o.Render(51)
	for _, part := range strings.Split(got, "\n") {
		if !strings.HasPrefix(part, "[") && strings.ToValidUTF8(part, "?") != part {
			t.Errorf("split a character: %q", part)
		}
	}
}
