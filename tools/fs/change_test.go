package fs

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/workspace"
)

// askingHost answers every permission prompt with allow, keeping the
// prompts; before, when set, runs as the user is asked.
type askingHost struct {
	tools.NoHost
	mu      sync.Mutex
	prompts []tools.PermissionRequest
	before  func()
}

func (h *askingHost) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	h.prompts = append(h.prompts, req)
	h.mu.Unlock()
	if h.before != nil {
		h.before()
	}
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

// countingCall runs one call through a pipeline whose checker asks (the
// default mode asks for edits), either asking itself or, with viaCheck,
// as a client that asks through toolhost/checkPermission and then calls
// with the approval. It returns the result, the prompt's preview, and
// how often the call decoded its input, planned its change and read the
// file at path.
func countingCall(t *testing.T, e *env, tool tools.Tool, host *askingHost, viaCheck bool, input any, path string) (res *tools.Result, preview *tools.Preview, decodes, plans, reads int64) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register("files", tool)
	p := engine.NewPipeline(reg, nil, engine.WithPermissions(permission.New(permission.Options{Workspace: e.ws})))
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	counts := &callCounts{}
	countsOf.Store(counts)
	defer countsOf.Store(nil)
	var n sync.Map
	stop := workspace.ObserveReads(func(abs string) {
		if abs == path {
			v, _ := n.LoadOrStore(abs, new(int64))
			*(v.(*int64))++
		}
	})
	defer stop()

	req := engine.Request{CallID: "c1", Name: tool.Name(), Input: raw}
	if viaCheck {
		checked, bad := p.Check(context.Background(), host, req)
		if bad != nil {
			t.Fatalf("Check: %s", bad.Text())
		}
		if checked.Decision.Verdict != tools.VerdictAsk || checked.Prompt == nil {
			t.Fatalf("Check = %+v, want an ask with its prompt", checked.Decision)
		}
		preview = checked.Prompt.Preview
		req.Approval = checked.Approval
	}
	resp, err := p.Call(context.Background(), host, req)
	if err != nil {
		t.Fatal(err)
	}
	if !viaCheck && len(host.prompts) > 0 {
		preview = host.prompts[0].Preview
	}
	if v, ok := n.Load(path); ok {
		reads = *(v.(*int64))
	}
	return resp.Result, preview, counts.decodes.Load(), counts.plans.Load(), reads
}

// readLongAgo writes name with content, dates it an hour back (so its
// time, not its content, vouches that it is unchanged since the Read),
// and Reads it.
func (e *env) readLongAgo(name, content string) string {
	e.t.Helper()
	p := e.write(name, content, 0o644)
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, past, past); err != nil {
		e.t.Fatal(err)
	}
	e.readFile(p)
	return p
}

// TestPromptedChangeWorksOnce: a change the user is asked about decodes
// its input once, works the change out once and reads the file twice
// (once for the prompt, once under Modify's lock), whether the pipeline
// asks or a client asked through Check first; the prompt shows the
// change made. When the file changes while the user is asked, the change
// is worked out again on what is there.
func TestPromptedChangeWorksOnce(t *testing.T) {
	tests := []struct {
		name     string
		viaCheck bool
		// changeBefore rewrites the file after its Read, before the call;
		// changeWhileAsked rewrites it as the user is asked.
		changeBefore     string
		changeWhileAsked string
		wantPlans        int64
		wantFile         string
	}{
		{name: "asked by the pipeline", wantPlans: 1, wantFile: "keep\nnew\n"},
		{name: "asked through Check, then called", viaCheck: true, wantPlans: 1, wantFile: "keep\nnew\n"},
		{name: "file changed while asked", changeWhileAsked: "added\nkeep\nold\n", wantPlans: 2, wantFile: "added\nkeep\nnew\n"},
		// Changed since the Read, then again to the same length while
		// asked: the freshness is the same both times, so only the
		// comparison with the prepared content (by hash once it is
		// dropped) tells the edit must be planned again.
		{name: "changed file changed again, same length, while asked", changeBefore: "kept\nold\n", changeWhileAsked: "KEPT\nold\n", wantPlans: 2, wantFile: "KEPT\nnew\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.readLongAgo("f.txt", "keep\nold\n")
			if tt.changeBefore != "" {
				e.write("f.txt", tt.changeBefore, 0o644)
			}
			host := &askingHost{}
			if tt.changeWhileAsked != "" {
				host.before = func() { e.write("f.txt", tt.changeWhileAsked, 0o644) }
			}
			res, pv, decodes, plans, reads := countingCall(t, e, NewEdit(e.ws, nil), host, tt.viaCheck,
				map[string]any{"file_path": p, "old_string": "old", "new_string": "new"}, p)
			wantResult(t, res, false, "replaced 1 occurrence")
			if got := e.read("f.txt"); got != tt.wantFile {
				t.Errorf("file = %q, want %q", got, tt.wantFile)
			}
			if pv == nil || !strings.Contains(pv.Text, "-old\n+new\n") {
				t.Errorf("the prompt's preview = %+v, want the edit's diff", pv)
			}
			if decodes != 1 {
				t.Errorf("the input was decoded %d times, want once", decodes)
			}
			if plans != tt.wantPlans {
				t.Errorf("the edit was planned %d times, want %d", plans, tt.wantPlans)
			}
			if tt.changeWhileAsked == "" && reads > 2 {
				t.Errorf("the file was read %d times, want at most twice", reads)
			}
		})
	}
}

// TestPreparedWriteAndNotebookEdit: Write and NotebookEdit take the same
// path as Edit (one decode, one plan), and a notebook that changed since
// its Read fails before the user is asked.
func TestPreparedWriteAndNotebookEdit(t *testing.T) {
	tests := []struct {
		name      string
		tool      func(*workspace.Workspace) tools.Tool
		file      string
		content   string
		input     func(path string) any
		staleWith string
		wantError bool
		wantText  string
		wantPlans int64
	}{
		{
			name: "Write", tool: func(ws *workspace.Workspace) tools.Tool { return NewWrite(ws) },
			file: "w.txt", content: "one\n",
			input:    func(p string) any { return map[string]any{"file_path": p, "content": "two\n"} },
			wantText: "Updated",
		},
		{
			name: "NotebookEdit", tool: func(ws *workspace.Workspace) tools.Tool { return NewNotebookEdit(ws) },
			file: "nb.ipynb", content: sampleNotebook,
			input: func(p string) any {
				return map[string]any{"notebook_path": p, "cell_id": "code1", "new_source": "print(2)"}
			},
			wantText: "Replaced", wantPlans: 1,
		},
		{
			name: "NotebookEdit of a notebook changed since its Read", tool: func(ws *workspace.Workspace) tools.Tool { return NewNotebookEdit(ws) },
			file: "nb.ipynb", content: sampleNotebook,
			input: func(p string) any {
				return map[string]any{"notebook_path": p, "cell_id": "code1", "new_source": "print(2)"}
			},
			staleWith: strings.Replace(sampleNotebook, "Some text", "Other text", 1),
			wantError: true, wantText: "since",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.readLongAgo(tt.file, tt.content)
			if tt.staleWith != "" {
				e.write(tt.file, tt.staleWith, 0o644)
			}
			host := &askingHost{}
			res, _, decodes, plans, reads := countingCall(t, e, tt.tool(e.ws), host, false, tt.input(p), p)
			wantResult(t, res, tt.wantError, tt.wantText)
			if tt.wantError {
				if len(host.prompts) != 0 {
					t.Errorf("the user was asked %d times about a call that fails", len(host.prompts))
				}
				if got := e.read(tt.file); got != tt.staleWith {
					t.Errorf("the notebook changed")
				}
				return
			}
			if len(host.prompts) != 1 || host.prompts[0].Preview == nil {
				t.Errorf("prompts = %+v, want one with a preview", host.prompts)
			}
			if decodes != 1 || plans != tt.wantPlans || reads > 2 {
				t.Errorf("decodes %d, plans %d, reads %d; want 1, %d, at most 2", decodes, plans, reads, tt.wantPlans)
			}
		})
	}
}
