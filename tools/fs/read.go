package fs

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	_ "image/gif" // image.DecodeConfig of GIFs
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed read.md
var readDescription string

// Read limits (design.md section 3).
const (
	// maxReadChars caps the text of one Read (about 25,000 tokens, Claude
	// Code 2.1's cap) unless allow_large is set. A whole-file read over it
	// returns a partial first page with a note; an offset/limit range over
	// it is an error. Lines are never cut.
	maxReadChars = 100_000
	// maxLargeReadChars caps even an allow_large Read.
	maxLargeReadChars = 2_000_000
	// maxReadBytes is the largest file Read loads.
	maxReadBytes = 256 << 20
	// maxImageBytes keeps an image within what the Messages API accepts (5 MB
	// once base64-encoded).
	maxImageBytes = 3_750_000
	// maxPDFPages is the most pages one Read extracts.
	maxPDFPages = 20
	// maxOutputChars caps each notebook cell output.
	maxOutputChars = 10_000
	// maxNotebookImages and maxNotebookImageBytes (base64) cap the image
	// outputs one Read of a notebook attaches: a notebook of a hundred plots
	// would otherwise send them all, past what a model request takes.
	maxNotebookImages     = 20
	maxNotebookImageBytes = 4 * maxImageBytes
)

// imageExtension reports whether k is an extension of the images Read
// shows as images; the type sent is taken from the bytes (sniffImage), not
// from the extension.
func imageExtension(k string) bool {
	switch k {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

type readParams struct {
	FilePath   string `json:"file_path" jsonschema:"Absolute path of the file to read (relative paths resolve against the workspace root)."`
	Offset     *int   `json:"offset,omitempty" jsonschema:"1-based line number to start at (0 or less reads from line 1). Give it only for files too long to read at once." schema:"maximum=9007199254740991"`
	Limit      *int   `json:"limit,omitempty" jsonschema:"How many lines to read. Give it only for files too long to read at once." schema:"exclusiveMinimum=0,maximum=9007199254740991"`
	Pages      string `json:"pages,omitempty" jsonschema:"Pages of a PDF to read, e.g. \"3\" or \"1-5\"; at most 20 pages per call. Ignored for other files."`
	AllowLarge bool   `json:"allow_large,omitempty" jsonschema:"Lift the usual size cap for a text file or line range you really need whole."`
}

var readSchema = tools.SchemaOf[readParams](nil)

// Read shows a file: numbered text lines, notebook cells, images, PDF text.
type Read struct {
	ws *workspace.Workspace
}

// NewRead returns the Read tool over ws; what it reads is recorded in ws's
// read-state for Edit and Write.
func NewRead(ws *workspace.Workspace) *Read { return &Read{ws: ws} }

func (*Read) Name() string                 { return "Read" }
func (*Read) Description() string          { return readDescription }
func (*Read) InputSchema() json.RawMessage { return readSchema.JSON() }
func (*Read) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*Read) Docs() tools.Docs {
	return tools.Docs{
		Short: "Read a file: numbered lines, notebook cells, images, PDF pages; the editor's buffer when open.",
		Long: "Text is numbered as `cat -n` does (six-column line number, a tab, the line). As in Claude Code 2.1, " +
			"the whole file is shown up to a cap of about 25,000 tokens, lines are never cut, a larger file " +
			"shows its first part with a note saying which offset and limit continue, and an offset/limit " +
			"range over the cap is an error. A document open in the editor is read from " +
			"its buffer, unsaved changes included. Notebooks are shown as cells with ids and outputs " +
			"(at most 20 image outputs, 14 MB in all, attached per Read; the others are named with how to extract them), " +
			"PNG/JPEG/GIF/WebP images as image content of the type their bytes say (never the extension's), scaled as " +
			"Claude Code scales them to at most 2000 pixels on the long side (aspect ratio kept) and re-encoded as JPEG when " +
			"still over the Messages API's 5 MB of base64; an empty or undecodable image is an error, never an image the API refuses; PDFs as text (pdftotext) and page images (pdftoppm, " +
			"100 dpi JPEG; poppler-utils), without pages only for documents of up to 10 pages. " +
			"Binary files (by type, or NUL bytes with other non-text bytes) are refused, while a text file with a stray NUL byte is shown " +
			"as Claude Code shows it; an offset of 0 or less reads from line 1; a missing path lists similar names. Every Read is recorded so that " +
			"Edit and Write can check the file has not changed since.",
		Examples: []tools.Example{
			{Title: "Read a whole file", Input: json.RawMessage(`{"file_path":"/src/app/main.go"}`)},
			{Title: "Read lines 2001-2100 of a long log", Input: json.RawMessage(`{"file_path":"/var/log/build.log","offset":2001,"limit":100}`)},
			{Title: "Read pages 3 to 5 of a PDF", Input: json.RawMessage(`{"file_path":"/docs/spec.pdf","pages":"3-5"}`)},
		},
	}
}

// Access implements tools.AccessDescriber: the file read (with
// paths.fuzzy, the close match that will be read instead).
func (r *Read) Access(input json.RawMessage) tools.Access {
	var p readParams
	if json.Unmarshal(input, &p) != nil || p.FilePath == "" {
		return tools.Access{}
	}
	if r.ws != nil && r.ws.FuzzyPaths() {
		if abs, err := r.ws.Resolve(p.FilePath); err == nil {
			if match, note := fuzzyMatch(r.ws, abs); note != "" {
				return tools.Access{ReadPaths: []string{match}}
			}
		}
	}
	return tools.Access{ReadPaths: []string{p.FilePath}}
}

// Execute reads the file.
func (r *Read) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p readParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid Read input (%v); send {\"file_path\": \"/abs/path\"}.", err), nil
	}
	abs, bad := resolve(r.ws, "file_path", p.FilePath)
	if bad != nil {
		return bad, nil
	}
	abs, note := fuzzyMatch(r.ws, abs)
	// A path leading outside the workspace is read as the permission
	// checker approved it, by its real path, or not at all.
	ctx = workspace.WithApprovedReads(ctx, call.ApprovedReads)
	res, err := r.read(ctx, abs, p)
	if note != "" && res != nil && !res.IsError {
		res.Content = append(res.Content, tools.Content{Type: "text", Text: note})
	}
	return res, err
}

// read reads the file at abs.
func (r *Read) read(ctx context.Context, abs string, p readParams) (*tools.Result, error) {
	// pages is for PDFs; on any other file it is ignored, as in Claude Code.
	ext := strings.ToLower(filepath.Ext(abs))
	if _, _, open := r.ws.Document(abs); !open {
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return notFound(abs), nil
		case err != nil:
			return tools.ErrorResult("cannot read %s: %v.", abs, err), nil
		case st.IsDir():
			return tools.ErrorResult("%s is a directory, not a file. List it with Bash (ls) or find files in it with Glob.", abs), nil
		case !st.Mode().IsRegular():
			return tools.ErrorResult("%v.", &workspace.NotRegularError{Path: abs, Mode: st.Mode()}), nil
		case st.Size() > maxReadBytes:
			return tools.ErrorResult("%s is %d MB, too large to Read. Search it with Grep, or show parts with Bash (head, tail, sed -n).", abs, st.Size()>>20), nil
		}
		if binaryExtension(ext) {
			return binaryRefusal(abs), nil
		}
	}
	switch {
	case ext == ".ipynb":
		return r.readNotebook(ctx, abs, p.AllowLarge)
	case imageExtension(ext):
		return r.readImage(ctx, abs)
	case ext == ".pdf":
		return r.readPDF(ctx, abs, p.Pages)
	}
	return r.readText(ctx, abs, p)
}

func binaryRefusal(abs string) *tools.Result {
	return tools.ErrorResult("%s is a binary file; Read shows text, images (PNG, JPEG, GIF, WebP), PDFs and notebooks. Inspect it with Bash (file, xxd | head) if you must.", abs)
}

// readText renders a text file (or open buffer) as numbered lines.
func (r *Read) readText(ctx context.Context, abs string, p readParams) (*tools.Result, error) {
	// The file's bytes live only until the result is built (every line shown
	// is copied into it), so the buffer is reused across calls: reading a
	// large file again and again then costs no garbage.
	bufp := readBuffers.Get().(*[]byte)
	readStart := time.Now()
	cur, err := r.ws.ReadCurrent(ctx, abs, *bufp, maxReadBytes)
	data, version := cur.Data, cur.Version
	defer func() {
		if cap(data) <= maxPooledReadBuffer {
			*bufp = data[:0]
			readBuffers.Put(bufp)
		}
	}()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return tools.ErrorResult("cannot read %s: %v.", abs, err), nil
	}
	if looksBinary(data) {
		return binaryRefusal(abs), nil
	}
	r.ws.MarkRead(abs, data, version, readStart)
	if len(data) == 0 {
		return tools.TextResult(fmt.Sprintf("(%s is empty: 0 lines.)", abs)), nil
	}
	decoded := decodeForDisplay(data)
	text := decoded.text

	start := 1
	if p.Offset != nil && *p.Offset > 1 {
		start = *p.Offset
	}
	// A range the model chose (an offset past the first line, or a limit)
	// over the cap is an error, as in Claude Code 2.1; a whole-file read
	// over it returns a partial first page that says how to go on.
	explicit := start > 1 || p.Limit != nil
	limit := int(^uint(0) >> 1)
	if p.Limit != nil {
		limit = *p.Limit
	}
	charCap := maxReadChars
	if p.AllowLarge {
		charCap = maxLargeReadChars
	}

	total := countLines(text)
	if start > total {
		return tools.ErrorResult("offset %d is past the end of %s, which has %d lines. Use an offset from 1 to %d.", start, abs, total, total), nil
	}

	var out, content strings.Builder
	lineNo, shown := 0, 0
	cappedAt := 0
	// longLine, when set, is the length in characters of a first line too
	// long for the cap, of which only the start is shown.
	longLine := 0
	rest := text
	for rest != "" {
		lineNo++
		var line string
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, ""
		}
		if lineNo < start {
			continue
		}
		if shown == limit {
			break
		}
		line = strings.TrimSuffix(line, "\r")
		if out.Len()+len(line)+8 > charCap {
			if explicit {
				return rangeOverCap(abs, start, shown, charCap, p.AllowLarge), nil
			}
			cappedAt = lineNo
			if shown == 0 {
				longLine = utf8.RuneCountInString(line)
				line = cutRunes(line, charCap)
				writeNumbered(&out, lineNo, line)
				content.WriteString(line)
				shown++
			}
			break
		}
		writeNumbered(&out, lineNo, line)
		if shown > 0 {
			content.WriteByte('\n')
		}
		content.WriteString(line)
		shown++
	}
	end := start + shown - 1

	var notes []string
	if decoded.note != "" {
		notes = append(notes, decoded.note)
	}
	switch {
	case cur.Conflict != nil:
		notes = append(notes, "This is the editor's buffer, which has unsaved changes; the file on disk was changed too since the editor opened or saved it, so Edit and Write refuse it until the user saves or reverts it in the editor.")
	case cur.DiskAhead:
		notes = append(notes, "The file changed on disk since the editor loaded it; this is the disk's content (the editor's buffer had no unsaved changes and is out of date until it reloads or the file is changed).")
	}
	tokens := fmt.Sprintf("about %d tokens; the cap is %d", charCap/charsPerToken, charCap/charsPerToken)
	switch {
	case longLine > 0:
		notes = append(notes, fmt.Sprintf("Partial view: showing the first %d of the %d characters of line %d (%s). The file has lines too long to page by line: use Grep to find a specific section, or Bash (cut, head -c). Do not answer from this excerpt alone if the answer may be elsewhere in the file.", charCap, longLine, start, tokens))
	case cappedAt > 0:
		notes = append(notes, fmt.Sprintf("Partial view: showing lines %d-%d of %d (%s). Call Read with offset=%d and limit=%d for the next part, or use Grep to find a specific section. Do not answer from this part alone if the answer may be further in the file.", start, end, total, tokens, end+1, shown))
	case end < total: // a limit that stops before the end
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d. Call Read with offset %d to continue.", start, end, total, end+1))
	}
	if len(notes) > 0 {
		out.WriteString("\n[" + strings.Join(notes, "]\n[") + "]\n")
	}
	res := tools.TextResult(out.String())
	file := map[string]any{
		"filePath": abs, "content": content.String(), "numLines": shown, "startLine": start, "totalLines": total,
	}
	if cappedAt > 0 {
		file["truncatedByTokenCap"] = true
	}
	res.Structured = map[string]any{"type": "text", "file": file}
	return res, nil
}

// charsPerToken is the estimate of characters per token behind the caps
// (100,000 characters is Claude Code's 25,000-token cap).
const charsPerToken = 4

// rangeOverCap is the error for an offset/limit range too large to return;
// fits is how many of its lines would have fitted.
func rangeOverCap(abs string, start, fits, charCap int, large bool) *tools.Result {
	next := "or pass allow_large if you need it all at once"
	if large {
		next = "even allow_large cannot return more"
	}
	return tools.ErrorResult("the requested lines of %s, from line %d, are over the cap of about %d tokens (%d characters): only %d line(s) would fit. Ask for fewer lines (limit=%d), search the file with Grep, %s.",
		abs, start, charCap/charsPerToken, charCap, fits, max(fits, 1), next)
}

// readBuffers holds file buffers for readText; buffers above
// maxPooledReadBuffer are left to the garbage collector.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledReadBuffer = 8 << 20

// writeNumbered writes one line as cat -n does: the number right-aligned in
// six columns, a tab, the line.
func writeNumbered(b *strings.Builder, n int, line string) {
	num := strconv.Itoa(n)
	for i := len(num); i < 6; i++ {
		b.WriteByte(' ')
	}
	b.WriteString(num)
	b.WriteByte('\t')
	b.WriteString(line)
	b.WriteByte('\n')
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// lineList formats line numbers, at most ten of them.
func lineList(lines []int, total int) string {
	var parts []string
	for i, l := range lines {
		if i == maxListedLines {
			break
		}
		parts = append(parts, strconv.Itoa(l))
	}
	if total > len(parts) {
		parts = append(parts, fmt.Sprintf("and %d more", total-len(parts)))
	}
	return "lines " + strings.Join(parts, ", ")
}

// maxListedLines is how many line numbers lineList shows.
const maxListedLines = 10

// readImage returns an image as image content, of the type its bytes say
// and at a size the Messages API takes (prepareImage).
func (r *Read) readImage(ctx context.Context, abs string) (*tools.Result, error) {
	start := time.Now()
	data, err := r.ws.ReadRegular(ctx, abs, nil, maxImageFileBytes)
	var tooLarge *workspace.TooLargeError
	if errors.As(err, &tooLarge) {
		return tools.ErrorResult("%s is over the %d MB an image may have to be scaled here. Make a smaller copy (for example with ImageMagick: convert in.png -resize 2000x2000 out.png) and Read that.", abs, maxImageFileBytes>>20), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return tools.ErrorResult("cannot read %s: %v.", abs, err), nil
	}
	img, err := prepareImage(data)
	if err != nil {
		return tools.ErrorResult("cannot show %s: %v.", abs, err), nil
	}
	r.ws.MarkRead(abs, data, nil, start)
	desc := fmt.Sprintf("Image %s (%s, %d bytes, %dx%d pixels", abs, img.fileMIME, len(data), img.width, img.height)
	if img.reencoded {
		desc += fmt.Sprintf("; sent as %s at %dx%d, %d bytes, to fit the model's image limits", img.mime, img.shownWidth, img.shownHeight, len(img.data))
	}
	desc += ")"
	encoded := base64.StdEncoding.EncodeToString(img.data)
	return &tools.Result{
		Content: []tools.Content{
			{Type: "text", Text: desc},
			{Type: "image", Data: encoded, MimeType: img.mime},
		},
		Structured: map[string]any{"type": "image", "file": map[string]any{
			"base64": encoded, "type": img.mime, "originalSize": len(data),
			"dimensions": map[string]any{
				"originalWidth": img.width, "originalHeight": img.height,
				"displayWidth": img.shownWidth, "displayHeight": img.shownHeight,
			},
		}},
	}, nil
}

// pagesPattern matches a page or a range of pages.
var pagesPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$`) })

// parsePages parses "3" or "1-5" into a first and last page.
func parsePages(s string) (first, last int, err error) {
	m := pagesPattern().FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("pages %q is not a page or a range; write it like \"3\" or \"1-5\"", s)
	}
	first, _ = strconv.Atoi(m[1])
	last = first
	if m[2] != "" {
		last, _ = strconv.Atoi(m[2])
	}
	switch {
	case first < 1:
		return 0, 0, fmt.Errorf("pages start at 1, not %d", first)
	case last < first:
		return 0, 0, fmt.Errorf("pages %q ends before it starts", s)
	case last-first+1 > maxPDFPages:
		return 0, 0, fmt.Errorf("pages %q spans %d pages; read at most %d per call", s, last-first+1, maxPDFPages)
	}
	return first, last, nil
}

// readPDF extracts the text of a PDF's pages with pdftotext.
func (r *Read) readPDF(ctx context.Context, abs, pages string) (*tools.Result, error) {
	first, last := 1, maxPDFPages
	explicit := pages != ""
	if explicit {
		var err error
		if first, last, err = parsePages(pages); err != nil {
			return tools.ErrorResult("%v.", err), nil
		}
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return tools.ErrorResult("reading PDFs needs pdftotext, which is not installed. Install poppler-utils (apt-get install poppler-utils, or brew install poppler) and Read %s again.", abs), nil
	}
	// The poppler tools read the file as opened here, through the
	// workspace's jail, not by a path that may lead elsewhere by then.
	src, _, err := r.ws.OpenRegularContext(ctx, abs)
	if err != nil {
		return tools.ErrorResult("cannot read %s: %v.", abs, err), nil
	}
	defer src.Close()
	total := pdfPageCount(ctx, src)
	if total > 0 {
		if first > total {
			return tools.ErrorResult("%s has %d pages; pages %q is past the end.", abs, total, pages), nil
		}
		last = min(last, total)
	}
	// The bytes are read before the conversion, so that a change made while
	// it runs shows up as one when the agent edits the file.
	start := time.Now()
	data, readErr := r.ws.ReadRegular(ctx, abs, nil, maxReadBytes)
	cmd := pdfCommand(ctx, src, bin, "-layout", "-enc", "UTF-8", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), pdfArg, "-")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return tools.ErrorResult("pdftotext could not read %s (%v: %s). The file may be damaged or encrypted.", abs, err, strings.TrimSpace(stderr.String())), nil
	}
	if readErr == nil {
		r.ws.MarkRead(abs, data, nil, start)
	}
	var out strings.Builder
	texts := strings.Split(strings.TrimRight(stdout.String(), "\f"), "\f")
	empty := true
	for i, t := range texts {
		fmt.Fprintf(&out, "--- page %d ---\n", first+i)
		t = strings.TrimRight(t, " \n")
		if strings.TrimSpace(t) != "" {
			empty = false
		}
		out.WriteString(t)
		out.WriteString("\n")
	}
	shownLast := first + len(texts) - 1
	// The pages as images too, as Claude Code sends them: figures, tables
	// and scans are only visible that way. A whole-document read renders
	// them only when the document is short.
	var images []tools.Content
	imageNote := ""
	switch {
	case explicit || (total > 0 && total <= maxPDFImagePagesUnasked):
		var err error
		images, err = renderPDFPages(ctx, src, first, shownLast)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			imageNote = fmt.Sprintf("The pages could not be rendered as images (%v); only their text is shown.", err)
		default:
			imageNote = fmt.Sprintf("Pages %d-%d are attached as images (%d dpi JPEG) after the text.", first, first+len(images)-1, pdfImageDPI)
		}
	default:
		imageNote = fmt.Sprintf("Only the text is shown: the document has more than %d pages. Pass pages (for example \"1-5\") to see pages as images too, with their figures and tables.", maxPDFImagePagesUnasked)
	}
	if empty {
		out.WriteString("\n[No text could be extracted from these pages: they may be scanned images.]\n")
	}
	fmt.Fprintf(&out, "\n[%s]\n", imageNote)
	switch {
	case total > shownLast:
		fmt.Fprintf(&out, "\n[Showing pages %d-%d of %d. Pass pages (for example \"%d-%d\") to read more.]\n", first, shownLast, total, shownLast+1, min(total, shownLast+maxPDFPages))
	case total == 0 && !explicit && len(texts) == maxPDFPages:
		fmt.Fprintf(&out, "\n[Showing the first %d pages; the PDF may have more. Pass pages to read further.]\n", maxPDFPages)
	}
	res := tools.TextResult(out.String())
	res.Content = append(res.Content, images...)
	return res, nil
}

// PDF pages as images.
const (
	// pdfImageDPI is the resolution pages are rendered at (Claude Code's).
	pdfImageDPI = 100
	// maxPDFImagePagesUnasked is the longest document whose pages a Read
	// without pages renders as images.
	maxPDFImagePagesUnasked = 10
)

// pdfArg names, for a poppler tool, the PDF pdfCommand hands it open as its
// descriptor 3.
const pdfArg = "/dev/fd/3"

// pdfCommand runs a poppler tool on the PDF src (named pdfArg in args).
// Like every program a call starts, it ends with the call and with the
// server, however the server ends (internal/lifetime).
func pdfCommand(ctx context.Context, src *os.File, bin string, args ...string) *exec.Cmd {
	cmd := lifetime.Command(ctx, nil, bin, args...)
	cmd.ExtraFiles = []*os.File{src}
	return cmd
}

// renderPDFPages renders pages first..last of a PDF as JPEG images with
// pdftoppm (poppler-utils, beside pdftotext).
func renderPDFPages(ctx context.Context, src *os.File, first, last int) ([]tools.Content, error) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		return nil, errors.New("pdftoppm is not installed; install poppler-utils")
	}
	dir, err := os.MkdirTemp("", "toolhost-pdf-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := pdfCommand(ctx, src, bin, "-jpeg", "-r", strconv.Itoa(pdfImageDPI),
		"-f", strconv.Itoa(first), "-l", strconv.Itoa(last), pdfArg, filepath.Join(dir, "page"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pdftoppm: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	// pdftoppm names pages page-1.jpg or page-01.jpg (zero-padded to the
	// width of the page count): sorted by number, not by name.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type page struct {
		n    int
		name string
	}
	var pages []page
	for _, e := range entries {
		num := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "page-"), ".jpg")
		if n, err := strconv.Atoi(num); err == nil {
			pages = append(pages, page{n, e.Name()})
		}
	}
	slices.SortFunc(pages, func(a, b page) int { return a.n - b.n })
	var out []tools.Content
	for _, pg := range pages {
		data, err := os.ReadFile(filepath.Join(dir, pg.name))
		if err != nil {
			return nil, err
		}
		out = append(out, tools.Content{Type: "image", MimeType: "image/jpeg", Data: base64.StdEncoding.EncodeToString(data)})
	}
	if len(out) == 0 {
		return nil, errors.New("pdftoppm rendered no pages")
	}
	return out, nil
}

// pdfPageCountPattern finds the page count in pdfinfo's output.
var pdfPageCountPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Pages:\s+(\d+)`) })

// pdfPageCount asks pdfinfo (poppler-utils, beside pdftotext) for the page
// count; 0 when it cannot tell.
func pdfPageCount(ctx context.Context, src *os.File) int {
	bin, err := exec.LookPath("pdfinfo")
	if err != nil {
		return 0
	}
	out, err := pdfCommand(ctx, src, bin, pdfArg).Output()
	if err != nil {
		return 0
	}
	m := pdfPageCountPattern().FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// readNotebook shows a notebook cell by cell, with image outputs as images.
func (r *Read) readNotebook(ctx context.Context, abs string, allowLarge bool) (*tools.Result, error) {
	start := time.Now()
	data, version, err := r.ws.ReadFileLimit(ctx, abs, nil, workspace.ReadFileMax)
	if err != nil {
		return tools.ErrorResult("cannot read %s: %v.", abs, err), nil
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return tools.ErrorResult("%s: %v. Read it with offset/limit as text, or fix the JSON.", abs, err), nil
	}
	r.ws.MarkRead(abs, data, version, start)
	charCap := maxReadChars
	if allowLarge {
		charCap = maxLargeReadChars
	}
	text, images := nb.render(charCap)
	res := &tools.Result{Content: []tools.Content{{Type: "text", Text: text}}}
	res.Content = append(res.Content, images...)
	return res, nil
}
