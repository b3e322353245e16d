package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	segjson "github.com/segmentio/encoding/json"
	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed write.md
var writeDescription string

type writeParams struct {
	FilePath string `json:"file_path" jsonschema:"Absolute path of the file to write."`
	Content  string `json:"content" jsonschema:"The complete new content of the file."`
}

var writeSchema = tools.SchemaOf[writeParams](nil)

// Write creates a file or replaces its whole content.
type Write struct {
	ws *workspace.Workspace
}

// NewWrite returns the Write tool over ws.
func NewWrite(ws *workspace.Workspace) *Write { return &Write{ws: ws} }

func (*Write) Name() string                 { return "Write" }
func (*Write) Description() string          { return writeDescription }
func (*Write) InputSchema() json.RawMessage { return writeSchema.JSON() }
func (*Write) SideEffect() tools.SideEffect { return tools.SideEffectMutating }

// Docs implements tools.Documented.
func (*Write) Docs() tools.Docs {
	return tools.Docs{
		Short: "Create a file or replace its whole content; overwriting needs a prior Read.",
		Long: "Parent folders are created. An existing file must have been Read in this session and be " +
			"unchanged since (in the editor or on disk), else the call fails and asks for a new Read. The " +
			"content is written as given, in the existing file's encoding: as in Claude Code, UTF-8, UTF-8 with a BOM and " +
			"UTF-16LE/BE with a BOM are kept (the result says so), and a file in an encoding that cannot be kept exactly " +
			"(Latin-1, invalid UTF-8) is refused with how to convert it; a UTF-16 file the editor does not have open is written by the server in its encoding, one open in the editor is refused with what to do. With an editor the change goes out as workspace/applyEdit " +
			"(CreateFile for a new file) and is on disk when the call returns; without one the file is " +
			"written atomically, keeping an existing file's mode. The result says whether the file was " +
			"created or updated and carries a unified diff of an update; its structuredPatch keeps at most " +
			"1 MiB of lines (marked structuredPatchTruncated when cut), and content and originalFile are left " +
			"out past 1 MiB (contentOmitted, originalFileOmitted); the file always gets the whole content.",
		Examples: []tools.Example{
			{Title: "Create a new file", Input: json.RawMessage(`{"file_path":"/src/app/hello.txt","content":"hello\n"}`)},
		},
	}
}

// Access implements tools.AccessDescriber.
func (*Write) Access(input json.RawMessage) tools.Access {
	path, err := writePath(input)
	if err != nil || path == "" {
		return tools.Access{}
	}
	return tools.Access{WritePaths: []string{path}}
}

// writePath reads only the file_path of a Write input: the content,
// megabytes maybe, is skipped in the same pass, not decoded or copied.
func writePath(input json.RawMessage) (string, error) {
	var p struct {
		FilePath string `json:"file_path"`
	}
	if _, err := segjson.Parse(input, &p, segjson.ZeroCopy); err != nil {
		return "", err
	}
	return strings.Clone(p.FilePath), nil
}

// writeCall is a Write call checked against the file.
type writeCall struct {
	abs string
	old []byte
	// linkedOut is set, with the error, when abs leads outside the
	// workspace through a link (leadsOutside).
	linkedOut bool
}

// prepare checks a Write input against the file; a non-nil result is the
// error the call ends with. Precheck and Preview share it; checkFresh adds
// the check that the file is unchanged since it was read. Only file_path
// is read from the input.
func (w *Write) prepare(input json.RawMessage, checkFresh bool) (*writeCall, *tools.Result) {
	var p writeParams
	var err error
	if p.FilePath, err = writePath(input); err != nil {
		return nil, tools.ErrorResult("the input is not a valid Write input (%v); send {\"file_path\", \"content\"}.", err)
	}
	abs, bad := resolve(w.ws, "file_path", p.FilePath)
	if bad != nil {
		return nil, bad
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return nil, tools.ErrorResult("%s is a directory; give the path of a file.", abs)
	}
	// A file never read is refused before it is read (it may be huge).
	if checkFresh {
		if err := w.ws.CheckRead(abs); err != nil {
			return nil, tools.ErrorResult("%v", err)
		}
	}
	old, _, err := w.ws.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return &writeCall{abs: abs, linkedOut: leadsOutside(err)}, tools.ErrorResult("cannot read %s before overwriting it: %v.", abs, err)
	case checkFresh:
		if err := w.ws.CheckFresh(abs); err != nil {
			return nil, tools.ErrorResult("%v", err)
		}
	}
	if old != nil {
		// The old text, for the preview's diff, in the encoding kept.
		_, text, err := fileEncoding(abs, old)
		if err != nil {
			return nil, tools.ErrorResult("%v.", err)
		}
		old = text
	}
	return &writeCall{abs: abs, old: old}, nil
}

// Precheck implements tools.Prechecker: a write over a file that changed
// since it was read fails before the user is asked.
func (w *Write) Precheck(_ context.Context, _ tools.Host, input json.RawMessage) *tools.Result {
	c, res := w.prepare(input, true)
	if c != nil && c.linkedOut {
		// The permission checker refuses it, saying where it leads and
		// what to do instead (see leadsOutside).
		return nil
	}
	return res
}

// Preview implements tools.Previewer: the diff the write would make.
func (w *Write) Preview(_ context.Context, input json.RawMessage) *tools.Preview {
	c, res := w.prepare(input, false)
	if res != nil {
		return nil
	}
	var p writeParams
	if json.Unmarshal(input, &p) != nil {
		return nil
	}
	content := []byte(p.Content)
	return tools.FilePreview(c.abs, unifiedDiff(w.ws, c.abs, c.old, content), content)
}

// Execute writes the file.
func (w *Write) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	// One pass (segmentio/encoding) rather than encoding/json's validation
	// pass and decoding pass over megabytes of content.
	var p writeParams
	if err := segjson.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid Write input (%v); send {\"file_path\", \"content\"}.", err), nil
	}
	abs, bad := resolve(w.ws, "file_path", p.FilePath)
	if bad != nil {
		return bad, nil
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return tools.ErrorResult("%s is a directory; give the path of a file.", abs), nil
	}
	// As in Claude Code, an existing file keeps its encoding and byte-order
	// mark; one that cannot be kept is refused.
	var enc textEncoding
	done, err := w.ws.Modify(ctx, call.Host, workspace.Modification{
		Path: abs, Label: "Write " + displayName(w.ws, abs), Review: call.ReviewEdits,
		Plan: func(current []byte) ([]byte, error) {
			var err error
			if enc, _, err = fileEncoding(abs, current); err != nil {
				return nil, resultError{tools.ErrorResult("%v.", err)}
			}
			return enc.encode(p.Content), nil
		},
	})
	if err != nil {
		return changeResult(err)
	}
	done = decodedChange(done)
	if !done.Changed {
		return tools.TextResult(fmt.Sprintf("%s already has exactly this content; nothing changed.", abs)), nil
	}
	old := done.Old
	lines := countLines(p.Content)
	if old == nil {
		res := tools.TextResult(fmt.Sprintf("Created %s (%d lines).", abs, lines))
		res.Structured = map[string]any{"type": "create", "filePath": abs, "structuredPatch": []udiff.Hunk{}, "originalFile": nil}
		echoText(res.Structured.(map[string]any), "content", p.Content)
		return res, nil
	}
	diff, hunks, truncated := changeDiff(w.ws, abs, done)
	res := tools.TextResult(fmt.Sprintf("Updated %s (%d lines).%s%s\n\n%s", abs, lines, enc.keptNote(), diskAheadNote(done), diff))
	res.Structured = patchResult(map[string]any{"type": "update", "filePath": abs}, hunks, truncated)
	echoText(res.Structured.(map[string]any), "content", p.Content)
	echoText(res.Structured.(map[string]any), "originalFile", old)
	return res, nil
}
