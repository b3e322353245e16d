package fs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

func numberedLines(from, to int, line func(int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, line(i))
	}
	return b.String()
}

func TestReadText(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	lineN := func(i int) string { return fmt.Sprintf("line %d", i) }
	tests := []struct {
		name    string
		files   map[string]string
		input   map[string]any
		isError bool
		want    []string
		// exact, when set, is the whole expected text.
		exact string
		// absent must not appear in the text.
		absent []string
	}{
		{
			name:  "cat -n format",
			files: map[string]string{"a.txt": "alpha\n\tbeta\ngamma"},
			input: map[string]any{"file_path": "a.txt"},
			exact: "     1\talpha\n     2\t\tbeta\n     3\tgamma\n",
		},
		{
			name:  "offset and limit",
			files: map[string]string{"a.txt": lines(100)},
			input: map[string]any{"file_path": "a.txt", "offset": 10, "limit": 3},
			exact: numberedLines(10, 12, lineN) + "\n[Showing lines 10-12 of 100. Call Read with offset 13 to continue.]\n",
		},
		{
			// Claude Code 2.1 returns the whole file when it fits the cap:
			// there is no default line limit.
			name:   "no default line limit",
			files:  map[string]string{"big.txt": lines(2500)},
			input:  map[string]any{"file_path": "big.txt"},
			want:   []string{"  2000\tline 2000\n", "  2500\tline 2500\n"},
			absent: []string{"Showing", "["},
		},
		{
			name:    "offset past the end",
			files:   map[string]string{"a.txt": lines(5)},
			input:   map[string]any{"file_path": "a.txt", "offset": 9},
			isError: true,
			want:    []string{"offset 9 is past the end", "has 5 lines"},
		},
		{
			// Claude Code 2.1 does not cut long lines.
			name:  "long lines are not cut",
			files: map[string]string{"a.txt": "short\n" + strings.Repeat("é", 2500) + "\n"},
			input: map[string]any{"file_path": "a.txt"},
			exact: "     1\tshort\n     2\t" + strings.Repeat("é", 2500) + "\n",
		},
		{
			name:  "CRLF shown without carriage returns",
			files: map[string]string{"a.txt": "one\r\ntwo\r\n"},
			input: map[string]any{"file_path": "a.txt"},
			exact: "     1\tone\n     2\ttwo\n",
		},
		{
			name:  "empty file",
			files: map[string]string{"empty.txt": ""},
			input: map[string]any{"file_path": "empty.txt"},
			want:  []string{"is empty"},
		},
		{
			name:  "UTF-8 BOM is not shown",
			files: map[string]string{"a.txt": "\uFEFFhello\n"},
			input: map[string]any{"file_path": "a.txt"},
			exact: "     1\thello\n",
		},
		{
			name:  "UTF-16 decoded with a note",
			files: map[string]string{"a.txt": "\xff\xfeh\x00i\x00\n\x00"},
			input: map[string]any{"file_path": "a.txt"},
			want:  []string{"     1\thi\n", "UTF-16"},
		},
		{
			name:  "invalid UTF-8 shown with a note",
			files: map[string]string{"latin1.txt": "caf\xe9\n"},
			input: map[string]any{"file_path": "latin1.txt"},
			want:  []string{"     1\tcaf\uFFFD\n", "not valid UTF-8"},
		},
		{
			name:    "binary content refused",
			files:   map[string]string{"blob.dat": "ELF\x00\x01\x02"},
			input:   map[string]any{"file_path": "blob.dat"},
			isError: true,
			want:    []string{"binary file"},
		},
		{
			name:    "binary extension refused",
			files:   map[string]string{"a.zip": "PK whatever"},
			input:   map[string]any{"file_path": "a.zip"},
			isError: true,
			want:    []string{"binary file"},
		},
		{
			name:    "directory",
			files:   map[string]string{"sub/a.txt": "x"},
			input:   map[string]any{"file_path": "sub"},
			isError: true,
			want:    []string{"is a directory"},
		},
		{
			name:    "missing file suggests similar names",
			files:   map[string]string{"src/config.yaml": "x", "src/other.txt": "y"},
			input:   map[string]any{"file_path": "src/Config.yml"},
			isError: true,
			want:    []string{"does not exist", "Did you mean", "config.yaml"},
			absent:  []string{"other.txt"},
		},
		{
			name:    "missing folder suggests similar folders",
			files:   map[string]string{"source/a.go": "x"},
			input:   map[string]any{"file_path": "sources/a.go"},
			isError: true,
			want:    []string{"Did you mean", "source"},
		},
		{
			// The stem of ".git" is empty and every name contains it: dotfiles
			// must not be suggested for every missing name.
			name:    "missing file does not suggest every dotfile",
			files:   map[string]string{".gitignore": "x", ".env": "y", "main.go": "z", "notes.txt": "w"},
			input:   map[string]any{"file_path": "mian.go"},
			isError: true,
			want:    []string{"Did you mean", "main.go"},
			absent:  []string{".gitignore", ".env", "notes.txt"},
		},
		{
			name:    "a misspelt dotfile is still suggested",
			files:   map[string]string{".gitignore": "x", "main.go": "z"},
			input:   map[string]any{"file_path": ".gitignor"},
			isError: true,
			want:    []string{"Did you mean", ".gitignore"},
			absent:  []string{"main.go"},
		},
		{
			// Claude Code ignores pages on a file that is not a PDF.
			name:  "pages on a text file is ignored",
			files: map[string]string{"a.txt": "x\n"},
			input: map[string]any{"file_path": "a.txt", "pages": "1"},
			exact: "     1\tx\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for name, content := range tt.files {
				e.write(name, content, 0o644)
			}
			res := call(t, context.Background(), NewRead(e.ws), nil, tt.input)
			wantResult(t, res, tt.isError, tt.want...)
			if tt.exact != "" && res.Text() != tt.exact {
				t.Errorf("text =\n%q\nwant\n%q", res.Text(), tt.exact)
			}
			for _, a := range tt.absent {
				if strings.Contains(res.Text(), a) {
					t.Errorf("text holds %q, which should be left out", a)
				}
			}
		})
	}
}

// TestReadCap states Claude Code 2.1's cap: a whole-file read over it is a
// partial first page with a notice saying how to page on; an explicit range
// over it is an error; allow_large lifts it.
func TestReadCap(t *testing.T) {
	e := newEnv(t)
	line := strings.Repeat("x", 1000)
	var b strings.Builder
	for i := 0; i < 300; i++ { // ~300 KB, over the 100,000-character cap
		b.WriteString(line + "\n")
	}
	p := e.write("wide.txt", b.String(), 0o644)
	read := func(in map[string]any) *tools.Result {
		in["file_path"] = p
		return call(t, context.Background(), NewRead(e.ws), nil, in)
	}

	res := read(map[string]any{})
	wantResult(t, res, false, "Partial view: showing lines 1-99 of 300", "offset=100 and limit=99", "Grep")
	if len(res.Text()) > maxReadChars+1000 {
		t.Errorf("capped read returned %d characters", len(res.Text()))
	}
	file := res.Structured.(map[string]any)["file"].(map[string]any)
	if file["truncatedByTokenCap"] != true || file["numLines"] != 99 || file["totalLines"] != 300 || file["content"] != strings.TrimSuffix(strings.Repeat(line+"\n", 99), "\n") {
		t.Errorf("structured file = numLines %v totalLines %v truncated %v", file["numLines"], file["totalLines"], file["truncatedByTokenCap"])
	}

	res = read(map[string]any{"offset": 100, "limit": 150})
	wantResult(t, res, true, "over the cap", "only 99 line(s) would fit", "limit=99")

	res = read(map[string]any{"offset": 100, "limit": 50})
	wantResult(t, res, false, "   149\t"+line, "Showing lines 100-149 of 300")

	res = read(map[string]any{"allow_large": true})
	wantResult(t, res, false, "   300\t"+line)
	if strings.Contains(res.Text(), "Partial") {
		t.Error("allow_large read was still capped")
	}

	// One line longer than the cap: its start, with a notice.
	one := e.write("min.js", strings.Repeat("y", maxReadChars+500), 0o644)
	res = call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": one})
	wantResult(t, res, false, "Partial view: showing the first 100000 of the 100500 characters of line 1")
}

func TestReadOpenBufferAndReadState(t *testing.T) {
	e := newEnv(t)
	p := e.write("a.go", "package disk\n", 0o644)
	if err := e.ws.CheckFresh(p); err == nil {
		t.Fatal("CheckFresh before any Read succeeded")
	}
	if err := e.ws.Open(workspace.PathToURI(p), "go", 4, "package buffer // unsaved\n"); err != nil {
		t.Fatal(err)
	}
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, "     1\tpackage buffer // unsaved\n")
	if err := e.ws.CheckFresh(p); err != nil {
		t.Errorf("CheckFresh after Read: %v", err)
	}
}

func TestReadImage(t *testing.T) {
	e := newEnv(t)
	img := image.NewRGBA(image.Rect(0, 0, 7, 3))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := e.write("dot.png", buf.String(), 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, "image/png", "7x3 pixels")
	var found bool
	for _, c := range res.Content {
		if c.Type == "image" {
			found = true
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil || !bytes.Equal(data, buf.Bytes()) || c.MimeType != "image/png" {
				t.Errorf("image content does not carry the file (mime %q, err %v)", c.MimeType, err)
			}
		}
	}
	if !found {
		t.Fatal("no image content")
	}
}

func TestReadNotebook(t *testing.T) {
	e := newEnv(t)
	p := e.write("nb.ipynb", sampleNotebook, 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false,
		"Notebook language: python",
		`<cell id="md1" cell_type="markdown">`+"\n# Title\nSome text\n</cell>",
		`<cell id="code1" cell_type="code" execution_count="1">`+"\nprint(\"hi\")\n1 + 1\n</cell>",
		"hi\n", "2\n",
		"ZeroDivisionError: division by zero", "1 / 0",
		"[image/png output, attached as image 1]",
	)
	if strings.Contains(res.Text(), "\x1b[") {
		t.Error("ANSI escapes left in the traceback")
	}
	var images int
	for _, c := range res.Content {
		if c.Type == "image" && c.MimeType == "image/png" && c.Data == "iVBORw0KGgo=" {
			images++
		}
	}
	if images != 1 {
		t.Errorf("%d image outputs, want 1", images)
	}
}

// minimalPDF builds a valid one-font PDF with one page per text.
func minimalPDF(pages ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(s string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), s)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		stream := fmt.Sprintf("BT /F1 14 Tf 20 100 Td (%s) Tj ET", text)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

func TestReadPDF(t *testing.T) {
	e := newEnv(t)
	p := e.write("doc.pdf", string(minimalPDF("First page words", "Second page words", "Third page words")), 0o644)
	tests := []struct {
		name    string
		pages   string
		isError bool
		// images is how many page images come back.
		images int
		want   []string
		absent []string
	}{
		{name: "all pages", images: 3, want: []string{"--- page 1 ---", "First page words", "--- page 3 ---", "Third page words"}},
		{name: "one page", pages: "2", images: 1, want: []string{"--- page 2 ---", "Second page words"}, absent: []string{"First page", "Third page"}},
		{name: "a range", pages: "2-3", images: 2, want: []string{"Second page words", "Third page words", "Pages 2-3 are attached"}, absent: []string{"First page"}},
		{name: "past the end", pages: "7", isError: true, want: []string{"has 3 pages"}},
		{name: "too many pages", pages: "1-25", isError: true, want: []string{"at most 20"}},
		{name: "malformed", pages: "two", isError: true, want: []string{"not a page or a range"}},
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]any{"file_path": p}
			if tt.pages != "" {
				in["pages"] = tt.pages
			}
			res := call(t, context.Background(), NewRead(e.ws), nil, in)
			wantResult(t, res, tt.isError, tt.want...)
			for _, a := range tt.absent {
				if strings.Contains(res.Text(), a) {
					t.Errorf("text holds %q", a)
				}
			}
			if tt.isError {
				return
			}
			// Claude Code sends the pages as content the model can see:
			// each page asked for comes back as a JPEG image.
			if _, err := exec.LookPath("pdftoppm"); err != nil {
				return
			}
			var images int
			for _, c := range res.Content {
				if c.Type == "image" {
					data, err := base64.StdEncoding.DecodeString(c.Data)
					if err != nil || c.MimeType != "image/jpeg" || !bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
						t.Errorf("page image is not a JPEG (mime %q, err %v)", c.MimeType, err)
					}
					images++
				}
			}
			if images != tt.images {
				t.Errorf("%d page images, want %d", images, tt.images)
			}
			if !strings.Contains(res.Text(), "attached as images") {
				t.Errorf("text does not say the pages are attached: %q", res.Text())
			}
		})
	}
}

func TestReadPDFWithoutPdftotext(t *testing.T) {
	e := newEnv(t)
	p := e.write("doc.pdf", string(minimalPDF("x")), 0o644)
	t.Setenv("PATH", t.TempDir()) // an empty folder: no pdftotext
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, true, "pdftotext", "poppler-utils")
}

func TestReadAccess(t *testing.T) {
	a := NewRead(nil).Access([]byte(`{"file_path":"src/x.go"}`))
	if len(a.ReadPaths) != 1 || a.ReadPaths[0] != "src/x.go" || len(a.WritePaths) != 0 {
		t.Errorf("Access = %+v", a)
	}
}

// BenchmarkRead50Of5000 reads 50 lines from the middle of a 5,000-line file
// through Execute.
func BenchmarkRead50Of5000(b *testing.B) {
	dir := b.TempDir()
	ws := workspace.New(dir)
	var content strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&content, "func line%d() { return %d } // some typical source text\n", i, i)
	}
	p := dir + "/big.go"
	if err := os.WriteFile(p, []byte(content.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	read := NewRead(ws)
	input := []byte(`{"file_path":` + quoteJSON(p) + `,"offset":2500,"limit":50}`)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := read.Execute(ctx, &tools.Call{Input: input, Host: tools.NoHost{}, Progress: tools.NoProgress{}})
		if err != nil || res.IsError {
			b.Fatalf("Read: %v %s", err, res.Text())
		}
	}
}

const sampleNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "md1",
   "metadata": {},
   "source": [
    "# Title\n",
    "Some text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "code1",
   "metadata": {
    "tags": [
     "keep-me"
    ]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hi\n"
     ]
    },
    {
     "data": {
      "text/plain": [
       "2"
      ]
     },
     "execution_count": 1,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "print(\"hi\")\n",
    "1 + 1"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "code2",
   "metadata": {},
   "outputs": [
    {
     "ename": "ZeroDivisionError",
     "evalue": "division by zero",
     "output_type": "error",
     "traceback": [
      "\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"
     ]
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure size 640x480 with 1 Axes>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "1 / 0"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.11.4"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func TestReadNotebookCap(t *testing.T) {
	e := newEnv(t)
	var cellsJSON []string
	for i := 0; i < 40; i++ {
		src, _ := json.Marshal(strings.Repeat(fmt.Sprintf("x%d = 1\n", i), 500))
		cellsJSON = append(cellsJSON, fmt.Sprintf(`{"cell_type":"code","execution_count":null,"id":"c%d","metadata":{},"outputs":[],"source":%s}`, i, src))
	}
	nb := `{"cells":[` + strings.Join(cellsJSON, ",") + `],"metadata":{},"nbformat":4,"nbformat_minor":5}`
	p := e.write("big.ipynb", nb, 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, `<cell id="c0"`, "Output capped", "of 40")
	if strings.Contains(res.Text(), `<cell id="c39"`) {
		t.Error("the capped read still shows the last cell")
	}
	res = call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p, "allow_large": true})
	wantResult(t, res, false, `<cell id="c39"`)
}

// TestReadLongPDFWithoutPages: a whole read of a long PDF shows text only
// and says how to see pages as images.
func TestReadLongPDFWithoutPages(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("poppler-utils is not installed")
	}
	e := newEnv(t)
	var texts []string
	for i := 1; i <= maxPDFImagePagesUnasked+2; i++ {
		texts = append(texts, fmt.Sprintf("Page %d words", i))
	}
	p := e.write("long.pdf", string(minimalPDF(texts...)), 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, "Page 12 words", "Only the text is shown", "Pass pages")
	for _, c := range res.Content {
		if c.Type == "image" {
			t.Fatal("a long PDF read without pages came with images")
		}
	}
}

// A notebook of many plots: a Read attaches at most maxNotebookImages of
// them, and says for the rest how to get them.
func TestReadNotebookImageCap(t *testing.T) {
	e := newEnv(t)
	var cellsJSON []string
	for i := 0; i < maxNotebookImages+5; i++ {
		cellsJSON = append(cellsJSON, fmt.Sprintf(`{"cell_type":"code","execution_count":1,"id":"p%d","metadata":{},"outputs":[{"output_type":"display_data","metadata":{},"data":{"image/png":"iVBORw0KGgo=","text/plain":["<Figure %d>"]}}],"source":"plot()"}`, i, i))
	}
	p := e.write("plots.ipynb", `{"cells":[`+strings.Join(cellsJSON, ",")+`],"metadata":{},"nbformat":4,"nbformat_minor":5}`, 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, "[image/png output, attached as image 20]", "<Figure 24>", "[image/png output not attached: a Read attaches at most 20 images", "base64 -d")
	images := 0
	for _, c := range res.Content {
		if c.Type == "image" {
			images++
		}
	}
	if images != maxNotebookImages || strings.Count(res.Text(), "not attached") != 5 {
		t.Errorf("%d images attached, %d refused; want %d and 5", images, strings.Count(res.Text(), "not attached"), maxNotebookImages)
	}
}

// One cell of megabytes is cut at the Read cap too, saying how to see it.
func TestReadNotebookHugeCell(t *testing.T) {
	e := newEnv(t)
	src, _ := json.Marshal(strings.Repeat("data = [1, 2, 3]\n", 200_000))
	p := e.write("huge.ipynb", `{"cells":[{"cell_type":"code","execution_count":null,"id":"h","metadata":{},"outputs":[],"source":`+string(src)+`},{"cell_type":"markdown","id":"after","metadata":{},"source":"end"}],"metadata":{},"nbformat":4,"nbformat_minor":5}`, 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, `<cell id="h"`, "[source cut at ", "jq -r '.cells[0].source", "showing cells 1-1 of 2")
	if len(res.Text()) > maxReadChars+2000 || strings.Contains(res.Text(), `<cell id="after"`) {
		t.Errorf("a Read of %d characters, want about %d", len(res.Text()), maxReadChars)
	}
}

// A cell of thousands of outputs stops at the Read cap, saying which are
// left out and how to get them.
func TestReadNotebookManyOutputs(t *testing.T) {
	e := newEnv(t)
	out := `{"output_type":"stream","name":"stdout","text":"` + strings.Repeat("x", 9000) + `\n"}`
	outs := strings.TrimSuffix(strings.Repeat(out+",", 1000), ",")
	p := e.write("outs.ipynb", `{"cells":[{"cell_type":"code","execution_count":1,"id":"o","metadata":{},"outputs":[`+outs+`],"source":"loop()"}],"metadata":{},"nbformat":4,"nbformat_minor":5}`, 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
	wantResult(t, res, false, "of this cell not shown: the Read cap", "-1000 of this cell", "jq '.cells[0].outputs[")
	if len(res.Text()) > maxReadChars+3*maxOutputChars {
		t.Errorf("a Read of %d characters, want about %d", len(res.Text()), maxReadChars)
	}
}
