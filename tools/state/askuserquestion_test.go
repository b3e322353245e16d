package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolhost/toolhost/tools"
)

const twoQuestions = `{"questions":[
 {"question":"Which database?","header":"Database","multiSelect":false,"options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"embedded"}]},
 {"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Auth","description":"log in"},{"label":"Search","description":"full text"},{"label":"Export","description":"CSV"}]}
]}`

func TestAskUserQuestion(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		answers    map[string]string
		askErr     error
		wantAsked  bool
		wantError  bool
		wantText   []string
		wantAnswer map[string]string
	}{
		{
			name:       "answers become question=answer pairs in question order",
			input:      twoQuestions,
			answers:    map[string]string{"Which features?": "Auth, Export", "Which database?": "SQLite"},
			wantAsked:  true,
			wantText:   []string{`"Which database?"="SQLite", "Which features?"="Auth, Export"`},
			wantAnswer: map[string]string{"Which features?": "Auth, Export", "Which database?": "SQLite"},
		},
		{
			name:       "a question left unanswered is named",
			input:      twoQuestions,
			answers:    map[string]string{"Which database?": "MySQL, please"},
			wantAsked:  true,
			wantText:   []string{`"Which database?"="MySQL, please"`, `No answer was given to "Which features?"`},
			wantAnswer: map[string]string{"Which database?": "MySQL, please"},
		},
		{
			name:       "answers already in the input are used without asking",
			input:      `{"questions":[{"question":"Tabs or spaces?","header":"Indent","multiSelect":false,"options":[{"label":"Tabs","description":""},{"label":"Spaces","description":""}]}],"answers":{"Tabs or spaces?":"Tabs"},"annotations":{"Tabs or spaces?":{"notes":"like gofmt"}}}`,
			wantText:   []string{`"Tabs or spaces?"="Tabs" (user notes: "like gofmt")`},
			wantAnswer: map[string]string{"Tabs or spaces?": "Tabs"},
		},
		{
			name:      "dismissed",
			input:     twoQuestions,
			askErr:    fmt.Errorf("closed: %w", tools.ErrDismissed),
			wantAsked: true,
			wantText:  []string{"dismissed", "without an answer", "ask again"},
		},
		{
			name:      "client cannot ask",
			input:     twoQuestions,
			askErr:    tools.ErrCannotAsk,
			wantAsked: true,
			wantError: true,
			wantText:  []string{"cannot show questions"},
		},
		{
			name:      "header too long",
			input:     `{"questions":[{"question":"Q?","header":"Much too long header","multiSelect":false,"options":[{"label":"A","description":""},{"label":"B","description":""}]}]}`,
			wantError: true,
			wantText:  []string{`questions[0].header "Much too long header" has 20 characters, at most 12`},
		},
		{
			name:      "a question of megabytes is refused without being quoted back",
			input:     `{"questions":[{"question":"` + strings.Repeat("Why? ", 400_000) + `","header":"H","multiSelect":false,"options":[{"label":"A","description":"` + strings.Repeat("d", 2001) + `"},{"label":"B","description":""}]}]}`,
			wantError: true,
			wantText:  []string{"questions[0].question has 2000000 characters, at most 2000", "questions[0].options[0].description has 2001 characters"},
		},
		{
			name:      "a label past its cap",
			input:     `{"questions":[{"question":"Q?","header":"H","multiSelect":false,"options":[{"label":"` + strings.Repeat("é", 201) + `","description":""},{"label":"B","description":""}]}]}`,
			wantError: true,
			wantText:  []string{"questions[0].options[0].label has 201 characters, at most 200"},
		},
		{
			name:      "one option",
			input:     `{"questions":[{"question":"Q?","header":"H","multiSelect":false,"options":[{"label":"A","description":""}]}]}`,
			wantError: true,
			wantText:  []string{"questions[0].options has 1 items, want 2 to 4"},
		},
		{
			name:      "five questions",
			input:     `{"questions":[` + strings.Repeat(`{"question":"Q?","header":"H","multiSelect":false,"options":[{"label":"A","description":""},{"label":"B","description":""}]},`, 4) + `{"question":"Q5?","header":"H","multiSelect":false,"options":[{"label":"A","description":""},{"label":"B","description":""}]}]}`,
			wantError: true,
			wantText:  []string{"questions has 5 items, want 1 to 4", `questions[1].question repeats "Q?"`},
		},
		{
			name:      "duplicate labels",
			input:     `{"questions":[{"question":"Q?","header":"H","multiSelect":false,"options":[{"label":"A","description":""},{"label":"A","description":""}]}]}`,
			wantError: true,
			wantText:  []string{`questions[0].options[1].label repeats "A"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			host := &questionTodoHost{answers: tc.answers, askErr: tc.askErr}
			res, err := NewAskUserQuestion().Execute(t.Context(), &tools.Call{Input: json.RawMessage(tc.input), Host: host})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.wantError {
				t.Fatalf("isError %v, want %v: %s", res.IsError, tc.wantError, res.Text())
			}
			if tc.wantError && !strings.HasPrefix(res.Text(), "Error: ") {
				t.Errorf("error text %q does not start with Error: ", res.Text())
			}
			for _, want := range tc.wantText {
				if !strings.Contains(res.Text(), want) {
					t.Errorf("text %q lacks %q", res.Text(), want)
				}
			}
			if asked := len(host.asked) > 0; asked != tc.wantAsked {
				t.Errorf("asked the host: %v, want %v", asked, tc.wantAsked)
			}
			if tc.wantAsked && !tc.wantError {
				var in askUserQuestionParams
				if err := json.Unmarshal([]byte(tc.input), &in); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(host.asked[0], in.Questions) {
					t.Errorf("host got %+v, want the questions of the input", host.asked[0])
				}
			}
			if tc.wantAnswer != nil {
				out, ok := res.Structured.(AskUserQuestionOutput)
				if !ok || !reflect.DeepEqual(out.Answers, tc.wantAnswer) || len(out.Questions) == 0 {
					t.Errorf("structured %#v, want answers %v and the questions", res.Structured, tc.wantAnswer)
				}
			}
		})
	}
}

func TestAskUserQuestionInfrastructureError(t *testing.T) {
	host := &questionTodoHost{askErr: errors.New("connection lost")}
	_, err := NewAskUserQuestion().Execute(t.Context(), &tools.Call{Input: json.RawMessage(twoQuestions), Host: host})
	if err == nil || !strings.Contains(err.Error(), "connection lost") {
		t.Errorf("err = %v, want the host's failure as a Go error", err)
	}
}

// TestSchemasStateLimits checks that the published schemas carry the limits
// Claude Code states, so the pipeline's validation rejects what Execute
// would.
func TestSchemasStateLimits(t *testing.T) {
	option := `{"label":"A","description":"d"}`
	question := func(header string, options int) string {
		return fmt.Sprintf(`{"question":"Q?","header":%q,"multiSelect":false,"options":[%s]}`, header, strings.TrimSuffix(strings.Repeat(option+",", options), ","))
	}
	tests := []struct {
		name   string
		schema json.RawMessage
		input  string
		valid  bool
	}{
		{"ask: valid", askUserQuestionSchema.JSON(), `{"questions":[` + question("Header", 2) + `]}`, true},
		{"ask: preview allowed", askUserQuestionSchema.JSON(), `{"questions":[{"question":"Q?","header":"H","multiSelect":true,"options":[{"label":"A","description":"d","preview":"<b>"},` + option + `]}]}`, true},
		{"ask: no questions", askUserQuestionSchema.JSON(), `{"questions":[]}`, false},
		{"ask: five questions", askUserQuestionSchema.JSON(), `{"questions":[` + strings.TrimSuffix(strings.Repeat(question("H", 2)+",", 5), ",") + `]}`, false},
		{"ask: header of 13", askUserQuestionSchema.JSON(), `{"questions":[` + question("ThirteenChars", 2) + `]}`, false},
		{"ask: header of 12", askUserQuestionSchema.JSON(), `{"questions":[` + question("TwelveChars!", 2) + `]}`, true},
		{"ask: one option", askUserQuestionSchema.JSON(), `{"questions":[` + question("H", 1) + `]}`, false},
		{"ask: five options", askUserQuestionSchema.JSON(), `{"questions":[` + question("H", 5) + `]}`, false},
		{"ask: multiSelect required", askUserQuestionSchema.JSON(), `{"questions":[{"question":"Q?","header":"H","options":[` + option + `,` + option + `]}]}`, false},
		{"todo: valid", todoWriteSchema.JSON(), `{"todos":[{"content":"a","status":"pending","activeForm":"b"}]}`, true},
		{"todo: bad status", todoWriteSchema.JSON(), `{"todos":[{"content":"a","status":"done","activeForm":"b"}]}`, false},
		{"todo: activeForm required", todoWriteSchema.JSON(), `{"todos":[{"content":"a","status":"pending"}]}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validateInputAgainst(t, tc.schema, tc.input)
			if (err == nil) != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
		})
	}
}

func validateInputAgainst(t *testing.T, schema json.RawMessage, input string) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(input))
	if err != nil {
		t.Fatalf("input is not JSON: %v", err)
	}
	return sch.Validate(v)
}
