package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/workspace"
)

// allowingHost answers every permission prompt with allow.
type allowingHost struct{ tools.NoHost }

func (allowingHost) RequestPermission(context.Context, tools.PermissionRequest) (tools.PermissionResponse, error) {
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

// BenchmarkPromptedEdit is the server's work for one Edit of a 100 KB
// file that the user is asked about (and allows), through the pipeline and
// the permission checker, asked by the pipeline or through Check first;
// cpu-ns/op is the process's CPU time per call.
func BenchmarkPromptedEdit(b *testing.B) {
	for _, viaCheck := range []bool{false, true} {
		b.Run(fmt.Sprintf("viaCheck=%v", viaCheck), func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "f.txt")
			var text strings.Builder
			for i := range 2000 {
				fmt.Fprintf(&text, "line %05d of a file that is edited over and over\n", i)
			}
			text.WriteString("MARK\n")
			if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			past := time.Now().Add(-time.Hour)
			if err := os.Chtimes(path, past, past); err != nil {
				b.Fatal(err)
			}
			ws := workspace.New(dir)
			if res := call(b, context.Background(), NewRead(ws), nil, map[string]any{"file_path": path}); res.IsError {
				b.Fatal(res.Text())
			}
			reg := tools.NewRegistry()
			reg.Register("files", NewEdit(ws, nil))
			p := engine.NewPipeline(reg, nil, engine.WithPermissions(permission.New(permission.Options{Workspace: ws})))
			inputs := [2]json.RawMessage{}
			for i, pair := range [2][2]string{{"MARK", "mark"}, {"mark", "MARK"}} {
				inputs[i], _ = json.Marshal(map[string]any{"file_path": path, "old_string": pair[0], "new_string": pair[1]})
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			for i := range b.N {
				req := engine.Request{Name: "Edit", Input: inputs[i%2]}
				if viaCheck {
					checked, bad := p.Check(ctx, allowingHost{}, req)
					if bad != nil {
						b.Fatal(bad.Text())
					}
					req.Approval = checked.Approval
				}
				resp, err := p.Call(ctx, allowingHost{}, req)
				if err != nil || resp.IsError {
					b.Fatalf("%v %s", err, resp.Text())
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
