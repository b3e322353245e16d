package fs

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	segjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/internal/jsonstr"
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

// writeCall is one Write call: its input decoded, and once prepared the
// file's content and encoding, which the preview and Execute share.
type writeCall struct {
	change
	w *Write
	p writeParams
	// enc is the encoding of the file as prepared, kept by the write; text
	// is its content decoded, for the preview's diff.
	enc  textEncoding
	text []byte
}

// Decode implements tools.Planner.
func (w *Write) Decode(input json.RawMessage) (tools.Plan, *tools.Result) {
	c, res := w.decode(input)
	if res != nil {
		return nil, res
	}
	return c, nil
}

// decode reads the input in one pass (segmentio/encoding) rather than
// encoding/json's validation pass and decoding pass over megabytes of
// content; the content is left raw by that pass and unquoted once, into its
// own buffer (jsonstr).
func (w *Write) decode(input json.RawMessage) (*writeCall, *tools.Result) {
	var raw struct {
		FilePath string          `json:"file_path"`
		Content  json.RawMessage `json:"content"`
	}
	invalid := func(err error) *tools.Result {
		return tools.ErrorResult("the input is not a valid Write input (%v); send {\"file_path\", \"content\"}.", err)
	}
	rest, err := segjson.Parse(input, &raw, segjson.ZeroCopy)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		err = errors.New("text after the JSON object")
	}
	if err != nil {
		return nil, invalid(err)
	}
	// ZeroCopy: the path is a view of the input, which the call keeps.
	p := writeParams{FilePath: strings.Clone(raw.FilePath)}
	if raw.Content != nil {
		if p.Content, err = jsonstr.Decode(raw.Content); err != nil {
			return nil, invalid(err)
		}
	}
	countDecode()
	return &writeCall{change: newChange(w.ws, "file_path", p.FilePath), w: w, p: p}, nil
}

// refusal is the error of a path no content can be written to.
func (c *writeCall) refusal() *tools.Result {
	if c.bad != nil {
		return c.bad
	}
	if st, err := os.Stat(c.abs); err == nil && st.IsDir() {
		return tools.ErrorResult("%s is a directory; give the path of a file.", c.abs)
	}
	return nil
}

// prepare checks the write against the file; a non-nil result is the error
// the call ends with. checkFresh adds the checks that the file was read
// and is unchanged since (left out only for the preview of input the user
// has not approved yet).
func (c *writeCall) prepare(ctx context.Context, checkFresh bool) *tools.Result {
	if res := c.refusal(); res != nil {
		return res
	}
	abs := c.abs
	// A file never read is refused before it is read (it may be huge).
	if checkFresh {
		if err := c.ws.CheckRead(abs); err != nil {
			return tools.ErrorResult("%v", err)
		}
	}
	old, err := c.load(ctx, workspace.ReadFileMax)
	if err != nil {
		return tools.ErrorResult("cannot read %s before overwriting it: %v.", abs, err)
	}
	if checkFresh && old != nil {
		if err := c.checkFresh(); err != nil {
			return tools.ErrorResult("%v", err)
		}
	}
	// As in Claude Code, an existing file keeps its encoding and byte-order
	// mark; one that cannot be kept is refused.
	enc, text, err := fileEncoding(abs, old)
	if err != nil {
		return tools.ErrorResult("%v.", err)
	}
	if old == nil {
		text = nil
	}
	c.setBase(old)
	c.enc, c.text = enc, text
	return nil
}

// Prepare implements tools.Plan: a write over a file that changed since it
// was read fails before the user is asked.
func (c *writeCall) Prepare(ctx context.Context, _ tools.Host) *tools.Result {
	return c.precheck(c.prepare(ctx, true))
}

// Preview implements tools.Plan: the diff the write makes.
func (c *writeCall) Preview(context.Context) *tools.Preview {
	if !c.prepared {
		return nil
	}
	content := []byte(c.p.Content)
	return tools.FilePreview(c.abs, unifiedDiff(c.ws, c.abs, c.text, content), content)
}

// Precheck implements tools.Prechecker for callers that hold raw input
// (the pipeline prepares the Plan instead).
func (w *Write) Precheck(ctx context.Context, host tools.Host, input json.RawMessage) *tools.Result {
	c, res := w.decode(input)
	if res != nil {
		return res
	}
	return c.Prepare(ctx, host)
}

// Preview implements tools.Previewer: the diff the write would make.
func (w *Write) Preview(ctx context.Context, input json.RawMessage) *tools.Preview {
	c, res := w.decode(input)
	if res != nil || c.prepare(ctx, false) != nil {
		return nil
	}
	return c.Preview(ctx)
}

// Execute writes the file.
func (w *Write) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	c, _ := call.Plan.(*writeCall)
	if c == nil || c.w != w {
		var res *tools.Result
		if c, res = w.decode(call.Input); res != nil {
			return res, nil
		}
	}
	if res := c.refusal(); res != nil {
		return res, nil
	}
	abs, p := c.abs, c.p
	var enc textEncoding
	done, err := c.modify(ctx, call, "Write", 0,
		func([]byte) []byte { enc = c.enc; return enc.encode(p.Content) },
		func(current []byte) ([]byte, error) {
			var err error
			if enc, _, err = fileEncoding(abs, current); err != nil {
				return nil, resultError{tools.ErrorResult("%v.", err)}
			}
			return enc.encode(p.Content), nil
		}, nil)
	if err != nil {
		return changeResult(err)
	}
	done = decodedChange(done)
	if !done.Changed {
		return tools.TextResult(fmt.Sprintf("%s already has exactly this content; nothing changed.", abs)), nil
	}
	old := done.Old
	if call.Accepted != nil {
		// What the user accepted in a review is what was written (the
		// model is told how it differs from its proposal).
		p.Content = string(done.New)
	}
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

// Proposal implements tools.Proposer: the content written, in the file's
// encoding.
func (c *writeCall) Proposal() (tools.Proposal, bool) {
	return c.proposal("Write", c.enc.utf16 != nil, len(c.p.Content), func() []byte { return c.enc.encode(c.p.Content) })
}
