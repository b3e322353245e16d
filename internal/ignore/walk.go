package ignore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Verdict is what an Override says about an entry.
type Verdict int

const (
	// NoVerdict leaves the entry to the ignore rules.
	NoVerdict Verdict = iota
	// Include keeps a file even when an ignore file names it (ripgrep's
	// --glob whitelists work this way).
	Include
	// Exclude skips the entry; for a folder, everything below it.
	Exclude
)

// Options adjust a Walk.
type Options struct {
	// Override, when set, is asked about every entry before the ignore
	// rules. rel is slash-separated and relative to the walk root.
	Override func(rel string, name string, isDir bool) Verdict
	// NoIgnore turns the ignore files off (VCS folders are still skipped).
	NoIgnore bool
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Unreadable, when set, is told of each folder the walk could not
	// open or list (permissions, an I/O error), with its path relative to
	// the walk root and why; such a folder is skipped. A folder gone or
	// turned into a link meanwhile is not reported: it is not there to
	// search. Called concurrently.
	Unreadable func(rel string, err error)
}

// File is a regular file found by Walk.
type File struct {
	// Path is the absolute path.
	Path string
	// Rel is the path relative to the walk root, slash-separated.
	Rel string
	// Entry is the directory entry (Info() gives size and mtime).
	Entry fs.DirEntry
	// dir is the open folder holding the file during the visit (nil for a
	// root that is a file); ModTime and Open work relative to it.
	dir *os.File
}

// ModTime returns the file's modification time. During a visit it stats
// the name relative to the open folder, which spares the kernel walking
// the whole path again (and cannot be led elsewhere by a path that changed).
func (f File) ModTime() (time.Time, error) {
	if f.dir != nil {
		if t, err := modTimeAt(f.dir, f.Entry.Name()); err == nil {
			return t, nil
		}
	}
	info, err := f.Entry.Info()
	if err != nil {
		return time.Time{}, err
	}
	return info.ModTime(), nil
}

// Open opens the file for reading, as pathutil.OpenRegular does (regular
// files only, never waiting on a FIFO). During a visit it opens the name
// relative to the open folder and follows no link: a file replaced by a
// link since the folder was read is refused, never read through the link.
func (f File) Open() (*os.File, error) {
	if f.dir == nil {
		file, _, err := pathutil.OpenRegular(f.Path)
		return file, err
	}
	file, err := openAt(f.dir, f.Entry.Name(), f.Path, false)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: f.Path, Err: err}
	}
	if _, err := pathutil.Regular(file, f.Path); err != nil {
		return nil, err
	}
	return file, nil
}

// ErrStop, returned by a visit function, ends the walk early without error.
var ErrStop = errors.New("stop walking")

// Walk calls visit for every regular file below root that the ignore rules
// keep. Symbolic links are not followed (nor reported), VCS folders are
// skipped, ignored folders are not entered. Folders are read by several
// goroutines, so visit is called concurrently and in no particular order.
// Unreadable folders are skipped. When root is a file, visit sees it alone,
// whatever the ignore files say (as when a file is named on ripgrep's
// command line). A folder root is opened by its path, then walked as
// WalkRoot does.
func Walk(ctx context.Context, root string, opts Options, visit func(File) error) error {
	root = filepath.Clean(root)
	info, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		err := visit(File{Path: root, Rel: filepath.Base(root), Entry: fs.FileInfoToDirEntry(info)})
		if errors.Is(err, ErrStop) {
			return nil
		}
		return err
	}
	dir, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer dir.Close()
	return WalkRoot(ctx, dir, root, opts, visit)
}

// WalkRoot is Walk of the folder dir, whose path is root (for the paths
// visit sees and the ignore files of root's ancestors). The walk never
// leaves dir and never follows a link: every folder and file below it is
// opened relative to its parent's open descriptor, without following a
// link, at the moment it is read. A folder swapped for a link to elsewhere
// meanwhile is not entered; nothing outside dir is listed or opened, however
// the tree changes during the walk. Callers open dir through a jail
// (workspace.Workspace.OpenDir) so that the start is judged the same way.
func WalkRoot(ctx context.Context, dir *os.Root, root string, opts Options, visit func(File) error) error {
	root = filepath.Clean(root)
	top, err := dir.Open(".")
	if err != nil {
		return err
	}
	var rules *Rules
	if !opts.NoIgnore {
		rules = ForRootAt(root, top)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	w.queue = []dirJob{{path: root, rules: rules, open: top}}
	w.pending = 1
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	// Wake the workers when ctx ends so they can give up.
	stopWatch := context.AfterFunc(ctx, func() { w.fail(ctx.Err()) })
	wg.Wait()
	stopWatch()
	// Jobs left when the walk stopped early still hold their parents.
	for _, j := range w.queue {
		j.release()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if errors.Is(w.err, ErrStop) {
		return nil
	}
	return w.err
}

// childPath is filepath.Join(dir, name) for a clean dir (the walk's paths
// are) and a name read from it, a single element: on Unix the same path
// without Join's cleaning, which would otherwise run for every entry of the
// tree. Windows' volume names make Join's rules longer; it keeps Join.
func childPath(dir, name string) string {
	switch {
	case runtime.GOOS == "windows" || dir == ".":
		return filepath.Join(dir, name)
	case dir[len(dir)-1] == '/':
		return dir + name
	}
	return dir + "/" + name
}

// dirJob is a folder waiting to be read: name in the open folder parent,
// or, for the walk root, the folder already open.
type dirJob struct {
	parent *openDir
	name   string
	open   *os.File
	path   string
	rel    []string
	rules  *Rules
}

// release drops the job's hold on what it would have opened.
func (j dirJob) release() {
	if j.parent != nil {
		j.parent.release()
	}
	if j.open != nil {
		j.open.Close()
	}
}

// openDir is a folder held open while sub-folders queued from it wait to
// be opened relative to it; the last to let go closes it.
type openDir struct {
	f    *os.File
	refs atomic.Int32
}

func (d *openDir) release() {
	if d.refs.Add(-1) == 0 {
		d.f.Close()
	}
}

type walker struct {
	ctx   context.Context
	opts  Options
	visit func(File) error

	mu   sync.Mutex
	cond *sync.Cond
	// queue holds folders not yet read (used as a stack: depth first keeps
	// it short).
	queue []dirJob
	// pending counts folders queued or being read; zero means done.
	pending int
	// err is the first error of a visit (or ErrStop, or ctx's error); it
	// stops the walk.
	err error
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.cond.Broadcast()
	w.mu.Unlock()
}

// next returns the next folder to read, or false when the walk is over.
func (w *walker) next() (dirJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) == 0 && w.pending > 0 && w.err == nil {
		w.cond.Wait()
	}
	if w.err != nil || len(w.queue) == 0 {
		return dirJob{}, false
	}
	j := w.queue[len(w.queue)-1]
	w.queue = w.queue[:len(w.queue)-1]
	return j, true
}

func (w *walker) push(jobs []dirJob) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, jobs...)
	w.pending += len(jobs)
	w.cond.Broadcast()
	w.mu.Unlock()
}

// unreadable reports a folder the walk could not read.
func (w *walker) unreadable(rel []string, err error) {
	if w.opts.Unreadable != nil {
		w.opts.Unreadable(strings.Join(rel, "/"), err)
	}
}

func (w *walker) done() {
	w.mu.Lock()
	w.pending--
	if w.pending == 0 {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

func (w *walker) work() {
	for {
		job, ok := w.next()
		if !ok {
			return
		}
		if err := w.read(job); err != nil {
			w.fail(err)
		}
		w.done()
	}
}

// read lists one folder, visits its files and queues its sub-folders.
func (w *walker) read(job dirJob) error {
	f := job.open
	if f == nil {
		var err error
		f, err = openAt(job.parent.f, job.name, job.path, true)
		job.parent.release()
		if err != nil {
			// Gone, unreadable, or now a link: not entered; only the
			// unreadable is a folder the caller misses.
			if !goneOrLink(err) {
				w.unreadable(job.rel, err)
			}
			return nil
		}
	}
	// The folder stays open while its sub-folders wait to be opened in it.
	d := &openDir{f: f}
	d.refs.Store(1)
	defer d.release()
	entries, err := f.ReadDir(-1)
	if err != nil {
		w.unreadable(job.rel, err)
	}
	rules := job.rules
	// The root's own ignore files are already in the rules ForRoot built.
	if rules != nil && len(job.rel) > 0 {
		rules = rules.ChildAt(f, job.rel, entries)
	}
	var subdirs []dirJob
	files := make([]File, 0, len(entries))
	relParts := make([]string, len(job.rel)+1)
	copy(relParts, job.rel)
	prefix := strings.Join(job.rel, "/")
	if prefix != "" {
		prefix += "/"
	}
	for _, e := range entries {
		// Matching a large folder against a large ignore file (a hostile
		// .gitignore of 100,000 lines) takes seconds: a cancel must reach
		// it between entries, not after the whole folder.
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			continue
		}
		isDir := e.IsDir()
		if isDir && IsVCSDir(name) {
			continue
		}
		relParts[len(job.rel)] = name
		verdict := NoVerdict
		if w.opts.Override != nil {
			verdict = w.opts.Override(prefix+name, name, isDir)
		}
		if verdict == Exclude {
			continue
		}
		if verdict != Include && rules.Ignored(relParts, isDir) {
			continue
		}
		if isDir {
			rel := make([]string, len(relParts))
			copy(rel, relParts)
			subdirs = append(subdirs, dirJob{parent: d, name: name, path: childPath(job.path, name), rel: rel, rules: rules})
			continue
		}
		if typ.IsRegular() {
			files = append(files, File{Path: childPath(job.path, name), Rel: prefix + name, Entry: e, dir: f})
		}
	}
	d.refs.Add(int32(len(subdirs)))
	// Hand the sub-folders to idle workers before the (slower) visits.
	w.push(subdirs)
	for _, f := range files {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if err := w.visit(f); err != nil {
			return err
		}
	}
	return nil
}
