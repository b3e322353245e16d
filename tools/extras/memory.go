package extras

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed memory.md
var memoryDescription string

// MemoryDir is where notes live, relative to the first workspace root.
const MemoryDir = ".toolhost/memory"

// Limits of Memory.
const (
	maxNoteNameLength = 100
	maxSearchHits     = 100
	// maxNoteBytes caps what one note may hold when read.
	maxNoteBytes = 16 << 20
)

var memorySchema = tools.SchemaOf[memoryParams](nil)

type memoryParams struct {
	Action  string  `json:"action" jsonschema:"What to do." schema:"enum=read|write|append|list|delete|search|set_fact|get_fact|clear_fact|clear"`
	Name    string  `json:"name,omitempty" jsonschema:"The note's name, which is its file name: letters, digits, '.', '_' and '-', not beginning with '.' or '-' (other names are refused). Needed by read, write, append and delete; or the fact's name, needed by set_fact and clear_fact (get_fact without it lists every fact)."`
	Content *string `json:"content,omitempty" jsonschema:"Markdown to store (write replaces the note, append adds to its end), or the fact's value for set_fact."`
	Query   string  `json:"query,omitempty" jsonschema:"Text to look for (case-insensitive) in every note, for search."`
}

// Memory keeps notes that outlive the session as markdown files under
// <first root>/.toolhost/memory/.
type Memory struct {
	ws *workspace.Workspace
	// mu serialises changes so that two appends to one note both land.
	mu sync.Mutex
}

// NewMemory returns the Memory tool storing notes in ws's first root.
func NewMemory(ws *workspace.Workspace) *Memory {
	return &Memory{ws: ws}
}

func (*Memory) Name() string                 { return "Memory" }
func (*Memory) Description() string          { return memoryDescription }
func (*Memory) InputSchema() json.RawMessage { return memorySchema.JSON() }

// SideEffect is state: the notes are toolhost's own data, kept apart from the
// project's files.
func (*Memory) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*Memory) Docs() tools.Docs {
	return tools.Docs{
		Short: "Keep notes and key/value facts across sessions under .toolhost/memory/.",
		Long: "Actions: read, write (replace), append, list, delete and search (case-insensitive, in " +
			"names and text). Notes are <name>.md files in the first workspace root's " +
			".toolhost/memory/ folder; a name is the file's name and may hold only letters, digits, " +
			"'.', '_' and '-', not beginning with '.' or '-': any other name (a path, a hidden file, a " +
			"name with spaces or control characters) is refused with the nearest allowed one, so a name " +
			"never leaves that folder and distinct names are distinct notes; files there with other " +
			"names are not listed. Writes are atomic. Facts are short named values kept in " +
			".toolhost/memory/facts.json: set_fact (name, content), get_fact (name; without it, every " +
			"fact), clear_fact (name) and clear (every fact; notes stay). A facts file that is not a " +
			"JSON object of strings is reported and left alone.",
		Examples: []tools.Example{
			{Title: "Remember a convention", Input: json.RawMessage(`{"action":"write","name":"conventions","content":"- errors wrap with %w\n- tests are table-driven\n"}`)},
			{Title: "Find what was noted about tests", Input: json.RawMessage(`{"action":"search","query":"test"}`)},
			{Title: "Remember how tests run", Input: json.RawMessage(`{"action":"set_fact","name":"test-command","content":"make test"}`)},
		},
	}
}

// Access implements tools.AccessDescriber: the note a call reads or writes,
// and the notes folder for list and search, so that a .toolhost or
// .toolhost/memory linked outside the workspace is judged as outside (a
// read asks, a write is refused).
func (m *Memory) Access(input json.RawMessage) tools.Access {
	var p memoryParams
	if json.Unmarshal(input, &p) != nil {
		return tools.Access{}
	}
	if isFactAction(p.Action) {
		if p.Action == "get_fact" {
			return tools.Access{ReadPaths: []string{m.factsPath()}}
		}
		return tools.Access{WritePaths: []string{m.factsPath()}}
	}
	if p.Action == "list" || p.Action == "search" {
		return tools.Access{ReadPaths: []string{m.dir()}}
	}
	name, err := checkNoteName(p.Name)
	if err != nil {
		return tools.Access{}
	}
	path := m.notePath(name)
	switch p.Action {
	case "read":
		return tools.Access{ReadPaths: []string{path}}
	case "write", "append", "delete":
		return tools.Access{WritePaths: []string{path}}
	}
	return tools.Access{}
}

// Execute runs one action.
func (m *Memory) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p memoryParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid Memory input (%v); send {\"action\": \"list\"} to start.", err), nil
	}
	switch p.Action {
	case "list":
		return m.list()
	case "search":
		if strings.TrimSpace(p.Query) == "" {
			return tools.ErrorResult("search needs a non-empty query."), nil
		}
		return m.search(ctx, p.Query)
	case "read", "write", "append", "delete":
	default:
		if isFactAction(p.Action) {
			return m.facts(p)
		}
		return tools.ErrorResult("unknown action %q; use read, write, append, list, delete or search for notes, set_fact, get_fact, clear_fact or clear for facts.", p.Action), nil
	}
	name, err := checkNoteName(p.Name)
	if err != nil {
		return tools.ErrorResult("%v", err), nil
	}
	if (p.Action == "write" || p.Action == "append") && p.Content == nil {
		return tools.ErrorResult("%s needs content: the markdown to store.", p.Action), nil
	}
	switch p.Action {
	case "read":
		return m.read(name)
	case "write":
		return m.write(name, *p.Content, false)
	case "append":
		return m.write(name, *p.Content, true)
	default:
		return m.delete(name)
	}
}

func (m *Memory) dir() string { return filepath.Join(m.ws.Root(), filepath.FromSlash(MemoryDir)) }

func (m *Memory) notePath(name string) string { return filepath.Join(m.dir(), name+".md") }

// noteRel is a note's path relative to the workspace root. Notes are read,
// written, listed and deleted through an os.Root on the root, so a memory
// folder that is (or becomes) a link to elsewhere is refused, never used.
func noteRel(name string) string { return filepath.Join(filepath.FromSlash(MemoryDir), name+".md") }

func (m *Memory) read(name string) (*tools.Result, error) {
	data, err := m.readNote(name)
	if errors.Is(err, fs.ErrNotExist) {
		return m.missing(name)
	}
	if err != nil {
		return m.unreadable(name, err), nil
	}
	if len(data) == 0 {
		return tools.TextResult(fmt.Sprintf("The note %q is empty.", name)), nil
	}
	return tools.TextResult(string(data)), nil
}

func (m *Memory) write(name, content string, appendTo bool) (*tools.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data := content
	verb := "Saved"
	if appendTo {
		old, err := m.readNote(name)
		switch {
		case err == nil:
			verb = "Appended to"
			if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
				old = append(old, '\n')
			}
			data = string(old) + content
		case !errors.Is(err, fs.ErrNotExist):
			return m.unreadable(name, err), nil
		}
	}
	// A note larger than a read takes could be written but never read,
	// appended to or searched again.
	if len(data) > maxNoteBytes {
		return tools.ErrorResult("the note %q would hold %d bytes; a note holds at most %d MiB, so nothing was written. Keep notes short: split this into several notes, or save large material as a file in the workspace.", name, len(data), maxNoteBytes>>20), nil
	}
	if err := workspace.WriteFileIn(m.ws.Root(), noteRel(name), []byte(data)); err != nil {
		return nil, fmt.Errorf("write note %s: %w", name, err)
	}
	return tools.TextResult(fmt.Sprintf("%s the note %q (%s/%s.md, %d bytes).", verb, name, MemoryDir, name, len(data))), nil
}

func (m *Memory) delete(name string) (*tools.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.remove(name)
	if errors.Is(err, fs.ErrNotExist) {
		return m.missing(name)
	}
	if err != nil {
		return nil, fmt.Errorf("delete note %s: %w", name, err)
	}
	return tools.TextResult(fmt.Sprintf("Deleted the note %q.", name)), nil
}

// missing is the error for a note that does not exist, naming those that do.
func (m *Memory) missing(name string) (*tools.Result, error) {
	names, err := m.names()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return tools.ErrorResult("there is no note %q, and no notes at all yet; create one with action \"write\".", name), nil
	}
	return tools.ErrorResult("there is no note %q. The notes are: %s.", name, strings.Join(names, ", ")), nil
}

// names lists the notes, sorted.
func (m *Memory) names() ([]string, error) {
	entries, err := m.readDir()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	var names []string
	for _, e := range entries {
		// A file whose name is no note's name (one a repository ships,
		// or one made by hand) cannot be read as a note: it is left out.
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok && e.Type().IsRegular() && validNoteName(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func (m *Memory) list() (*tools.Result, error) {
	names, err := m.names()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return tools.TextResult("No notes yet. Create one with action \"write\"."), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d notes in %s/:\n", len(names), MemoryDir)
	for _, name := range names {
		first, st, err := m.firstLine(name)
		if err != nil {
			continue // deleted meanwhile
		}
		fmt.Fprintf(&b, "- %s (%d bytes, changed %s)", name, st.Size(), st.ModTime().UTC().Format("2006-01-02 15:04 UTC"))
		if first != "" {
			fmt.Fprintf(&b, ": %s", first)
		}
		b.WriteByte('\n')
	}
	return tools.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
}

func (m *Memory) search(ctx context.Context, query string) (*tools.Result, error) {
	names, err := m.names()
	if err != nil {
		return nil, err
	}
	needle := strings.ToLower(query)
	var hits []string
	more := false
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if strings.Contains(strings.ToLower(name), needle) {
			hits = append(hits, fmt.Sprintf("%s: (name matches)", name))
		}
		data, err := m.readNote(name)
		if err != nil {
			continue // deleted meanwhile
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(strings.ToLower(line), needle) {
				hits = append(hits, fmt.Sprintf("%s:%d: %s", name, i+1, strings.TrimSpace(line)))
			}
		}
		if len(hits) > maxSearchHits {
			hits, more = hits[:maxSearchHits], true
			break
		}
	}
	if len(hits) == 0 {
		return tools.TextResult(fmt.Sprintf("No note mentions %q (%d notes searched).", query, len(names))), nil
	}
	text := strings.Join(hits, "\n")
	if more {
		text += fmt.Sprintf("\n(only the first %d matches are shown; search for something more specific)", maxSearchHits)
	}
	return tools.TextResult(text), nil
}

// unreadable is the answer for a note that exists but cannot be read; the
// model cannot fix it, the user can.
func (m *Memory) unreadable(name string, err error) *tools.Result {
	return tools.ErrorResult("the note %q cannot be read (%v), so nothing was changed. Tell the user; they can remove or fix %s/%s.md.", name, err, MemoryDir, name)
}

// readNote reads a note: a regular file (the folder can come with a
// repository, and a named pipe or a link to a device under a note's name
// would never end a read) of at most maxNoteBytes.
func (m *Memory) readNote(name string) ([]byte, error) {
	return pathutil.ReadFileIn(m.ws.Root(), noteRel(name), maxNoteBytes)
}

// firstLine is the first non-empty line of a note, shortened, for
// listings, with the note's file information.
func (m *Memory) firstLine(name string) (string, fs.FileInfo, error) {
	f, st, err := pathutil.OpenRegularIn(m.ws.Root(), noteRel(name))
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			if utf8.RuneCountInString(line) > 80 {
				line = string([]rune(line)[:80]) + "…"
			}
			return line, st, nil
		}
	}
	return "", st, nil
}

// readDir lists the memory folder, opened through the root's os.Root.
func (m *Memory) readDir() ([]fs.DirEntry, error) {
	root, err := os.OpenRoot(m.ws.Root())
	if err != nil {
		return nil, err
	}
	defer root.Close()
	d, err := root.Open(filepath.FromSlash(MemoryDir))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// remove deletes a note.
func (m *Memory) remove(name string) error { return m.removeRel(noteRel(name)) }

// removeRel deletes rel (relative to the root) through the root's os.Root.
func (m *Memory) removeRel(rel string) error {
	root, err := os.OpenRoot(m.ws.Root())
	if err != nil {
		return err
	}
	defer root.Close()
	return root.Remove(rel)
}

// checkNoteName returns the note a name names. A note's name is its file
// name, so that distinct names are distinct notes: it may hold only
// letters, digits, '.', '_' and '-' and may not begin with '.' or '-' (no
// path separator, no "..", no hidden file, nothing a listing could not
// show). Surrounding white space and a trailing ".md" are not part of it.
// Any other name is refused, with the nearest name that is allowed.
func checkNoteName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if strings.HasSuffix(strings.ToLower(n), ".md") {
		n = n[:len(n)-3]
	}
	switch {
	case n == "":
		return "", fmt.Errorf("the note name is empty; give the note a name such as \"project-conventions\"")
	case len(n) > maxNoteNameLength:
		return "", fmt.Errorf("the note name %q is longer than %d characters; use a shorter name", name, maxNoteNameLength)
	case !validNoteName(n):
		msg := fmt.Sprintf("the note name %q cannot be used: a note's name is its file name, so it may hold only letters (a-z, A-Z), digits, '.', '_' and '-', and may not begin with '.' or '-'", name)
		if s := suggestNoteName(n); s != "" {
			msg += fmt.Sprintf("; call again with the name %q", s)
		}
		return "", errors.New(msg)
	}
	return n, nil
}

// validNoteName reports whether n is a note's name as it is.
func validNoteName(n string) bool {
	if n == "" || n[0] == '.' || n[0] == '-' {
		return false
	}
	for _, r := range n {
		if !noteNameRune(r) {
			return false
		}
	}
	return true
}

func noteNameRune(r rune) bool {
	return r == '.' || r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// suggestNoteName is the allowed name nearest to n: each run of other
// characters becomes one '-', and leading and trailing '.' and '-' go.
// It may be "" or longer than allowed; the caller checks.
func suggestNoteName(n string) string {
	var b strings.Builder
	dash := false
	for _, r := range n {
		if !noteNameRune(r) || r == '-' {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = false
	}
	s := strings.Trim(b.String(), ".-")
	if len(s) > maxNoteNameLength {
		return ""
	}
	return s
}
