package shell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/workspace"
)

// Output over the limit, as Claude Code handles it: the result keeps the
// start of the output and says where the whole of it is saved, in a file
// the model can Read (with offset and limit) or Grep. As in Claude Code the
// files live outside the project, in the workspace's state folder
// (workspace.StateDir), so that Glob, which lists ignored files, does not
// show them among the user's files; where that folder cannot be made, in
// the system's temporary folder.

// spillMaxAge is how long saved outputs are kept: older ones are removed
// when a new one is saved.
const spillMaxAge = 24 * time.Hour

// spillMaxBytes bounds a saved output on disk: a command printing without
// end (yes, a runaway log) writes hundreds of megabytes a second, and would
// fill the user's disk before its timeout. Past the bound, the file keeps
// the first bytes and the last spillTailBytes, the end of a log being where
// its errors are. A variable for tests.
var spillMaxBytes int64 = 256 << 20

// spillTailBytes is how much of the end of an output over spillMaxBytes is
// kept (in memory until the output ends, then appended to the file).
var spillTailBytes = 1 << 20

// spill keeps the first limit bytes of an output in memory; once more
// arrives, it saves everything to a file and appends the rest there, up to
// spillMaxBytes. Safe for concurrent use (stdout and stderr share it).
type spill struct {
	limit int
	root  string

	mu    sync.Mutex
	head  []byte
	total int64
	file  *os.File
	path  string
	// written counts the bytes in file; past the bound, the output goes to
	// tail (the latest spillTailBytes) and dropped counts what fell out.
	written int64
	tail    []byte
	dropped int64
	// err is why saving failed; the output is then shortened as before.
	err error
	// closed: later writes (a command moved to the background) are not kept.
	closed bool
}

func newSpill(root string, limit int) *spill {
	return &spill{root: root, limit: limit}
}

// Write never fails: a failure to save is remembered and reported.
func (s *spill) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	s.total += int64(len(p))
	switch {
	case s.err != nil:
	case s.file != nil:
		s.save(p)
	case len(s.head)+len(p) <= s.limit:
		s.head = append(s.head, p...)
	default:
		s.file, s.path, s.err = createSpillFile(s.root)
		if s.err == nil {
			s.save(s.head)
			s.save(p)
		}
		if room := s.limit - len(s.head); room > 0 {
			s.head = append(s.head, p[:min(room, len(p))]...)
		}
	}
	return len(p), nil
}

// save appends p to the file up to spillMaxBytes less the tail kept, and
// the rest to the tail. Called with mu held.
func (s *spill) save(p []byte) {
	if room := spillMaxBytes - int64(spillTailBytes) - s.written; room > 0 {
		n := int(min(room, int64(len(p))))
		if s.err == nil {
			_, s.err = s.file.Write(p[:n])
		}
		s.written += int64(n)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	s.tail = append(s.tail, p...)
	if len(s.tail) >= 2*spillTailBytes {
		cut := len(s.tail) - spillTailBytes
		s.dropped += int64(cut)
		s.tail = append(s.tail[:0], s.tail[cut:]...)
	}
}

// close ends saving. saved is the file holding the whole output, "" when
// the output fit the limit or saving failed.
func (s *spill) close() (saved string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.file == nil {
		return ""
	}
	if len(s.tail) > spillTailBytes {
		cut := len(s.tail) - spillTailBytes
		s.dropped += int64(cut)
		s.tail = s.tail[cut:]
	}
	if s.dropped > 0 && s.err == nil {
		_, s.err = fmt.Fprintf(s.file, "\n[toolhost: %d bytes of the output are not saved here, to bound the file; the last %d bytes follow.]\n", s.dropped, len(s.tail))
	}
	if s.err == nil {
		_, s.err = s.file.Write(s.tail)
	}
	s.tail = nil
	if err := s.file.Close(); err != nil && s.err == nil {
		s.err = err
	}
	s.file = nil
	if s.err != nil {
		// A part of the output (the disk filled up?) is no use to anyone.
		_ = os.Remove(s.path)
		return ""
	}
	return s.path
}

// size is how many bytes of output were written.
func (s *spill) size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// render is the output's start, up to the limit and cut at a line end when
// one is near, with a note saying where the whole output is.
func (s *spill) render(path string) string {
	s.mu.Lock()
	head, total, dropped := s.head, s.total, s.dropped
	s.mu.Unlock()
	n := len(head)
	for n > 0 && n < len(head) && !utf8.RuneStart(head[n]) {
		n--
	}
	if i := strings.LastIndexByte(string(head[:n]), '\n'); i >= n*3/4 {
		n = i + 1
	}
	if dropped > 0 {
		return fmt.Sprintf("%s\n[Output too long: %d bytes; the first %d are shown. The output is saved in %s without %d bytes of its middle (the file keeps its start and its last %d bytes, to bound its size): Read it with offset and limit, or search it with Grep.]",
			head[:n], total, n, path, dropped, spillTailBytes)
	}
	return fmt.Sprintf("%s\n[Output too long: %d bytes; the first %d are shown. The whole output is saved in %s: Read it with offset and limit, or search it with Grep.]",
		head[:n], total, n, path)
}

// createSpillFile makes a new file for a command's output.
func createSpillFile(root string) (*os.File, string, error) {
	return CreateOutputFile(root, "bash")
}

// CreateOutputFile makes a new file for an output too long for the model
// (kind names what made it: bash, mcp), in the workspace's output folder
// outside the workspace or else the temporary folder, and removes old ones.
// Other tools that save outputs use it, so they all land in one place.
func CreateOutputFile(root, kind string) (*os.File, string, error) {
	stamp := kind + "-" + time.Now().Format("20060102-150405") + "-"
	if dir, err := spillDir(root); err == nil {
		removeOld(dir)
		for range 10 {
			var rnd [4]byte
			_, _ = rand.Read(rnd[:])
			path := filepath.Join(dir, stamp+hex.EncodeToString(rnd[:])+".log")
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
			if err == nil {
				return f, path, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
	}
	f, err := os.CreateTemp("", "toolhost-"+stamp+"*.log")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// spillDir makes the folder of saved outputs of the workspace at root, in
// its state folder outside the workspace, and returns it. Only this user
// may read it: outputs can hold what commands printed of secrets.
func spillDir(root string) (string, error) {
	state, err := workspace.StateDir(root)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(state, "output")
	return dir, os.MkdirAll(dir, 0o700)
}

// removeOld removes saved outputs older than spillMaxAge from dir.
func removeOld(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > spillMaxAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
