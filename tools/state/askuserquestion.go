package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/tools"
)

//go:embed askuserquestion.md
var askUserQuestionDescription string

// Limits of AskUserQuestion's input, as Claude Code states them.
const (
	maxQuestions    = 4
	minOptions      = 2
	maxOptions      = 4
	maxHeaderLength = 12
)

// Caps of our own on the texts a question dialog shows, far above what a
// question needs: a question of megabytes would be drawn by the editor's
// dialog, and quoted back in an error.
const (
	maxQuestionChars    = 2000
	maxLabelChars       = 200
	maxDescriptionChars = 2000
	maxPreviewChars     = 20_000
)

// QuestionAnnotation is what the user added to an answer, keyed by question
// text in the input and output.
type QuestionAnnotation struct {
	Preview string `json:"preview,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

type askUserQuestionParams struct {
	Questions []tools.Question `json:"questions" jsonschema:"The questions to ask, 1 to 4." schema:"minItems=1,maxItems=4"`
	// Answers, when already present (a permission prompt or a PreToolUse
	// hook filled them in), are used instead of asking again.
	Answers     map[string]string             `json:"answers,omitempty" jsonschema:"Answers already collected, by question text (filled in by the client or a hook, not by the model)."`
	Annotations map[string]QuestionAnnotation `json:"annotations,omitempty" jsonschema:"Notes the user added to answers, by question text."`
	Metadata    *struct {
		Source string `json:"source,omitempty"`
	} `json:"metadata,omitempty" jsonschema:"Tracking information, never shown to the user."`
}

// AskUserQuestionOutput is the structured result, in Claude Code's shape.
type AskUserQuestionOutput struct {
	Questions   []tools.Question              `json:"questions"`
	Answers     map[string]string             `json:"answers"`
	Annotations map[string]QuestionAnnotation `json:"annotations,omitempty"`
}

var askUserQuestionSchema = tools.SchemaOf[askUserQuestionParams](nil)

// AskUserQuestion asks the user multiple-choice questions through the host
// (an editor dialog) and hands the answers to the model.
type AskUserQuestion struct{}

// NewAskUserQuestion returns the AskUserQuestion tool.
func NewAskUserQuestion() *AskUserQuestion { return &AskUserQuestion{} }

func (*AskUserQuestion) Name() string                 { return "AskUserQuestion" }
func (*AskUserQuestion) Description() string          { return askUserQuestionDescription }
func (*AskUserQuestion) InputSchema() json.RawMessage { return askUserQuestionSchema.JSON() }
func (*AskUserQuestion) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*AskUserQuestion) Docs() tools.Docs {
	return tools.Docs{
		Short: "Ask the user 1-4 multiple-choice questions and return their answers.",
		Long: "The questions go to the client as toolhost/askUserQuestion (editors fall back to one " +
			"window/showMessageRequest per question). The user may pick options (several with " +
			"multiSelect) or type their own answer. Answers reach the model as \"question\"=\"answer\" " +
			"pairs; the structured result carries the questions and the answers by question text. " +
			"When the input already carries answers (filled in by a permission prompt or a hook), " +
			"they are used without asking again. A dismissed dialog tells the model to go on without " +
			"an answer; a client that cannot show dialogs makes the call fail. Besides Claude Code's limits " +
			"(1-4 questions, 2-4 options, a 12-character header), a question holds at most 2000 characters, " +
			"an option's label 200, its description 2000 and its preview 20,000.",
		Examples: []tools.Example{{
			Title: "Choose a library",
			Input: json.RawMessage(`{"questions":[{"question":"Which HTTP router should the service use?","header":"Router","multiSelect":false,"options":[{"label":"chi","description":"Small, idiomatic, net/http compatible"},{"label":"gin","description":"Faster to write handlers, its own context type"}]}]}`),
		}},
	}
}

// Execute validates the questions, asks them and formats the answers.
func (*AskUserQuestion) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p askUserQuestionParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid AskUserQuestion input (%v); send {\"questions\": [{\"question\", \"header\", \"options\": [{\"label\", \"description\"}, ...], \"multiSelect\"}]}.", err), nil
	}
	if problems := validateQuestions(p.Questions); len(problems) > 0 {
		return tools.ErrorResult("the questions were not asked: %s. Fix them and call AskUserQuestion again.", strings.Join(problems, "; ")), nil
	}
	answers := p.Answers
	if len(answers) == 0 {
		host := call.Host
		if host == nil {
			host = tools.NoHost{}
		}
		var err error
		answers, err = host.AskUserQuestion(ctx, call.ID, p.Questions)
		switch {
		case errors.Is(err, tools.ErrDismissed):
			res := tools.TextResult("The user dismissed the questions without answering. Proceed without an answer, " +
				"using your best judgement and saying which assumption you made; if you truly cannot go on, ask " +
				"again later in a different way (fewer or clearer questions, other options).")
			res.Structured = AskUserQuestionOutput{Questions: p.Questions, Answers: map[string]string{}}
			return res, nil
		case errors.Is(err, tools.ErrCannotAsk):
			return tools.ErrorResult("this client cannot show questions to the user. Do not call AskUserQuestion again in this session; " +
				"ask in your reply instead, or proceed with a reasonable default and say which one you chose."), nil
		case err != nil:
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("ask the user: %w", err)
		}
	}
	res := tools.TextResult(formatAnswers(p.Questions, answers, p.Annotations))
	res.Structured = AskUserQuestionOutput{Questions: p.Questions, Answers: answers, Annotations: p.Annotations}
	return res, nil
}

// validateQuestions checks what the schema states plus what the answers
// need: answers are keyed by question text, so question texts must differ.
func validateQuestions(qs []tools.Question) []string {
	var problems []string
	if len(qs) < 1 || len(qs) > maxQuestions {
		problems = append(problems, fmt.Sprintf("questions has %d items, want 1 to %d", len(qs), maxQuestions))
	}
	seen := map[string]bool{}
	// A list far too long is not looked into item by item.
	for i, q := range qs[:min(len(qs), 2*maxQuestions)] {
		at := fmt.Sprintf("questions[%d]", i)
		long := textProblems(at, q)
		if len(long) > 0 {
			// The texts are not looked into further (nor quoted back).
			problems = append(problems, long...)
			continue
		}
		switch {
		case strings.TrimSpace(q.Question) == "":
			problems = append(problems, at+".question is empty")
		case seen[q.Question]:
			problems = append(problems, fmt.Sprintf("%s.question repeats %q; every question must be different", at, q.Question))
		}
		seen[q.Question] = true
		if strings.TrimSpace(q.Header) == "" {
			problems = append(problems, at+".header is empty")
		} else if n := utf8.RuneCountInString(q.Header); n > maxHeaderLength {
			problems = append(problems, fmt.Sprintf("%s.header %q has %d characters, at most %d are allowed", at, q.Header, n, maxHeaderLength))
		}
		if len(q.Options) < minOptions || len(q.Options) > maxOptions {
			problems = append(problems, fmt.Sprintf("%s.options has %d items, want %d to %d", at, len(q.Options), minOptions, maxOptions))
		}
		labels := map[string]bool{}
		for j, o := range q.Options {
			switch {
			case strings.TrimSpace(o.Label) == "":
				problems = append(problems, fmt.Sprintf("%s.options[%d].label is empty", at, j))
			case labels[o.Label]:
				problems = append(problems, fmt.Sprintf("%s.options[%d].label repeats %q", at, j, o.Label))
			}
			labels[o.Label] = true
		}
	}
	return problems
}

// textProblems says which texts of q (at names it) are over their caps.
func textProblems(at string, q tools.Question) []string {
	var problems []string
	check := func(name, text string, max int) {
		if n := utf8.RuneCountInString(text); n > max {
			problems = append(problems, fmt.Sprintf("%s.%s has %d characters, at most %d are allowed", at, name, n, max))
		}
	}
	check("question", q.Question, maxQuestionChars)
	// Options past maxOptions are refused by their count.
	for j, o := range q.Options[:min(len(q.Options), maxOptions)] {
		check(fmt.Sprintf("options[%d].label", j), o.Label, maxLabelChars)
		check(fmt.Sprintf("options[%d].description", j), o.Description, maxDescriptionChars)
		check(fmt.Sprintf("options[%d].preview", j), o.Preview, maxPreviewChars)
	}
	return problems
}

// formatAnswers renders the answers as "question"="answer" pairs in the
// order the questions were asked.
func formatAnswers(qs []tools.Question, answers map[string]string, notes map[string]QuestionAnnotation) string {
	var pairs, missing []string
	for _, q := range qs {
		a, ok := answers[q.Question]
		if !ok || strings.TrimSpace(a) == "" {
			missing = append(missing, strconv.Quote(q.Question))
			continue
		}
		pair := strconv.Quote(q.Question) + "=" + strconv.Quote(a)
		if n := strings.TrimSpace(notes[q.Question].Notes); n != "" {
			pair += " (user notes: " + strconv.Quote(n) + ")"
		}
		pairs = append(pairs, pair)
	}
	var b strings.Builder
	if len(pairs) > 0 {
		b.WriteString("The user answered your questions: ")
		b.WriteString(strings.Join(pairs, ", "))
		b.WriteString(". ")
	}
	if len(missing) > 0 {
		b.WriteString("No answer was given to ")
		b.WriteString(strings.Join(missing, ", "))
		b.WriteString("; use your best judgement there. ")
	}
	b.WriteString("Continue with these answers in mind.")
	return b.String()
}
