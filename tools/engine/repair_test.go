package engine

import (
	"encoding/json"
	"github.com/toolhost/toolhost/tools"
	"strings"
	"testing"
)

// TestInputRepairKeepsUnknownFieldsOfStrictTools: a tool that declares
// StrictInput is refused an unknown field rather than have it dropped.
func TestInputRepairKeepsUnknownFieldsOfStrictTools(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"additionalProperties":false}`)
	if _, _, ok := repairInput(schema, json.RawMessage(`{"to":"a","type":"shutdown"}`), true); ok {
		t.Error("a strict tool's unknown field was dropped")
	}
	if out, _, ok := repairInput(schema, json.RawMessage(`{"to":"a","type":"shutdown"}`), false); !ok || string(out) != `{"to":"a"}` {
		t.Errorf("without StrictInput: %s %v", out, ok)
	}
}

// TestInputRepair states the slips Claude Code repairs before running a
// tool (issue "input slips"): each is run, with the canonical input, where a
// strict validator would refuse it.
func TestInputRepair(t *testing.T) {
	const editSchema = `{"type":"object","properties":{
		"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},
		"replace_all":{"type":"boolean"}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`
	const globSchema = `{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},
		"required":["pattern"],"additionalProperties":false}`
	const bashSchema = `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"},
		"description":{"type":"string"},"run_in_background":{"type":"boolean"}},"required":["command"],"additionalProperties":false}`
	const writeSchema = `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},
		"required":["file_path","content"],"additionalProperties":false}`
	tests := []struct {
		name, schema, input string
		// want is the input the tool receives; "" means the call is refused.
		want string
		// note is a text the result must hold.
		note string
	}{
		{"old_str and new_str", editSchema, `{"file_path":"f","old_str":"a","new_str":"b"}`,
			`{"file_path":"f","new_string":"b","old_string":"a"}`, ""},
		{"target_string and replacement_string", editSchema, `{"file_path":"f","target_string":"a","replacement_string":"b"}`,
			`{"file_path":"f","new_string":"b","old_string":"a"}`, ""},
		{"path for file_path", editSchema, `{"path":"f","old_string":"a","new_string":"b"}`,
			`{"file_path":"f","new_string":"b","old_string":"a"}`, ""},
		{"path stays path where the tool has it", globSchema, `{"pattern":"*.go","path":"src"}`,
			`{"pattern":"*.go","path":"src"}`, ""},
		{"boolean as a string", editSchema, `{"file_path":"f","old_string":"a","new_string":"b","replace_all":"true"}`,
			`{"file_path":"f","new_string":"b","old_string":"a","replace_all":true}`, ""},
		{"numbers as strings", readSchema, `{"file_path":"f","offset":"10","limit":" 5 "}`,
			`{"file_path":"f","limit":5,"offset":10}`, ""},
		{"limit 0 means no limit", readSchema, `{"file_path":"f","limit":0}`,
			`{"file_path":"f"}`, ""},
		{"start_line and end_line", readSchema, `{"file_path":"f","start_line":10,"end_line":19}`,
			`{"file_path":"f","limit":10,"offset":10}`, ""},
		{"start_line alone", readSchema, `{"path":"f","start_line":"7"}`,
			`{"file_path":"f","offset":7}`, ""},
		{"an unknown extra field is dropped and named", readSchema, `{"file_path":"f","verbose":true}`,
			`{"file_path":"f"}`, "verbose are not part of this tool's input and were ignored"},
		{"array sent as a JSON string", readSchema, `{"file_path":"f","edits":"[{\"old_string\":\"a\",\"new_string\":\"b\"}]"}`,
			`{"edits":[{"old_string":"a","new_string":"b"}],"file_path":"f"}`, ""},
		// BashOutput's field name, sent to TaskOutput under its old name.
		{"bash_id for task_id", `{"type":"object","properties":{"task_id":{"type":"string"},"block":{"type":"boolean"}},"required":["task_id"],"additionalProperties":false}`,
			`{"bash_id":"bash-1"}`, `{"task_id":"bash-1"}`, ""},
		// Another agent's name for the folder a search starts in is path.
		{"cwd for a search's path", globSchema, `{"pattern":"*.go","cwd":"src"}`, `{"path":"src","pattern":"*.go"}`, ""},
		{"directory for a search's path", globSchema, `{"pattern":"*.go","directory":"src"}`, `{"path":"src","pattern":"*.go"}`, ""},
		{"background for run_in_background", bashSchema, `{"command":"make","background":true}`, `{"command":"make","run_in_background":true}`, ""},
		// A field that changes where or how a call acts is never dropped:
		// the call is refused before it runs, saying how to ask for it.
		{"Bash workdir", bashSchema, `{"command":"rm -rf build","workdir":"sub"}`, "", "cd DIR && "},
		{"Bash cwd", bashSchema, `{"command":"rm -rf build","cwd":"sub"}`, "", "cd DIR && "},
		{"Bash env", bashSchema, `{"command":"make","env":{"CC":"clang"}}`, "", "NAME=value command"},
		{"Bash stdin", bashSchema, `{"command":"sh","stdin":"rm -rf x"}`, "", "pipe it in the command"},
		{"Bash two acting fields", bashSchema, `{"command":"make","workdir":"sub","env":{"A":"1"},"verbose":true}`, "", "env, workdir"},
		{"Write append", writeSchema, `{"file_path":"f","content":"x","append":true}`, "", "Write replaces the whole file"},
		{"Edit cwd", editSchema, `{"file_path":"f","old_string":"a","new_string":"b","cwd":"sub"}`, "", "relative to the workspace root"},
		// What no repair can make valid is refused as sent.
		{"a word for a number", readSchema, `{"file_path":"f","limit":"five"}`, "", "limit: expected integer, got string"},
		{"both names given", editSchema, `{"file_path":"f","old_string":"a","old_str":"b","new_string":"c"}`, "", "old_str: unknown field"},
		{"end before start", readSchema, `{"file_path":"f","start_line":9,"end_line":3}`, "", "start_line: unknown field"},
		{"missing required field", editSchema, `{"file_path":"f","old_str":"a"}`, "", "new_string: missing required field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{name: "T", schema: tt.schema}
			reg := tools.NewRegistry()
			reg.Register(tools.CategoryCore, tool)
			resp := call(t, NewPipeline(reg, nil), nil, "T", tt.input)
			if tt.want == "" {
				if !resp.IsError || tool.calls.Load() != 0 || !strings.Contains(resp.Text(), tt.note) {
					t.Errorf("got %q (isError %v, %d runs), want a refusal naming %q", resp.Text(), resp.IsError, tool.calls.Load(), tt.note)
				}
				return
			}
			if resp.IsError || !strings.HasPrefix(resp.Text(), "ran with "+tt.want) {
				t.Errorf("got %q (isError %v), want it to run with %s", resp.Text(), resp.IsError, tt.want)
			}
			if tt.note != "" && !strings.Contains(resp.Text(), tt.note) {
				t.Errorf("got %q, want a note %q", resp.Text(), tt.note)
			}
			if tt.note == "" && strings.Contains(resp.Text(), "\n") {
				t.Errorf("got %q: a repair without a dropped field needs no note", resp.Text())
			}
		})
	}
}
