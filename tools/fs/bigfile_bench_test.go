package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// bigText is n lines of about 80 bytes, each with its number; tag changes
// every line.
func bigText(lines int, tag string) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "%s line %08d: the quick brown fox jumps over the lazy dog, again and again\n", tag, i)
	}
	return b.String()
}

// BenchmarkWriteEveryLineChanged writes a 5 MB file over one whose every
// line differs, on disk and through an editor.
func BenchmarkWriteEveryLineChanged(b *testing.B) {
	old, new := bigText(60_000, "old"), bigText(60_000, "new")
	for _, withEditor := range []bool{false, true} {
		b.Run(fmt.Sprintf("editor=%v", withEditor), func(b *testing.B) {
			b.SetBytes(int64(len(new)))
			b.Setenv("TOOLHOST_STATE_DIR", b.TempDir())
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ws, p := bigFileWorkspace(b, old)
				var host tools.Host
				if withEditor {
					host = editorHost{ed: workspacetest.NewFakeEditor(ws)}
				}
				if res := call(b, context.Background(), NewRead(ws), nil, map[string]any{"file_path": p}); res.IsError {
					b.Fatal(res.Text())
				}
				b.StartTimer()
				res := call(b, context.Background(), NewWrite(ws), host, map[string]any{"file_path": p, "content": new})
				if res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}

// BenchmarkEditBigFile replaces one line in the middle of a 47 MB file,
// by Execute alone and through the pipeline as the server calls it
// (prepared, checked in acceptEdits mode, then made).
func BenchmarkEditBigFile(b *testing.B) {
	text := bigText(580_000, "x")
	for _, viaPipeline := range []bool{false, true} {
		b.Run(fmt.Sprintf("pipeline=%v", viaPipeline), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.Setenv("TOOLHOST_STATE_DIR", b.TempDir())
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ws, p := bigFileWorkspace(b, text)
				if res := call(b, context.Background(), NewRead(ws), nil, map[string]any{"file_path": p, "limit": 10}); res.IsError {
					b.Fatal(res.Text())
				}
				args := map[string]any{"file_path": p, "old_string": "x line 00290000:", "new_string": "x LINE 00290000:"}
				if !viaPipeline {
					b.StartTimer()
					if res := call(b, context.Background(), NewEdit(ws, nil), nil, args); res.IsError {
						b.Fatal(res.Text())
					}
					continue
				}
				reg := tools.NewRegistry()
				reg.Register("files", NewEdit(ws, nil))
				pl := engine.NewPipeline(reg, nil, engine.WithPermissions(permission.New(permission.Options{Workspace: ws, Mode: tools.ModeAcceptEdits})))
				raw, _ := json.Marshal(args)
				b.StartTimer()
				resp, err := pl.Call(context.Background(), tools.NoHost{}, engine.Request{Name: "Edit", Input: raw})
				if err != nil || resp.IsError {
					b.Fatalf("%v %s", err, resp.Text())
				}
			}
		})
	}
}
