package workspace

import (
	"testing"
)

func TestDocumentChanges(t *testing.T) {
	const uri = "file:///w/doc.txt"
	rng := func(l1, c1, l2, c2 uint32) *Range {
		return &Range{Start: Position{Line: l1, Character: c1}, End: Position{Line: l2, Character: c2}}
	}
	tests := []struct {
		name     string
		encoding string
		initial  string
		changes  []ContentChange
		want     string
	}{
		{
			name:    "full sync replaces the text",
			initial: "old\n",
			changes: []ContentChange{{Text: "new\ntext\n"}},
			want:    "new\ntext\n",
		},
		{
			name:    "incremental insert and delete in order",
			initial: "hello world\nsecond\n",
			changes: []ContentChange{
				{Range: rng(0, 5, 0, 11), Text: ""},       // "hello\nsecond\n"
				{Range: rng(1, 0, 1, 0), Text: "the "},    // "hello\nthe second\n"
				{Range: rng(0, 5, 1, 0), Text: ", and\n"}, // joins through the line break
			},
			want: "hello, and\nthe second\n",
		},
		{
			name:    "utf-16 positions count surrogate pairs as two",
			initial: "a😀b日c\n",
			// "a"=1, "😀"=2, "b"=1: character 4 is before "日".
			changes: []ContentChange{{Range: rng(0, 4, 0, 5), Text: "本"}},
			want:    "a😀b本c\n",
		},
		{
			name:     "utf-8 positions count bytes",
			encoding: EncodingUTF8,
			initial:  "a😀b日c\n",
			// "a"=1, "😀"=4, "b"=1: byte 6 is before "日" (3 bytes).
			changes: []ContentChange{{Range: rng(0, 6, 0, 9), Text: "本"}},
			want:    "a😀b本c\n",
		},
		{
			name:    "character past the line end clamps to the end, before CRLF",
			initial: "ab\r\ncd\r\n",
			changes: []ContentChange{{Range: rng(0, 99, 0, 99), Text: "!"}},
			want:    "ab!\r\ncd\r\n",
		},
		{
			name:    "line past the end appends",
			initial: "x",
			changes: []ContentChange{{Range: rng(5, 0, 5, 0), Text: "\ny"}},
			want:    "x\ny",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New(t.TempDir())
			if tt.encoding != "" {
				if err := w.SetPositionEncoding(tt.encoding); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Open(uri, "plaintext", 1, tt.initial); err != nil {
				t.Fatal(err)
			}
			if err := w.Change(uri, 2, tt.changes); err != nil {
				t.Fatal(err)
			}
			text, version, open := w.Document("/w/doc.txt")
			if !open || text != tt.want || version != 2 {
				t.Errorf("Document = %q v%d open=%v; want %q v2 open", text, version, open, tt.want)
			}
		})
	}
}

func TestDocumentLifecycle(t *testing.T) {
	w := New(t.TempDir())
	if err := w.Open("untitled:Untitled-1", "go", 1, "x"); err == nil {
		t.Error("Open accepted an untitled: document")
	}
	if err := w.Change("file:///w/a.go", 2, []ContentChange{{Text: "x"}}); err == nil {
		t.Error("Change of a document that is not open succeeded")
	}
	if err := w.Open("file:///w/a%20b.go", "go", 3, "package a"); err != nil {
		t.Fatal(err)
	}
	if text, v, open := w.Document("/w/a b.go"); !open || text != "package a" || v != 3 {
		t.Errorf("after Open: %q v%d open=%v", text, v, open)
	}
	if err := w.Close("file:///w/a%20b.go"); err != nil {
		t.Fatal(err)
	}
	if _, _, open := w.Document("/w/a b.go"); open {
		t.Error("document still open after Close")
	}
}

func TestChoosePositionEncoding(t *testing.T) {
	w := New(t.TempDir())
	if got := w.PositionEncoding(); got != EncodingUTF16 {
		t.Errorf("default encoding %q, want utf-16", got)
	}
	if got := w.ChoosePositionEncoding([]string{"utf-32", "utf-8", "utf-16"}); got != EncodingUTF8 || w.PositionEncoding() != EncodingUTF8 {
		t.Errorf("offered utf-8: chose %q", got)
	}
	if got := w.ChoosePositionEncoding([]string{"utf-32"}); got != EncodingUTF16 {
		t.Errorf("no utf-8 offered: chose %q", got)
	}
	if err := w.SetPositionEncoding("utf-32"); err == nil {
		t.Error("SetPositionEncoding accepted utf-32")
	}
}
