package tools

import "context"

// ChangeReviewer is implemented by hosts whose editor reviews the file
// changes of a turn as one (toolhost/reviewChanges, when the client
// declares experimental.toolhost.reviewChanges): the pipeline gathers the
// changes that wait for the user and asks once for all of them instead of
// once per file.
type ChangeReviewer interface {
	// CanReviewChanges reports whether the editor declared the request.
	CanReviewChanges() bool
	// ReviewChanges shows req and returns the user's answer; nil when the
	// user dismissed the review.
	ReviewChanges(ctx context.Context, req ReviewRequest) (*ReviewResponse, error)
}

// ReviewRequest is the params of toolhost/reviewChanges.
type ReviewRequest struct {
	ReviewID string         `json:"reviewId"`
	Title    string         `json:"title"`
	Agent    string         `json:"agent,omitempty"`
	TurnID   string         `json:"turnId,omitempty"`
	Changes  []ReviewChange `json:"changes"`
}

// ReviewChange is one file change of a review: the whole text of the file
// as the change was planned on it and the whole proposed text.
type ReviewChange struct {
	CallID   string `json:"callId"`
	ToolName string `json:"toolName"`
	// Path is absolute.
	Path  string `json:"path"`
	Label string `json:"label"`
	Risk  Risk   `json:"risk,omitempty"`
	// OldText is nil for a file the change creates.
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// Review decisions of one change.
const (
	ReviewAccept = "accept"
	ReviewReject = "reject"
)

// ReviewResponse is the answer to toolhost/reviewChanges.
type ReviewResponse struct {
	Changes []ReviewAnswer `json:"changes"`
}

// ReviewAnswer is the user's answer on one change.
type ReviewAnswer struct {
	CallID   string `json:"callId"`
	Decision string `json:"decision"`
	// Text is the whole text the user accepted when it differs from the
	// proposal (hunks reverted, lines edited); nil means the proposal.
	Text *string `json:"text,omitempty"`
	// Hunks counts the proposal's hunks the user kept and reverted, when
	// the client knows them.
	Hunks *HunkCounts `json:"hunks,omitempty"`
	// Message is the user's own words with a rejection.
	Message string `json:"message,omitempty"`
}

// HunkCounts counts the hunks of a proposal the user accepted and
// rejected.
type HunkCounts struct {
	Accepted int `json:"accepted"`
	Rejected int `json:"rejected"`
}

// MaxReviewText caps the old and the new text of a change reviewed with
// others: a larger change is reviewed on its own, the usual way.
const MaxReviewText = 4 << 20

// Proposal is the change of one file's text a prepared Plan makes.
type Proposal struct {
	// Path is absolute; Label names the tool and file ("Edit src/a.ts").
	Path  string
	Label string
	// Old is the content the change was planned on, nil for a new file;
	// New is the whole proposed content.
	Old []byte
	New []byte
}

// Proposer is implemented by Plans that change one file's text (Edit,
// Write, NotebookEdit): the review of a turn's changes shows the proposal
// whole, and Call.Accepted carries back what the user accepted. ok is
// false when the prepared change cannot be shown as text (not prepared,
// not UTF-8, too large).
type Proposer interface {
	Proposal() (p Proposal, ok bool)
}
