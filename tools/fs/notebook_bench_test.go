package fs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/memprobe"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// bigNotebook is an nbformat 4.5 notebook of about size bytes in Jupyter's
// layout: code cells of a few lines, each with a long stream output and
// every tenth with a PNG.
func bigNotebook(size int) string {
	var b strings.Builder
	b.WriteString("{\n \"cells\": [\n")
	png := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 1200)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": %d,\n   \"id\": \"c%07d\",\n   \"metadata\": {},\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n", i, i)
		for k := 0; k < 200; k++ {
			if k > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "      \"row %d value %d.%06d\\n\"", k, i, k*7919%1000000)
		}
		b.WriteString("\n     ]\n    }")
		if i%10 == 0 {
			fmt.Fprintf(&b, ",\n    {\n     \"data\": {\n      \"image/png\": \"%s\",\n      \"text/plain\": [\n       \"<Figure>\"\n      ]\n     },\n     \"metadata\": {},\n     \"output_type\": \"display_data\"\n    }", png)
		}
		b.WriteString("\n   ],\n   \"source\": [\n")
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "    \"x_%d = compute(%d)\\n\",\n", i, j)
		}
		b.WriteString("    \"x\"\n   ]\n  }")
	}
	b.WriteString("\n ],\n \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  },\n  \"language_info\": {\n   \"name\": \"python\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n")
	return b.String()
}

// BenchmarkNotebookEditBig replaces one cell in the middle of a 40 MB
// notebook, on disk and through an editor, and reports the peak heap and
// the bytes allocated per byte of the notebook (the file read is one of
// them; the editor's own copy of its buffer is not).
func BenchmarkNotebookEditBig(b *testing.B) {
	text := bigNotebook(40 << 20)
	for _, withEditor := range []bool{false, true} {
		b.Run(fmt.Sprintf("editor=%v", withEditor), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.Setenv("TOOLHOST_STATE_DIR", b.TempDir())
			var rec memprobe.Recorder
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				p := filepath.Join(dir, "big.ipynb")
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				ws := workspace.New(dir)
				ws.MarkRead(p, []byte(text), nil, time.Now().Add(-time.Minute))
				var host tools.Host
				if withEditor {
					host = editorHost{ed: workspacetest.NewFakeEditor(ws)}
				}
				b.StartTimer()
				rec.Measure(func() {
					res := call(b, context.Background(), NewNotebookEdit(ws), host, map[string]any{"notebook_path": p, "cell_id": "c0001000", "new_source": "print(1)"})
					if res.IsError {
						b.Fatal(res.Text())
					}
				})
			}
			rec.Report(b, len(text), "file")
		})
	}
}
