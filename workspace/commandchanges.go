package workspace

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"time"
)

// What a shell command changed in the files the editor has open, recorded
// in the change journal with the command's call and turn so that a turn's
// rewind covers it (docs/editing.md, "Change sets and rewind"). A command's
// writes go around Modify, so they are found by looking: the open
// documents' disk state before the command, compared with it after. Files
// the editor does not have open are not watched: the server cannot know
// what a command wrote anywhere else without scanning the workspace.

// CommandWatch is the disk state of the open documents before a command;
// nil when there is nothing to watch (no journal, no open document).
type CommandWatch struct {
	w       *Workspace
	journal *Journal
	start   time.Time
	files   []watchedFile
}

// watchedFile is an open document's file before the command.
type watchedFile struct {
	path string
	info fs.FileInfo
	// content is what the disk held: the content a rewind restores. When
	// the buffer held the same text, content is nil and text (with bom)
	// stands for it, copied only if the command changed the file.
	content []byte
	text    string
	bom     bool
}

// before is the file's content before the command.
func (f *watchedFile) before() []byte {
	if f.content != nil {
		return f.content
	}
	if f.bom {
		return append(append([]byte(nil), bomUTF8...), f.text...)
	}
	return []byte(f.text)
}

// WatchOpenFiles notes the disk content of every open document before a
// command runs; (*CommandWatch).Record then journals what the command
// changed. Its cost is a stat and a hash of each buffer (20 open 100 KB
// documents: 0.35-0.55 ms, BenchmarkWatchOpenFiles); a disk file is
// read only when the buffer does not hold what the disk does (unsaved
// typing, a disk changed under it). A file over the journal's content
// limit is not watched: it could not be rewound.
func (w *Workspace) WatchOpenFiles(ctx context.Context) *CommandWatch {
	j := w.Journal()
	if j == nil {
		return nil
	}
	type open struct {
		path, text string
		base       docBase
	}
	w.docs.mu.RLock()
	docs := make([]open, 0, len(w.docs.byPath))
	for p, d := range w.docs.byPath {
		docs = append(docs, open{p, d.text, d.base})
	}
	w.docs.mu.RUnlock()
	if len(docs) == 0 {
		return nil
	}
	c := &CommandWatch{w: w, journal: j, start: time.Now()}
	for _, d := range docs {
		st, err := os.Stat(d.path)
		if err != nil || !st.Mode().IsRegular() || st.Size() > j.opts.FileMax {
			continue
		}
		f := watchedFile{path: d.path, info: st}
		if b := d.base; b.hashed && !b.racy && sameStamp(b.info, st) && hashText(d.text) == b.textHash {
			// The buffer holds the disk's text: no read, no copy.
			f.text, f.bom = d.text, b.hash != b.textHash
		} else if f.content, err = w.ReadRegular(ctx, d.path, nil, j.opts.FileMax); err != nil {
			continue
		}
		c.files = append(c.files, f)
	}
	return c
}

// Record journals each watched file the command changed, as a change by
// the call ctx carries (Origin), from its content before to what the disk
// holds now. A file the command deleted is not recorded (a rewind could
// not tell it from one the user removed). It runs after the command
// whether it ended, failed or was cancelled: what it changed stands.
func (c *CommandWatch) Record(ctx context.Context) {
	if c == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, f := range c.files {
		st, err := os.Stat(f.path)
		if err != nil {
			continue
		}
		// A file modified close to the first look may have changed
		// again within its time stamp's grain: only its content tells.
		racy := !f.info.ModTime().Before(c.start.Add(-racySlack))
		if !racy && sameStamp(f.info, st) {
			continue
		}
		after, err := c.w.ReadRegular(ctx, f.path, nil, c.journal.opts.FileMax)
		before := f.before()
		if err != nil || bytes.Equal(after, before) {
			continue
		}
		_ = c.journal.Record(ctx, nil, f.path, before, after)
	}
}
