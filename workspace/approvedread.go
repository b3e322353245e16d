package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Reads outside the workspace happen only as approved. The permission
// checker asks the user about (or finds a rule allowing) a read of a path
// outside every workspace folder, named by where it really leads: for a
// link inside the workspace pointing outside (docs -> /etc), the prompt names
// the link's target. Its approval (an ApprovedRead: the real path and the
// identity of the file there when it was decided) travels with the call,
// and the read opens exactly that file: the real path itself, its last
// step not followed, checked to be the same file as when approved. A link
// swapped, or a file replaced, between the approval and the open makes the
// read fail; it never shows what the user did not approve.

// ApprovedRead is the permission checker's approval of reading Path, which
// leads outside every workspace folder, by its real path.
type ApprovedRead struct {
	// Path is the path as the call gives it (absolute, cleaned, its links
	// not followed); Real is where it led when the read was approved.
	Path, Real string
	// file identifies what was at Real then (os.SameFile).
	file fs.FileInfo
}

// ApproveRead is the approval of reading abs, which leads to real (both as
// the permission checker judged them), taken as the decision is made:
// what is at real now is what a read under the approval may open. false
// when nothing is there (the read then fails as for any missing file).
func ApproveRead(abs, real string) (ApprovedRead, bool) {
	st, err := os.Lstat(real)
	if err != nil {
		return ApprovedRead{}, false
	}
	return ApprovedRead{Path: abs, Real: real, file: st}, true
}

// Same reports whether a and b approve the same read: the same path
// leading to the same file.
func (a ApprovedRead) Same(b ApprovedRead) bool {
	return a.Path == b.Path && a.Real == b.Real && (a.file == nil) == (b.file == nil) &&
		(a.file == nil || os.SameFile(a.file, b.file))
}

// approvedReadsKey is the context key of a call's approved reads.
type approvedReadsKey struct{}

// WithApprovedReads returns ctx carrying a call's approved reads: the
// workspace's reads under it (OpenRegularContext, ReadRegular,
// ReadFileLimit) of a path outside the workspace open the approved file.
func WithApprovedReads(ctx context.Context, approved []ApprovedRead) context.Context {
	if len(approved) == 0 {
		return ctx
	}
	return context.WithValue(ctx, approvedReadsKey{}, approved)
}

// approvedRead is ctx's approval of reading abs.
func approvedRead(ctx context.Context, abs string) (ApprovedRead, bool) {
	if ctx == nil {
		return ApprovedRead{}, false
	}
	approved, _ := ctx.Value(approvedReadsKey{}).([]ApprovedRead)
	for _, a := range approved {
		if a.Path == abs {
			return a, true
		}
	}
	return ApprovedRead{}, false
}

// ApprovalChangedError refuses a read whose path no longer leads to the
// file the user approved: the link was changed, or the file replaced,
// since.
type ApprovalChangedError struct {
	// Path is the path as given; Real is the approved real path; Now is
	// where Path leads now ("" when it is Real, but another file is there).
	Path, Real, Now string
}

func (e *ApprovalChangedError) Error() string {
	if e.Now != "" {
		return fmt.Sprintf("%s led to %s when its reading was approved, and leads to %s now, so it was not read. Read it again to be asked about where it leads now", e.Path, e.Real, e.Now)
	}
	return fmt.Sprintf("%s was replaced by another file since its reading was approved (as %s), so it was not read. Read it again to be asked about the file there now", e.Path, e.Real)
}

// openApproved opens the file a's approval names, for the read of abs: abs
// must still lead to a.Real, which is opened without following a link in
// its last step and must be the file that was there when approved.
func openApproved(abs string, a ApprovedRead) (*os.File, error) {
	if now := RealPath(abs); now != a.Real {
		return nil, &ApprovalChangedError{Path: abs, Real: a.Real, Now: now}
	}
	f, err := os.OpenFile(a.Real, pathutil.OpenReadFlags|pathutil.NoFollowFlag, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			// a.Real was swapped for a link since.
			return nil, &ApprovalChangedError{Path: abs, Real: a.Real}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !os.SameFile(st, a.file) {
		f.Close()
		return nil, &ApprovalChangedError{Path: abs, Real: a.Real}
	}
	return f, nil
}

// openApprovedDir is openApproved for a folder: abs must still lead to
// a.Real, and the folder opened there must be the one approved (a link
// put in its place since leads to another folder, which is refused).
func openApprovedDir(abs string, a ApprovedRead) (*os.Root, error) {
	if now := RealPath(abs); now != a.Real {
		return nil, &ApprovalChangedError{Path: abs, Real: a.Real, Now: now}
	}
	root, err := os.OpenRoot(a.Real)
	if err != nil {
		return nil, err
	}
	st, err := root.Stat(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	if !os.SameFile(st, a.file) {
		root.Close()
		return nil, &ApprovalChangedError{Path: abs, Real: a.Real}
	}
	return root, nil
}
