package fs

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolhost/toolhost/tools"
)

// maxNotebookCells caps the cells of a notebook NotebookEdit and Read
// work on: real notebooks hold hundreds, a hostile file of empty cells
// could hold tens of millions, each costing the index below.
const maxNotebookCells = 1_000_000

// notebook is an .ipynb file, indexed rather than decoded: the file as read
// and the byte range of each cell in it. A cell is decoded (numbers as
// json.Number) only when it is shown or edited, so a notebook of a hundred
// megabytes costs the file and its index, not a tree of maps many times its
// size, and writing it back changes only the cell an edit touched.
type notebook struct {
	raw   []byte
	cells []nbCell
	// nbformat, nbformatMinor and metadata are the ranges of those
	// top-level values (empty when absent).
	nbformat, nbformatMinor, metadata span
	// spliceable is false when the file's layout rules out rewriting one
	// cell's bytes in place (a repeated "cells" key): encode rewrites the
	// whole file then.
	spliceable bool
	// indent is the indentation of the original file (nbformat writes one
	// space), reused when writing.
	indent string
	// finalNewline is whether the original ended with a newline.
	finalNewline bool
}

// nbCell is one cell's place in the file and the id it carries.
type nbCell struct {
	span
	// id is the cell's "id" when it is a string; hasID is whether it has
	// the key at all.
	id    string
	hasID bool
}

// parseNotebook indexes an nbformat 4 notebook.
func parseNotebook(data []byte) (*notebook, error) {
	nb := &notebook{raw: data, indent: detectIndent(data), finalNewline: bytes.HasSuffix(data, []byte("\n")), spliceable: true}
	var cells span
	seen := 0
	// The last of repeated keys wins, as when the file is decoded.
	err := newScanner(data).document(func(name []byte, val span) {
		switch string(name) {
		case "cells":
			cells, seen = val, seen+1
		case "nbformat":
			nb.nbformat = val
		case "nbformat_minor":
			nb.nbformatMinor = val
		case "metadata":
			nb.metadata = val
		}
	})
	switch {
	case err == errNotObject:
		return nil, errors.New("not a valid notebook: it is not a JSON object")
	case err != nil:
		return nil, fmt.Errorf("not a valid notebook (JSON error: %v)", err)
	}
	if seen == 0 || data[cells.start] != '[' {
		return nil, errors.New("not a valid notebook: it has no \"cells\" list (nbformat 4 is supported)")
	}
	nb.spliceable = seen == 1
	var bad error
	// One scanner walks the list, another each cell in it, reused from cell
	// to cell.
	cellScan := newScanner(data)
	err = newScanner(data).elements(cells, func(i int, val span) bool {
		if data[val.start] != '{' {
			bad = fmt.Errorf("not a valid notebook: cell %d is not an object", i)
			return false
		}
		if i == maxNotebookCells {
			bad = fmt.Errorf("the notebook has more than %d cells, more than NotebookEdit and Read handle; change it with Bash (jq, or Python's json module) instead", maxNotebookCells)
			return false
		}
		c := nbCell{span: val}
		err := cellScan.members(val, func(name []byte, v span) bool {
			if string(name) == "id" {
				c.hasID = true
				c.id, _ = jsonString(data, v)
			}
			return true
		})
		nb.cells = append(nb.cells, c)
		bad = err
		return err == nil
	})
	// document has checked the file: the walks meet no syntax error, so
	// this is only the cells' own faults.
	if err = cmp.Or(bad, err); err != nil {
		return nil, err
	}
	return nb, nil
}

// cell decodes cell i, numbers as json.Number so they are written back as
// they were.
func (nb *notebook) cell(i int) (map[string]any, error) {
	var cell map[string]any
	err := decodeNumbers(nb.raw[nb.cells[i].start:nb.cells[i].end], &cell)
	return cell, err
}

// decodeNumbers decodes data into v keeping numbers as json.Number.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// span is the byte range [start, end) of one value in a file.
type span struct{ start, end int }

// cellEdit is one change of the cells list, for splicing: at is an index
// into the original cells; a nil cell deletes, insert adds before at.
type cellEdit struct {
	at     int
	insert bool
	cell   map[string]any
}

// splice writes the notebook by changing only the bytes of the edited
// cell in the original file, so the rest keeps its formatting exactly.
// ok is false when it cannot (then encode rewrites the file).
func (nb *notebook) splice(e cellEdit) ([]byte, bool) {
	if !nb.spliceable {
		return nil, false
	}
	n := len(nb.cells)
	encoded := func(cell map[string]any) ([]byte, bool) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if nb.indent != "" {
			enc.SetIndent(nb.indent+nb.indent, nb.indent)
		}
		if enc.Encode(cell) != nil {
			return nil, false
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
	}
	// sep is what stands between two cells in the original.
	sep := []byte(",")
	if nb.indent != "" {
		sep = []byte(",\n" + nb.indent + nb.indent)
	}
	if n >= 2 {
		sep = nb.raw[nb.cells[0].end:nb.cells[1].start]
	}
	var out []byte
	// room sizes the output for what it gets: the original plus a cell.
	room := func(extra int) []byte { return make([]byte, 0, len(nb.raw)+extra) }
	switch {
	case e.cell == nil: // delete
		if e.at < 0 || e.at >= n {
			return nil, false
		}
		from, to := nb.cells[e.at].start, nb.cells[e.at].end
		switch {
		case e.at > 0:
			from = nb.cells[e.at-1].end
		case n > 1:
			to = nb.cells[1].start
		}
		out = append(append(room(0), nb.raw[:from]...), nb.raw[to:]...)
	case e.insert:
		c, ok := encoded(e.cell)
		if !ok || n == 0 || e.at < 0 || e.at > n {
			return nil, false
		}
		out = room(len(c) + len(sep))
		if e.at == n {
			at := nb.cells[n-1].end
			out = append(append(append(append(out, nb.raw[:at]...), sep...), c...), nb.raw[at:]...)
		} else {
			at := nb.cells[e.at].start
			out = append(append(append(append(out, nb.raw[:at]...), c...), sep...), nb.raw[at:]...)
		}
	default: // replace
		c, ok := encoded(e.cell)
		if !ok || e.at < 0 || e.at >= n {
			return nil, false
		}
		sp := nb.cells[e.at].span
		out = append(append(append(room(len(c)), nb.raw[:sp.start]...), c...), nb.raw[sp.end:]...)
	}
	// The result must still be the notebook it claims to be.
	if !json.Valid(out) {
		return nil, false
	}
	return out, true
}

// detectIndent returns the indentation of the first indented line of a JSON
// document ("" for a one-line file).
func detectIndent(data []byte) string {
	lines := bytes.SplitN(data, []byte("\n"), 3)
	if len(lines) < 2 {
		return ""
	}
	l := lines[1]
	return string(l[:len(l)-len(bytes.TrimLeft(l, " \t"))])
}

// encode writes the notebook as nbformat does: keys sorted (Go's encoder
// sorts map keys too), the original indentation, non-ASCII kept as is.
// It decodes the whole file, so it is the fallback for what splice cannot
// do (the first cell of an empty list, a repeated "cells" key).
func (nb *notebook) encode() ([]byte, error) { return nb.rewrite(nil) }

// maxRewriteBytes caps the notebooks encode rewrites whole: decoded into
// maps a notebook takes some ten times its size, the cost splice avoids.
const maxRewriteBytes = 32 << 20

// rewrite is encode with one cell edit applied.
func (nb *notebook) rewrite(e *cellEdit) ([]byte, error) {
	if len(nb.raw) > maxRewriteBytes {
		return nil, fmt.Errorf("this change needs the notebook rewritten whole (its cell list is empty, or its \"cells\" key is repeated), which NotebookEdit does only up to %d MB, and the file has %d MB. Fix the file with Bash (jq) first", maxRewriteBytes>>20, len(nb.raw)>>20)
	}
	var doc map[string]any
	if err := decodeNumbers(nb.raw, &doc); err != nil {
		return nil, err
	}
	cells, _ := doc["cells"].([]any)
	if e != nil {
		switch {
		case e.at < 0 || e.at > len(cells) || (!e.insert && e.at == len(cells)):
			return nil, fmt.Errorf("cell %d is out of range", e.at)
		case e.cell == nil:
			cells = append(cells[:e.at], cells[e.at+1:]...)
		case e.insert:
			cells = append(cells[:e.at], append([]any{e.cell}, cells[e.at:]...)...)
		default:
			cells[e.at] = e.cell
		}
	}
	doc["cells"] = cells
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if nb.indent != "" {
		enc.SetIndent("", nb.indent)
	}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if !nb.finalNewline {
		out = bytes.TrimSuffix(out, []byte("\n"))
	}
	return out, nil
}

// cellIndexPattern matches the ids Read gives cells that have none.
var cellIndexPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cell-(\d+)$`) })

// cellID is the id of cell i: its own, or "cell-N" (0-based) for notebooks
// older than nbformat 4.5.
func (nb *notebook) cellID(i int) string {
	if id := nb.cells[i].id; id != "" {
		return id
	}
	return "cell-" + strconv.Itoa(i)
}

// find returns the index of the cell with id, accepting "cell-N" for a cell
// without an id of its own; -1 when there is none.
func (nb *notebook) find(id string) int {
	for i := range nb.cells {
		if nb.cellID(i) == id {
			return i
		}
	}
	if m := cellIndexPattern().FindStringSubmatch(id); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(nb.cells) {
			return i
		}
	}
	return -1
}

// named returns the indexes of the cells whose id is id: more than one in
// a notebook whose ids collide (nbformat forbids it; a hand-made or hostile
// file may still hold it).
func (nb *notebook) named(id string) []int {
	var at []int
	for i := range nb.cells {
		if nb.cellID(i) == id {
			at = append(at, i)
		}
	}
	return at
}

// ids lists the cell ids, for error messages.
func (nb *notebook) ids(limit int) string {
	var ids []string
	for i := range nb.cells {
		if i == limit {
			ids = append(ids, fmt.Sprintf("… (%d cells)", len(nb.cells)))
			break
		}
		ids = append(ids, nb.cellID(i))
	}
	if len(ids) == 0 {
		return "(the notebook has no cells)"
	}
	return strings.Join(ids, ", ")
}

// usesIDs reports whether new cells need an id: nbformat 4.5 and later
// require one.
func (nb *notebook) usesIDs() bool {
	number := func(sp span) int {
		n, _ := strconv.Atoi(strings.Trim(string(nb.raw[sp.start:sp.end]), `"`))
		return n
	}
	major, minor := number(nb.nbformat), number(nb.nbformatMinor)
	if major > 4 || (major == 4 && minor >= 5) {
		return true
	}
	for _, c := range nb.cells {
		if c.hasID {
			return true
		}
	}
	return false
}

// newCellID returns a random 8-hex-digit id (as Jupyter makes) not used yet.
func (nb *notebook) newCellID() string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if nb.find(id) < 0 {
			return id
		}
	}
}

// multiline joins an nbformat multi-line string (a string or a list of strings).
func multiline(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, part := range s {
			if p, ok := part.(string); ok {
				b.WriteString(p)
			}
		}
		return b.String()
	}
	return ""
}

// sourceLines splits text into nbformat's list form: every line keeps its
// "\n" except the last. The lines are views of text, in a list sized once.
func sourceLines(text string) []string {
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// ansiEscape matches terminal colour codes in tracebacks.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`) })

// render shows the notebook for the model: each cell in a <cell> element
// with its id, type and execution count, then its outputs; image outputs
// come back as image content after the text. Past charCap characters the
// remaining cells are left out with a note.
func (nb *notebook) render(charCap int) (string, []tools.Content) {
	var b strings.Builder
	var images []tools.Content
	imageBytes := 0
	if lang := nb.language(); lang != "" {
		fmt.Fprintf(&b, "Notebook language: %s. %d cells.\n", lang, len(nb.cells))
	}
	// Edit refuses notebooks; say which tool changes them before the model
	// copies a cell's text into an Edit.
	b.WriteString("Change a cell with NotebookEdit (its cell_id and the whole new_source), not Edit.\n\n")
	for i := range nb.cells {
		if i > 0 && b.Len() > charCap {
			b.WriteString(capNote(charCap, i, len(nb.cells)))
			break
		}
		id := nb.cellID(i)
		cell, err := nb.cell(i)
		if err != nil {
			fmt.Fprintf(&b, "<cell id=%q>\n[not shown: %v]\n</cell>\n", id, err)
			continue
		}
		kind, _ := cell["cell_type"].(string)
		attrs := fmt.Sprintf("id=%q cell_type=%q", id, kind)
		if n, ok := cell["execution_count"].(json.Number); ok {
			attrs += fmt.Sprintf(" execution_count=%q", n.String())
		}
		src := strings.TrimRight(multiline(cell["source"]), "\n")
		if room := max(charCap-b.Len(), 1000); len(src) > room {
			// One cell's source is held to the cap too: a cell of
			// megabytes would otherwise be shown whole.
			fmt.Fprintf(&b, "<cell %s>\n%s\n[source cut at %d of %d characters. Pass allow_large to see more, or extract the cell with Bash: jq -r '.cells[%d].source | if type == \"array\" then join(\"\") else . end']\n</cell>\n",
				attrs, cutRunes(src, room), room, utf8.RuneCountInString(src), i)
			b.WriteString(capNote(charCap, i+1, len(nb.cells)))
			break
		}
		fmt.Fprintf(&b, "<cell %s>\n%s\n</cell>\n", attrs, src)
		outputs, _ := cell["outputs"].([]any)
		if len(outputs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "<outputs cell_id=%q>\n", id)
		for k, o := range outputs {
			if b.Len() > charCap+maxOutputChars {
				// A cell of thousands of outputs stops at the cap too.
				fmt.Fprintf(&b, "[outputs %d-%d of this cell not shown: the Read cap. Extract them with Bash (jq '.cells[%d].outputs[%d:]').]\n", k+1, len(outputs), i, k)
				break
			}
			out, ok := o.(map[string]any)
			if !ok {
				continue
			}
			text, img := renderOutput(out)
			if text != "" {
				if len(text) > maxOutputChars {
					text = cutRunes(text, maxOutputChars) + fmt.Sprintf("\n[output cut at %d characters]", maxOutputChars)
				}
				b.WriteString(strings.TrimRight(text, "\n"))
				b.WriteString("\n")
			}
			switch {
			case img == nil:
			case len(images) == maxNotebookImages || imageBytes+len(img.Data) > maxNotebookImageBytes || len(img.Data) > maxImageBytes/3*4:
				fmt.Fprintf(&b, "[%s output not attached: a Read attaches at most %d images, %d MB in all, and an image at most %d MB. Extract it with Bash (jq -r on the cell's outputs, then base64 -d into a file) and Read that file.]\n",
					img.MimeType, maxNotebookImages, maxNotebookImageBytes>>20, maxImageBytes/3*4>>20)
			default:
				fmt.Fprintf(&b, "[%s output, attached as image %d]\n", img.MimeType, len(images)+1)
				images = append(images, *img)
				imageBytes += len(img.Data)
			}
		}
		b.WriteString("</outputs>\n")
	}
	if len(nb.cells) == 0 {
		b.WriteString("(The notebook has no cells.)\n")
	}
	return b.String(), images
}

// capNote says a Read of a notebook stopped at its cap after shown cells.
func capNote(charCap, shown, total int) string {
	return fmt.Sprintf("\n[Output capped at about %d characters: showing cells 1-%d of %d. Pass allow_large to see the whole notebook, or extract cells with Bash (jq).]\n", charCap, shown, total)
}

// language is the notebook's kernel language, when it says.
func (nb *notebook) language() string {
	for _, at := range [][2]string{{"language_info", "name"}, {"kernelspec", "language"}} {
		if name, ok := jsonString(nb.raw, field(nb.raw, field(nb.raw, nb.metadata, at[0]), at[1])); ok {
			return name
		}
	}
	return ""
}

// field is the range of the value of key in the object at sp (the last one
// when the key repeats), empty when there is none.
func field(data []byte, sp span, key string) span {
	var found span
	if sp.start < sp.end {
		// A value of another kind has no fields: its error is ignored.
		_ = newScanner(data).members(sp, func(name []byte, v span) bool {
			if string(name) == key {
				found = v
			}
			return true
		})
	}
	return found
}

// renderOutput turns one output into text and, for PNG/JPEG data, an image.
func renderOutput(out map[string]any) (string, *tools.Content) {
	switch out["output_type"] {
	case "stream":
		return multiline(out["text"]), nil
	case "error":
		var tb []string
		if lines, ok := out["traceback"].([]any); ok {
			for _, l := range lines {
				if s, ok := l.(string); ok {
					tb = append(tb, ansiEscape().ReplaceAllString(s, ""))
				}
			}
		}
		head := fmt.Sprintf("%v: %v", out["ename"], out["evalue"])
		if len(tb) > 0 {
			return head + "\n" + strings.Join(tb, "\n"), nil
		}
		return head, nil
	case "execute_result", "display_data":
		data, _ := out["data"].(map[string]any)
		for _, mime := range []string{"image/png", "image/jpeg"} {
			if s := multiline(data[mime]); s != "" {
				img := &tools.Content{Type: "image", MimeType: mime, Data: strings.ReplaceAll(s, "\n", "")}
				return multiline(data["text/plain"]), img
			}
		}
		if s := multiline(data["text/plain"]); s != "" {
			return s, nil
		}
		if len(data) > 0 {
			mimes := make([]string, 0, len(data))
			for mime := range data {
				mimes = append(mimes, mime)
			}
			sort.Strings(mimes)
			return fmt.Sprintf("[%s output not shown]", strings.Join(mimes, ", ")), nil
		}
	}
	return "", nil
}
