package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/execjail"
	"github.com/toolhost/toolhost/internal/ignore"
	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/internal/visible"
)

// ripgrep runs the rg binary. Its ignore rules are pinned by flags so they
// are the ones internal/ignore implements: no config file, hidden files
// searched, .gitignore honoured outside git repositories too, no global
// excludes file, VCS folders excluded.
//
// A folder is searched with rg jailed by Landlock (internal/execjail) to
// read-only access beneath that folder as the workspace's jail opened it
// (and the ignore files above it): rg walks by path, and
// only the kernel can keep a folder swapped for a link to elsewhere during
// the walk from showing what lies outside. Where the jail cannot be had
// (no Landlock), folders are searched by the Go
// backend, which walks through the workspace's jail; rg never searches a
// folder unjailed. A single file is handed to rg already opened through the
// workspace's jail, so rg runs as is for it.
type ripgrep struct {
	path string
	// jail says whether rg can run jailed (execjail.Check, probed once).
	jail func(context.Context) execjail.Status
	// log, when set, is told once which backend searches folders.
	log *slog.Logger

	// inGo bounds the folders searched in Go instead (see smallFolder);
	// zero: every folder goes to rg.
	inGo searchBudget

	// bigMu guards bigFolders, the folders a search found past inGo's
	// bounds: a later search of one goes to rg at once, without paying the
	// Go search up to the bounds again (5 to 7 ms on a 20,000-file tree,
	// against rg's ~14 ms start). A folder that has shrunk since is still
	// searched right, by rg; one that has grown is found out by the bounds.
	bigMu      sync.Mutex
	bigFolders map[string]struct{}

	// once guards the report of the backend that searches folders,
	// failOnce the report of a jail that failed although the probe passed.
	once, failOnce sync.Once
}

func newRipgrep(path string) *ripgrep {
	return &ripgrep{path: path, jail: execjail.Check, inGo: smallFolder}
}

// smallFolder is the size of a folder searched in Go rather than by rg:
// starting rg costs more than searching a small folder (on a 2-core
// machine, rg's start alone takes about 14 ms of CPU, where the Go backend
// searches fifty small files in about 2 ms). A folder is searched in Go up
// to these bounds; past them the Go search stops and rg searches the
// folder from the start, which costs a big folder the few milliseconds
// spent reaching the bound. A variable so that the tests which compare the
// backends can send every folder to rg.
var smallFolder = searchBudget{files: 100, bytes: 2 << 20}

// smallFile says whether f, a single file to search, is within the bytes
// of a small folder: it is then searched in Go too.
func smallFile(f *os.File, bytes int64) bool {
	st, err := f.Stat()
	return err == nil && st.Size() <= bytes
}

// searchesInGo says whether a query may be answered by the Go backend,
// and returns it compiled: patterns whose meaning differs in Go go to rg,
// as do patterns Go cannot compile (rg gives the error, or the answer).
// Go's \b and \B are ASCII-based where rg's are Unicode-aware, and Go
// reads rg's class operators (&&, --, ~~: intersection, difference,
// symmetric difference) as literal characters; a pattern holding any of
// them, even outside a class, goes to rg.
func searchesInGo(q *grepQuery) (*compiledQuery, bool) {
	for _, differs := range []string{`\b`, `\B`, "&&", "--", "~~"} {
		if strings.Contains(q.pattern, differs) {
			return nil, false
		}
	}
	cq, err := compileQuery(q)
	return cq, err == nil
}

// jailed reports whether folders are searched by rg under Landlock, saying
// which backend searches them once in the log.
func (r *ripgrep) jailed(ctx context.Context) bool {
	st := r.jail(ctx)
	r.once.Do(func() {
		switch {
		case r.log == nil:
		case st.Err == nil:
			r.log.Info("Grep searches folders with ripgrep jailed by Landlock to the folder it searches", "rg", r.path, "landlock_abi", st.ABI)
		default:
			r.log.Warn("Grep searches folders in Go, through the workspace's os.Root jail, not with ripgrep: ripgrep cannot be jailed here. Use Linux 5.13 or later with Landlock enabled for ripgrep's speed.", "reason", st.Err.Error())
		}
	})
	return st.Err == nil
}

// folderSearch says which backend searches folders, and why, for
// toolhost/status.
func (r *ripgrep) folderSearch(ctx context.Context) string {
	st := r.jail(ctx)
	if st.Err != nil {
		return "go, jailed by os.Root (ripgrep cannot be jailed: " + st.Err.Error() + ")"
	}
	return fmt.Sprintf("ripgrep, jailed by Landlock (ABI %d)", st.ABI)
}

func (*ripgrep) name() string { return "ripgrep" }

// maxBigFolders bounds the folders ripgrep remembers as big; past it the
// memory starts over, so a session that searches many folders keeps a
// bounded map.
const maxBigFolders = 256

// knownBig says whether a search of folder root went past the bounds of
// the Go search before.
func (r *ripgrep) knownBig(root string) bool {
	r.bigMu.Lock()
	defer r.bigMu.Unlock()
	_, big := r.bigFolders[root]
	return big
}

// noteBig remembers root as past the bounds of the Go search.
func (r *ripgrep) noteBig(root string) {
	r.bigMu.Lock()
	defer r.bigMu.Unlock()
	if r.bigFolders == nil || len(r.bigFolders) >= maxBigFolders {
		r.bigFolders = map[string]struct{}{}
	}
	r.bigFolders[root] = struct{}{}
}

// rgFileArg names, for rg, the single file a query hands it open as its
// descriptor 3 (exec.Cmd.ExtraFiles).
const rgFileArg = "/dev/fd/3"

// args builds rg's command line for a query.
func (r *ripgrep) args(q *grepQuery) []string {
	// Not --no-messages: its silence about paths rg could not read made a
	// partial search look complete. Parse errors of ignore files stay
	// quiet, as in the Go backend.
	args := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-messages"}
	if q.ignoreCase {
		args = append(args, "--ignore-case")
	} else {
		args = append(args, "--case-sensitive")
	}
	if q.multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	if q.fileType != "" {
		args = append(args, "--type", q.fileType)
	}
	for _, g := range q.globs {
		args = append(args, "--glob", g)
	}
	// Last, so they win over the caller's globs.
	for _, d := range ignore.VCSDirs {
		args = append(args, "--glob", "!"+d)
	}
	switch q.mode {
	case ModeFilesWithMatches:
		args = append(args, "--files-with-matches", "--null")
	case ModeCount:
		args = append(args, "--count", "--with-filename", "--null")
	case ModeContent:
		if plainContent(q) {
			// Not --json, whose submatch list makes a line matching at
			// every byte fifty times its size: --max-columns applies here.
			args = append(args, "--with-filename", "--line-number", "--byte-offset", "--null", "--no-heading",
				"--color", "never", "--no-context-separator", "--max-columns", strconv.Itoa(maxRgLine))
		} else {
			args = append(args, "--json")
		}
		if q.before > 0 {
			args = append(args, "--before-context", strconv.Itoa(q.before))
		}
		if q.after > 0 {
			args = append(args, "--after-context", strconv.Itoa(q.after))
		}
	}
	root := q.root
	if q.file != nil {
		root = rgFileArg
	}
	return append(args, "--regexp", q.pattern, "--", root)
}

func (r *ripgrep) search(ctx context.Context, q *grepQuery) (searchResult, error) {
	if r.inGo != (searchBudget{}) && (q.file == nil && !r.knownBig(q.root) || q.file != nil && smallFile(q.file, r.inGo.bytes)) {
		if cq, ok := searchesInGo(q); ok {
			found, over, err := cq.search(ctx, r.inGo)
			if !over {
				return found, err
			}
			if q.file == nil {
				r.noteBig(q.root)
			}
		}
	}
	if q.file == nil && !r.jailed(ctx) || q.file != nil && !rgSearchesOpenFiles {
		return nativeGrep{}.search(ctx, q)
	}
	found, err := r.run(ctx, q)
	var jailErr *jailError
	if errors.As(err, &jailErr) {
		// The jail failed this time although the probe passed: the Go
		// backend, jailed too, answers instead, and the log says so.
		r.failOnce.Do(func() {
			if r.log != nil {
				r.log.Warn("ripgrep could not start jailed, so a search ran in Go instead (and will whenever this happens again)", "reason", jailErr.msg)
			}
		})
		return nativeGrep{}.search(ctx, q)
	}
	return found, err
}

// jailError: the jail could not be set up (execjail.Error) or the loader
// could not run rg in it, and rg never ran.
type jailError struct{ msg string }

func (e *jailError) Error() string { return "jailing ripgrep: " + e.msg }

// command returns the command that runs rg for q: for a folder, jailed to
// the folder as opened through the workspace's jail (q.dir, handed to the
// jail open, so the rule is that very folder); for a single file, as is,
// with the file handed over open as its descriptor 3. start starts it
// (jailed, for a folder); done releases what the command was given once it
// has started.
func (r *ripgrep) command(ctx context.Context, q *grepQuery) (cmd *exec.Cmd, start, done func() error, err error) {
	if q.file != nil {
		cmd := exec.CommandContext(ctx, r.path, r.args(q)...)
		cmd.ExtraFiles = []*os.File{q.file}
		// Like every program a call starts, rg ends with the call and
		// with the server, however the server ends (internal/lifetime):
		// a search of a huge file reads on for minutes otherwise.
		lifetime.Prepare(cmd, nil)
		return cmd, cmd.Start, func() error { return nil }, nil
	}
	dir, err := q.dir.Open(".")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("opening %s: %w", q.root, err)
	}
	// rg honours the ignore files above the folder too.
	readable := execjail.Readable{Dirs: []*os.File{dir}, Files: ignore.FilesAbove(q.root)}
	jailed := execjail.CommandContext(ctx, readable, r.path, r.args(q)...)
	lifetime.Prepare(jailed.Cmd, nil)
	start = func() error {
		err := jailed.Start()
		var failed *execjail.Error
		if errors.As(err, &failed) {
			return &jailError{msg: failed.Reason}
		}
		return err
	}
	return jailed.Cmd, start, sync.OnceValue(dir.Close), nil
}

func (r *ripgrep) run(ctx context.Context, q *grepQuery) (searchResult, error) {
	// rgCtx also ends rg when the output grows past maxCollectedBytes.
	rgCtx, stopRg := context.WithCancel(ctx)
	defer stopRg()
	cmd, start, release, err := r.command(rgCtx, q)
	if err != nil {
		return searchResult{}, err
	}
	defer release()
	// A single file is searched as opened through the jail, handed to rg
	// as its descriptor 3; its hits are named by the path as given.
	named := func(h *fileHits) {}
	if q.file != nil {
		named = func(h *fileHits) { h.path = q.root }
	}
	// ripgrep writes a line per path it cannot read; a tree of unreadable
	// files must not fill memory with them.
	stderr := &cappedWriter{max: 64 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return searchResult{}, err
	}
	if f, ok := stdout.(*os.File); ok {
		enlargePipe(f)
	}
	err = start()
	_ = release()
	var jailErr *jailError
	if errors.As(err, &jailErr) {
		return searchResult{}, err
	}
	if err != nil {
		return searchResult{}, fmt.Errorf("starting ripgrep: %w", err)
	}
	var hits []*fileHits
	var parseErr error
	stopped := false
	switch q.mode {
	case ModeContent:
		w := newWindow(q)
		if plainContent(q) {
			stopped, parseErr = parseRgText(stdout, w, maxCollectedBytes, func(path string, offset int64) int64 {
				return lineSizeAt(q, path, offset)
			})
		} else {
			stopped, parseErr = parseRgJSON(stdout, w, maxCollectedBytes)
		}
		hits = w.files
		if stopped {
			stopRg()
		}
	case ModeCount:
		hits, parseErr = parseRgPaths(stdout, true, nil)
	default:
		// Modification times are read while ripgrep is still searching.
		stats := newStatter()
		hits, parseErr = parseRgPaths(stdout, false, func(h *fileHits) {
			named(h)
			stats.add(h)
		})
		stats.wait()
	}
	for _, h := range hits {
		named(h)
	}
	_, _ = io.Copy(io.Discard, stdout) // let rg finish writing
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return searchResult{}, ctx.Err()
	}
	if stopped {
		return searchResult{hits: hits, stopped: true}, nil
	}
	if parseErr != nil {
		return searchResult{}, fmt.Errorf("reading ripgrep's output: %w", parseErr)
	}
	var exit *exec.ExitError
	// The loader's failure (127: a library rg needs lies outside what the
	// jail lets it read).
	if errors.As(waitErr, &exit) && exit.ExitCode() == 127 && q.file == nil && len(hits) == 0 {
		return searchResult{}, &jailError{msg: strings.TrimSpace(stderr.String())}
	}
	var unsearched []string
	if errors.As(waitErr, &exit) {
		// 1: nothing matched. 2: an error: the pattern (nothing searched),
		// or a path that could not be read (the rest was searched).
		if exit.ExitCode() == 2 {
			msg := stderr.String()
			if len(hits) == 0 && isPatternError(msg) {
				return searchResult{}, errorf("%s", rgError(msg))
			}
			unsearched = rgUnsearched(msg, stderr.truncated)
			if len(unsearched) == 0 {
				unsearched = []string{"(ripgrep reported an error without naming a path; it exited with status 2)"}
			}
		}
	} else if waitErr != nil {
		return searchResult{}, fmt.Errorf("running ripgrep: %w", waitErr)
	}
	return searchResult{hits: hits, unsearched: unsearched}, nil
}

// isPatternError reports whether ripgrep's message is about the pattern.
func isPatternError(msg string) bool {
	return strings.Contains(msg, "regex parse error") || strings.Contains(msg, "error parsing")
}

// rgUnsearched turns ripgrep's error lines ("PATH: reason (os error N)")
// into the paths not searched, each with its reason; truncated says the
// lines were cut, which the last entry then says.
func rgUnsearched(msg string, truncated bool) []string {
	var out []string
	for line := range strings.Lines(msg) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, visible.Name(line))
	}
	if truncated && len(out) > 0 {
		out[len(out)-1] = "(more paths ripgrep could not read; their list was too long to keep)"
	}
	return out
}

// cappedWriter keeps the first max bytes written to it and counts the
// rest as cut; writing never fails, so the writer is never blocked.
type cappedWriter struct {
	max       int
	buf       bytes.Buffer
	truncated bool
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if room := w.max - w.buf.Len(); n > room {
		w.truncated = true
		p = p[:max(room, 0)]
	}
	w.buf.Write(p)
	return n, nil
}

func (w *cappedWriter) String() string { return w.buf.String() }

// rgError turns ripgrep's message into one that says what to do.
func rgError(msg string) string {
	msg = strings.TrimSpace(msg)
	if isPatternError(msg) {
		return "the pattern is not a valid regular expression:\n" + msg + "\nFix the pattern (escape special characters such as ( [ { with a backslash to match them literally)."
	}
	return "ripgrep failed: " + msg
}

// parseRgPaths reads the output of --files-with-matches or --count with
// --null: path NUL (count) newline.
func parseRgPaths(r io.Reader, counts bool, found func(*fileHits)) ([]*fileHits, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var hits []*fileHits
	for {
		path, err := br.ReadString(0)
		if err != nil {
			return hits, nil // a path is always followed by NUL
		}
		h := &fileHits{path: strings.TrimSuffix(path, "\x00"), count: 1}
		if counts {
			n, err := br.ReadString('\n')
			if err != nil && n == "" {
				return hits, nil
			}
			h.count, _ = strconv.Atoi(strings.TrimSpace(n))
		}
		if found != nil {
			found(h)
		}
		hits = append(hits, h)
	}
}

// rgData is ripgrep's text-or-bytes value.
type rgData struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	b, _ := base64.StdEncoding.DecodeString(d.Bytes)
	return string(b)
}

// rgMessage is one line of ripgrep's --json output (the fields used).
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
		Submatches []struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"submatches"`
	} `json:"data"`
}

// parseRgJSON reads --json output into w. It stops (stopped true) once
// the text w keeps exceeds budget bytes.
func parseRgJSON(r io.Reader, w *window, budget int64) (stopped bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	// split turns a match into its lines and their parts, as the Go
	// backend builds them.
	var split fileHits
	// skim: a message's parts can be counted without decoding it (-o on
	// single lines); lastPath is the raw path of the last message skimmed
	// and lastFile its file.
	skim := w.onlyMatching && !w.multiline
	var lastPath []byte
	var lastFile *fileHits
	for {
		l, err := readRgLine(br, buf)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		buf = l.data
		line := l.data
		// Only match and context lines matter; skip the rest unparsed.
		if !bytes.HasPrefix(line, []byte(`{"type":"match"`)) && !bytes.HasPrefix(line, []byte(`{"type":"context"`)) {
			continue
		}
		if w.heldBytes > budget {
			return true, nil
		}
		if skim && !l.long {
			// Decoding every message is most of the cost of a pattern
			// matching many lines: a match the window does not keep is
			// only counted.
			if path, parts, ok := skimParts(line); ok {
				if lastFile == nil || !bytes.Equal(path, lastPath) {
					var p rgData
					if err := json.Unmarshal(path, &p); err != nil {
						return false, err
					}
					lastFile, lastPath = w.file([]byte(p.String())), append(lastPath[:0], path...)
				}
				if !w.keeps(lastFile) {
					lastFile.count++
					lastFile.entries += parts
					continue
				}
			}
		}
		split.lines = split.lines[:0]
		var h *fileHits
		if l.long {
			// A long context line is left out; a long match shows as a
			// note on its line.
			path, text, ok := omittedMatch(l)
			if !ok {
				continue
			}
			h = w.file([]byte(path))
			split.addMatch(l.lineNo, text, nil)
		} else {
			var m rgMessage
			if err := json.Unmarshal(line, &m); err != nil {
				return false, err
			}
			h = w.file([]byte(m.Data.Path.String()))
			text := m.Data.Lines.String()
			if m.Type == "context" {
				split.addContext(m.Data.LineNumber, text)
			} else {
				subs := make([][2]int, len(m.Data.Submatches))
				for i, s := range m.Data.Submatches {
					subs[i] = [2]int{s.Start, s.End}
				}
				split.addMatch(m.Data.LineNumber, text, subs)
			}
		}
		h.count += split.count
		split.count = 0
		for _, hl := range split.lines {
			w.put(h, hl)
		}
	}
}

// Markers in a match message of ripgrep's --json output. None can occur
// inside a JSON string, where quotes are escaped, so each found is the
// field's own.
var (
	matchPrefix    = []byte(`{"type":"match","data":{"path":`)
	submatchesKey  = []byte(`"submatches":[`)
	submatchText   = []byte(`{"match":{"text":"`)
	submatchBytes  = []byte(`{"match":{"bytes":"`)
	submatchMarker = []byte(`{"match":{"`)
)

// skimParts reads a match message without decoding it: the raw JSON of
// its path, and the number of parts -o shows for it (single-line
// matches). A part is shown unless it is empty once a trailing carriage
// return is cut (fileHits.addMatch), so a submatch counts unless its text
// is "" or "\r". ok is false for anything else, which is then decoded.
func skimParts(msg []byte) (path []byte, parts int, ok bool) {
	if !bytes.HasPrefix(msg, matchPrefix) {
		return nil, 0, false
	}
	rest := msg[len(matchPrefix):]
	// The path: {"text":"…"} or {"bytes":"…"}.
	open := bytes.IndexByte(rest, ':')
	if !bytes.HasPrefix(rest, []byte(`{"`)) || open < 0 || open+1 >= len(rest) || rest[open+1] != '"' {
		return nil, 0, false
	}
	end := jsonStringEnd(rest[open+2:])
	if end < 0 || open+2+end+1 >= len(rest) || rest[open+2+end+1] != '}' {
		return nil, 0, false
	}
	path, rest = rest[:open+2+end+2], rest[open+2+end+2:]
	i := bytes.Index(rest, submatchesKey)
	if i < 0 {
		return nil, 0, false
	}
	rest = rest[i+len(submatchesKey):]
	for {
		i := bytes.Index(rest, submatchMarker)
		if i < 0 {
			return path, parts, true
		}
		rest = rest[i:]
		switch {
		case bytes.HasPrefix(rest, submatchText):
			rest = rest[len(submatchText):]
			if !bytes.HasPrefix(rest, []byte(`"`)) && !bytes.HasPrefix(rest, []byte(`\r"`)) {
				parts++
			}
		case bytes.HasPrefix(rest, submatchBytes):
			// Not UTF-8, so neither empty nor a carriage return.
			rest = rest[len(submatchBytes):]
			parts++
		default:
			return nil, 0, false
		}
		end := jsonStringEnd(rest)
		if end < 0 {
			return nil, 0, false
		}
		rest = rest[end+1:]
	}
}

// jsonStringEnd is the index of the quote that closes the JSON string
// whose content starts b, -1 when b holds none.
func jsonStringEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// statter reads the modification times of hits on a few goroutines as
// they are found.
type statter struct {
	queue chan *fileHits
	wg    sync.WaitGroup
}

func newStatter() *statter {
	s := &statter{queue: make(chan *fileHits, 256)}
	for range runtime.GOMAXPROCS(0) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for h := range s.queue {
				if fi, err := os.Stat(h.path); err == nil {
					h.mtime = fi.ModTime()
				}
			}
		}()
	}
	return s
}

func (s *statter) add(h *fileHits) { s.queue <- h }

// wait returns once every hit added has its time.
func (s *statter) wait() {
	close(s.queue)
	s.wg.Wait()
}
