package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/memprobe"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// BenchmarkQueryJSONAtTheCap queries a document of just under maxItems
// empty objects, the costliest shape per byte, and reports the peak heap
// and bytes allocated per byte of the file.
func BenchmarkQueryJSONAtTheCap(b *testing.B) {
	root := b.TempDir()
	doc := "[" + strings.Repeat("{},", maxItems/2-1) + "{}]"
	if err := os.WriteFile(filepath.Join(root, "doc.json"), []byte(doc), 0o644); err != nil {
		b.Fatal(err)
	}
	q := NewQueryJSON(workspace.New(root))
	var rec memprobe.Recorder
	for i := 0; i < b.N; i++ {
		rec.Measure(func() {
			res, err := q.Execute(b.Context(), &tools.Call{Input: json.RawMessage(`{"file_path":"doc.json","query":"length"}`)})
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		})
	}
	rec.Report(b, len(doc), "file")
}
