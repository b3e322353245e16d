package workspace

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// The change journal records every file change toolhost makes through
// Modify (Edit, Write, NotebookEdit), grouped into turns, so that the user
// can list an agent's work and rewind a call, a file or a whole turn
// (docs/editing.md, "Change sets and rewind"). It lives in the workspace's
// state folder (StateDir), outside the user's files and git, as an
// append-only log (journal.jsonl) plus the contents it needs to rewind
// (blobs/<sha256>), so a server that crashed or restarted in the same
// workspace still rewinds the last turn.

// Journal limits; JournalOptions may lower them (tests do).
const (
	// DefaultJournalFileMax is the largest content kept for one change:
	// a bigger file's change is listed but cannot be rewound.
	DefaultJournalFileMax = 4 << 20
	// DefaultJournalTotalMax bounds the contents kept in all; the oldest
	// turns are dropped first.
	DefaultJournalTotalMax = 128 << 20
	// DefaultJournalTurnsMax bounds the turns kept.
	DefaultJournalTurnsMax = 200
	// DefaultTurnPause ends a turn an agent gave no id for: a change after
	// this long without one starts a new turn.
	DefaultTurnPause = 2 * time.Minute
)

// JournalOptions configure OpenJournal.
type JournalOptions struct {
	// FileMax, TotalMax, TurnsMax and Pause replace the defaults when > 0.
	FileMax, TotalMax int64
	TurnsMax          int
	Pause             time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives the failures to store a change (the change itself
	// stands); nil discards them.
	Log *slog.Logger
}

// Origin says who made a change: the call, its tool, the agent and the
// turn. Transports put it in the call's context (WithOrigin); the
// pipeline adds the call id and tool (WithCall).
type Origin struct {
	CallID string
	Tool   string
	Agent  string
	// Turn is the turn id the client gave; "" lets the journal bound the
	// turn by a pause.
	Turn string
}

type originKey struct{}

// WithOrigin returns ctx carrying o, merged over what ctx carries already
// (empty fields of o keep the earlier values).
func WithOrigin(ctx context.Context, o Origin) context.Context {
	prev := OriginOf(ctx)
	if o.CallID == "" {
		o.CallID = prev.CallID
	}
	if o.Tool == "" {
		o.Tool = prev.Tool
	}
	if o.Agent == "" {
		o.Agent = prev.Agent
	}
	if o.Turn == "" {
		o.Turn = prev.Turn
	}
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf is the Origin ctx carries; zero when none.
func OriginOf(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	return o
}

// AgentNamer is implemented by editors (hosts) that know the name of the
// agent a call comes from; the journal records it.
type AgentNamer interface {
	AgentName() string
}

// JournalEntry is one recorded change of one file.
type JournalEntry struct {
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"time"`
	Turn   string    `json:"turn"`
	CallID string    `json:"callId"`
	Tool   string    `json:"tool,omitempty"`
	Agent  string    `json:"agent,omitempty"`
	Path   string    `json:"path"`
	// Before is the SHA-256 (hex) of the content the change replaced; ""
	// when it created the file.
	Before string `json:"before,omitempty"`
	// After is the SHA-256 (hex) of the content it left.
	After string `json:"after"`
	// Kept is set when the content before is stored: only then can the
	// change be rewound or shown.
	Kept bool `json:"kept"`
}

// Journal is the change journal of a workspace. Safe for concurrent use.
type Journal struct {
	dir  string
	opts JournalOptions

	mu sync.Mutex
	// entries are the recorded changes, oldest first.
	entries []JournalEntry
	// blobs are the stored contents' sizes by hash.
	blobs map[string]int64
	// seq is the last entry's number.
	seq int64
	// autoTurn is, by agent, the turn of calls that gave no turn id.
	autoTurn map[string]string
	// logInfo is the log file entries were read from (nil: none yet) and
	// logRead how many of its bytes: another server on the same folder
	// appends to it, and a trim replaces it by a new file.
	logInfo os.FileInfo
	logRead int64
	// logCut is set when the log ends in a line cut short (by a crash, or
	// by another server still writing it).
	logCut bool
}

// OpenJournal returns the journal kept in dir (created at the first
// change). The log is read at the first use.
func OpenJournal(dir string, opts JournalOptions) *Journal {
	if opts.FileMax <= 0 {
		opts.FileMax = DefaultJournalFileMax
	}
	if opts.TotalMax <= 0 {
		opts.TotalMax = DefaultJournalTotalMax
	}
	if opts.TurnsMax <= 0 {
		opts.TurnsMax = DefaultJournalTurnsMax
	}
	if opts.Pause <= 0 {
		opts.Pause = DefaultTurnPause
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Journal{dir: dir, opts: opts, blobs: map[string]int64{}, autoTurn: map[string]string{}}
}

// SetJournal makes Modify record every change in j (nil stops recording).
func (w *Workspace) SetJournal(j *Journal) {
	w.mu.Lock()
	w.journal = j
	w.mu.Unlock()
}

// Journal is the workspace's change journal; nil when none is kept.
func (w *Workspace) Journal() *Journal {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.journal
}

// Hash is the journal's content hash: SHA-256, hex.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

const journalLog = "journal.jsonl"

// Two servers on one folder (two editor windows) share the journal: each
// reads what the other appended before it uses its entries (syncLocked),
// and every change of the files (an append, a trim) is made holding
// journal.lock, a lock across processes, after that read. So neither drops
// the other's lines when it trims, and the numbers stay unique.

// syncLocked brings the entries up to the log on disk: the lines appended
// since the last read, or the whole log again when it is another file (a
// trim replaced it). A line cut short is skipped.
func (j *Journal) syncLocked() {
	f, err := os.Open(filepath.Join(j.dir, journalLog))
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return
	}
	if j.logInfo == nil || !os.SameFile(info, j.logInfo) || info.Size() < j.logRead {
		j.entries, j.blobs, j.seq, j.logRead = nil, map[string]int64{}, 0, 0
	}
	j.logInfo = info
	if info.Size() == j.logRead {
		return
	}
	if _, err := f.Seek(j.logRead, io.SeekStart); err != nil {
		return
	}
	r := bufio.NewReaderSize(f, 64<<10)
	j.logCut = false
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A last line without its end: cut by a crash, or being
			// written; read again next time.
			j.logCut = len(line) > 0
			return
		}
		j.logRead += int64(len(line))
		var e JournalEntry
		if json.Unmarshal(line, &e) != nil || e.Path == "" {
			continue
		}
		if e.Kept {
			e.Kept = j.statBlob(e.Before)
		}
		j.entries = append(j.entries, e)
		j.seq = max(j.seq, e.Seq)
	}
}

// lockShared takes journal.lock, the lock that orders the changes of the
// journal's files across processes, and reads what others appended; the
// caller holds j.mu and calls the returned func when done.
func (j *Journal) lockShared() (unlock func(), err error) {
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(j.dir, "journal.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the change journal: %w", err)
	}
	j.syncLocked()
	return func() {
		_ = unlockFile(f)
		_ = f.Close()
	}, nil
}

// statBlob notes a stored content's size; false when it is missing.
func (j *Journal) statBlob(hash string) bool {
	if hash == "" {
		return true
	}
	st, err := os.Stat(j.blobPath(hash))
	if err != nil {
		return false
	}
	j.blobs[hash] = st.Size()
	return true
}

func (j *Journal) blobPath(hash string) string { return filepath.Join(j.dir, "blobs", hash) }

// Record adds the change of path from before (nil: created) to after,
// made by the call ctx carries, to the journal. A failure to store is
// returned for logging; the change itself stands.
func (j *Journal) Record(ctx context.Context, ed Editor, path string, before, after []byte) error {
	o := OriginOf(ctx)
	if o.Agent == "" {
		if n, ok := ed.(AgentNamer); ok {
			o.Agent = n.AgentName()
		}
	}
	if o.Agent == "" {
		o.Agent = "agent"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	unlock, lerr := j.lockShared()
	if lerr != nil {
		j.opts.Log.Warn("the change journal could not store a change: it cannot be rewound", "path", path, "err", lerr)
		return lerr
	}
	defer unlock()
	now := j.opts.Now()
	j.seq++
	e := JournalEntry{Seq: j.seq, Time: now.UTC(), CallID: o.CallID, Tool: o.Tool, Agent: o.Agent, Path: path, After: Hash(after)}
	if e.CallID == "" {
		e.CallID = "call-" + strconv.FormatInt(e.Seq, 10)
	}
	if before != nil {
		e.Before = Hash(before)
	}
	e.Turn = o.Turn
	if e.Turn == "" {
		e.Turn = j.autoTurnLocked(o.Agent, now)
	}
	// Only the content before is kept: what the change left is the file
	// itself until something changes it again, and then the rewind keeps
	// the file anyway.
	var err error
	if int64(len(before)) <= j.opts.FileMax {
		err = j.storeBlob(e.Before, before)
		e.Kept = err == nil
	}
	j.entries = append(j.entries, e)
	if werr := j.appendLocked(e); werr != nil && err == nil {
		err = werr
	}
	j.trimLocked()
	if err != nil {
		j.opts.Log.Warn("the change journal could not store a change: it cannot be rewound", "path", path, "err", err)
	}
	return err
}

// autoTurnLocked is the turn of a change by agent without a turn id: the
// agent's last such turn unless its last change is older than the pause.
func (j *Journal) autoTurnLocked(agent string, now time.Time) string {
	turn := j.autoTurn[agent]
	if turn == "" {
		// After a restart: the agent's last change, when it had no turn id.
		for i := len(j.entries) - 1; i >= 0; i-- {
			if e := j.entries[i]; e.Agent == agent {
				if isAutoTurn(e.Turn) {
					turn = e.Turn
				}
				break
			}
		}
	}
	for i := len(j.entries) - 1; turn != "" && i >= 0; i-- {
		if e := j.entries[i]; e.Turn == turn {
			if now.Sub(e.Time) > j.opts.Pause {
				turn = ""
			}
			break
		}
	}
	if turn == "" {
		turn = newAutoTurn(now)
	}
	j.autoTurn[agent] = turn
	return turn
}

// newAutoTurn names a turn the journal bounded itself.
func newAutoTurn(now time.Time) string { return "auto-" + strconv.FormatInt(now.UnixNano(), 36) }

func isAutoTurn(id string) bool { return len(id) > 5 && id[:5] == "auto-" }

func (j *Journal) storeBlob(hash string, data []byte) error {
	if hash == "" {
		return nil
	}
	if _, ok := j.blobs[hash]; ok {
		return nil
	}
	dir := filepath.Join(j.dir, "blobs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// Written and renamed, not synced: a content cut short by a crash
	// fails Content's hash check, and its change is not rewound, while a
	// sync would cost every Edit milliseconds.
	f, err := os.CreateTemp(dir, ".blob-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), j.blobPath(hash)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	j.blobs[hash] = int64(len(data))
	return nil
}

func (j *Journal) appendLocked(e JournalEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(j.dir, journalLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if j.logCut {
		// Under the lock nobody is writing: the cut line is a crash's,
		// and this entry must not be glued to it.
		line = append([]byte{'\n'}, line...)
	}
	line = append(line, '\n')
	_, err = f.Write(line)
	if err == nil {
		// What was read of the log now ends with this line.
		j.logRead += int64(len(line))
		j.logCut = false
		if info, serr := f.Stat(); serr == nil {
			j.logInfo = info
		}
	}
	return errors.Join(err, f.Close())
}

// trimLocked drops the oldest turns while there are more than TurnsMax or
// their contents exceed TotalMax; the newest turn always stays. The log is
// rewritten and contents no entry needs are removed.
func (j *Journal) trimLocked() {
	turns := j.turnOrderLocked()
	drop := map[string]bool{}
	total := int64(0)
	for _, size := range j.blobs {
		total += size
	}
	for i := 0; i < len(turns)-1 && (len(turns)-len(drop) > j.opts.TurnsMax || total > j.opts.TotalMax); i++ {
		drop[turns[i]] = true
		total = j.sizeWithout(drop)
	}
	if len(drop) == 0 {
		return
	}
	kept := j.entries[:0:0]
	for _, e := range j.entries {
		if !drop[e.Turn] {
			kept = append(kept, e)
		}
	}
	j.entries = kept
	used := j.usedBlobs(nil)
	for h := range j.blobs {
		if !used[h] {
			_ = os.Remove(j.blobPath(h))
			delete(j.blobs, h)
		}
	}
	var buf bytes.Buffer
	for _, e := range j.entries {
		line, _ := json.Marshal(e)
		buf.Write(append(line, '\n'))
	}
	logPath := filepath.Join(j.dir, journalLog)
	if WriteFileAtomic(logPath, buf.Bytes()) != nil {
		return
	}
	// The new log's identity is taken from an open handle: on Windows a
	// FileInfo from os.Stat loads its file id lazily, by path, when
	// SameFile first asks, so it would always match whatever file later
	// sits at the path, and another server's trim would go unnoticed.
	if f, err := os.Open(logPath); err == nil {
		if info, err := f.Stat(); err == nil {
			j.logInfo, j.logRead, j.logCut = info, int64(buf.Len()), false
		}
		_ = f.Close()
	}
}

// usedBlobs are the contents the entries of turns not dropped need.
func (j *Journal) usedBlobs(drop map[string]bool) map[string]bool {
	used := map[string]bool{}
	for _, e := range j.entries {
		if e.Kept && !drop[e.Turn] && e.Before != "" {
			used[e.Before] = true
		}
	}
	return used
}

func (j *Journal) sizeWithout(drop map[string]bool) int64 {
	total := int64(0)
	for h := range j.usedBlobs(drop) {
		total += j.blobs[h]
	}
	return total
}

// turnOrderLocked is the turns' ids, oldest first (by first change).
func (j *Journal) turnOrderLocked() []string {
	var order []string
	seen := map[string]bool{}
	for _, e := range j.entries {
		if !seen[e.Turn] {
			seen[e.Turn] = true
			order = append(order, e.Turn)
		}
	}
	return order
}

// Entries returns the recorded changes, oldest first.
func (j *Journal) Entries() []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.syncLocked()
	return append([]JournalEntry(nil), j.entries...)
}

// Content returns a stored content by hash; nil, nil for "" (no file).
func (j *Journal) Content(hash string) ([]byte, error) {
	if hash == "" {
		return nil, nil
	}
	data, err := os.ReadFile(j.blobPath(hash))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && Hash(data) != hash) {
		return nil, fmt.Errorf("the content before the change is no longer kept (the journal keeps %d turns and %d MiB)", j.opts.TurnsMax, j.opts.TotalMax>>20)
	}
	return data, err
}

// Selection picks changes to list or rewind: a turn, a call, and within
// either one file. Empty Turn and Call pick the last turn.
type Selection struct {
	Turn, Call, Path string
}

// FileSpan is what a selection did to one file: the content before its
// first change and after its last.
type FileSpan struct {
	Path          string
	Before, After string
	// Kept is set when every change of it kept its contents.
	Kept bool
	// Created: the file did not exist before.
	Created bool
}

// Select returns the turn a selection falls in and what it did to each
// file, in the order the files were first changed. An unknown turn or call
// is an error saying what exists.
func (j *Journal) Select(sel Selection) (turn string, spans []FileSpan, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.syncLocked()
	if len(j.entries) == 0 {
		return "", nil, errors.New("toolhost has recorded no file changes in this workspace yet")
	}
	var pick func(JournalEntry) bool
	switch {
	case sel.Call != "":
		pick = func(e JournalEntry) bool { return e.CallID == sel.Call }
	case sel.Turn != "":
		pick = func(e JournalEntry) bool { return e.Turn == sel.Turn }
	default:
		last := j.entries[len(j.entries)-1].Turn
		pick = func(e JournalEntry) bool { return e.Turn == last }
	}
	byPath := map[string]int{}
	for _, e := range j.entries {
		if !pick(e) || (sel.Path != "" && e.Path != sel.Path) {
			continue
		}
		turn = e.Turn
		i, ok := byPath[e.Path]
		if !ok {
			byPath[e.Path] = len(spans)
			spans = append(spans, FileSpan{Path: e.Path, Before: e.Before, After: e.After, Kept: e.Kept, Created: e.Before == ""})
			continue
		}
		spans[i].After = e.After
		spans[i].Kept = spans[i].Kept && e.Kept
	}
	if len(spans) == 0 {
		what := "the last turn"
		switch {
		case sel.Call != "":
			what = "call " + strconv.Quote(sel.Call)
		case sel.Turn != "":
			what = "turn " + strconv.Quote(sel.Turn)
		}
		if sel.Path != "" {
			return "", nil, fmt.Errorf("%s changed no file %s: list the changes with toolhost/changes", what, sel.Path)
		}
		return "", nil, fmt.Errorf("%s is not in the journal (it keeps the last %d turns): list the changes with toolhost/changes", what, j.opts.TurnsMax)
	}
	return turn, spans, nil
}

// Turn is one turn of the journal as toolhost/changes lists it.
type Turn struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Calls   []Call    `json:"calls"`
	// Files is what the turn did to each file, first change first.
	Files []FileState `json:"files"`
}

// Call is one call of a turn and the files it changed.
type Call struct {
	ID    string      `json:"id"`
	Tool  string      `json:"tool,omitempty"`
	Files []FileState `json:"files"`
}

// FileState is a file a turn or call changed and where it stands now.
type FileState struct {
	Path   string `json:"path"`
	URI    string `json:"uri"`
	Before string `json:"before,omitempty"`
	After  string `json:"after"`
	// Created: the change created the file.
	Created bool `json:"created,omitempty"`
	// Rewindable: its contents are kept.
	Rewindable bool `json:"rewindable"`
	// BeforeFile is where the content before is stored, for an editor's
	// diff; "" when none is (a created file, a content not kept).
	BeforeFile string `json:"beforeFile,omitempty"`
	// State is "asLeft" (the file holds what the change left),
	// "rewound" (it holds what was there before), or "changedSince".
	State string `json:"state,omitempty"`
}

// Turns lists the journal, newest turn first; state tells where each file
// stands now (nil leaves State empty).
func (j *Journal) Turns(state func(path, before, after string) string) []Turn {
	entries := j.Entries()
	byID := map[string]*Turn{}
	var order []string
	for _, e := range entries {
		t := byID[e.Turn]
		if t == nil {
			t = &Turn{ID: e.Turn, Agent: e.Agent, Started: e.Time}
			byID[e.Turn] = t
			order = append(order, e.Turn)
		}
		t.Ended = e.Time
		f := FileState{Path: e.Path, URI: PathToURI(e.Path), Before: e.Before, After: e.After, Created: e.Before == "", Rewindable: e.Kept}
		if e.Kept && e.Before != "" {
			f.BeforeFile = j.blobPath(e.Before)
		}
		if n := len(t.Calls); n == 0 || t.Calls[n-1].ID != e.CallID {
			t.Calls = append(t.Calls, Call{ID: e.CallID, Tool: e.Tool})
		}
		c := &t.Calls[len(t.Calls)-1]
		c.Files = append(c.Files, f)
		merged := false
		for i := range t.Files {
			if t.Files[i].Path == e.Path {
				t.Files[i].After = e.After
				t.Files[i].Rewindable = t.Files[i].Rewindable && e.Kept
				merged = true
			}
		}
		if !merged {
			t.Files = append(t.Files, f)
		}
	}
	out := make([]Turn, 0, len(order))
	for i := len(order) - 1; i >= 0; i-- {
		t := *byID[order[i]]
		if state != nil {
			for k := range t.Files {
				f := &t.Files[k]
				f.State = state(f.Path, f.Before, f.After)
			}
			for c := range t.Calls {
				for k := range t.Calls[c].Files {
					f := &t.Calls[c].Files[k]
					f.State = state(f.Path, f.Before, f.After)
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// CurrentHash is the hash (Hash) of what path holds now as the user sees
// it (ReadCurrent); "" when there is no file, "?" when it cannot be read.
func (w *Workspace) CurrentHash(ctx context.Context, path string) string {
	cur, err := w.ReadCurrent(ctx, path, nil, ReadFileMax)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return "?"
	}
	return Hash(cur.Data)
}
