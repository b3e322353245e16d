package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// documentedTool is a fakeTool with reference documentation.
type documentedTool struct {
	*fakeTool
	docs Docs
}

func (t *documentedTool) Docs() Docs { return t.docs }

func TestReference(t *testing.T) {
	reg := NewRegistry()
	reg.Register(CategoryCore, &documentedTool{
		fakeTool: &fakeTool{name: "Edit", side: SideEffectMutating, schema: `{
			"type": "object",
			"properties": {
				"file_path": {"type": "string", "description": "Absolute path of the file"},
				"mode": {"type": "string", "enum": ["replace", "insert"], "default": "replace"},
				"edits": {"type": "array", "items": {"type": "object", "properties": {
					"old_string": {"type": "string", "description": "Text to find | exactly"},
					"count": {"type": "integer", "minimum": 1}
				}, "required": ["old_string"]}},
				"tags": {"type": "array", "items": {"type": "string"}},
				"note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
			},
			"required": ["file_path", "edits"]
		}`},
		docs: Docs{
			Short:    "Replaces text in a file.",
			Long:     "Each edit must match exactly once.\n\nThe file must have been read first.",
			Examples: []Example{{Title: "Rename a variable", Input: json.RawMessage(`{"file_path":"/w/a.go","edits":[{"old_string":"x"}]}`)}},
		},
	})
	reg.Register(CategoryExtras, &fakeTool{name: "GetTime", schema: `{"type":"object","properties":{}}`})
	if err := reg.SetEnabled([]string{"GetTime"}, false); err != nil {
		t.Fatal(err)
	}
	doc := Reference(reg)

	wantInOrder := []string{
		"# Tool reference",
		"| [Edit](#edit) | core | mutating | Replaces text in a file. |",
		"| [GetTime](#gettime) | extras | none | GetTime is a test tool. |",
		"## Compared with Claude Code",
		"| [Edit](#edit) | " + claudeCodeComparison()["Edit"] + " |",
		"| [GetTime](#gettime) | " + ClaudeCodeOnlyInToolhost + " |",
		"## Edit\n\nReplaces text in a file.\n\nCategory: `core` · Side effect: `mutating` · Default risk: `medium`\n\nEach edit must match exactly once.\n\nThe file must have been read first.\n\nCompared with Claude Code: " + claudeCodeComparison()["Edit"] + "\n\n### Input",
		"| Field | Type | Required | Description |",
		"| `file_path` | string | yes | Absolute path of the file |",
		"| `mode` | \"replace\" \\| \"insert\" | no | (default \"replace\") |",
		"| `edits` | array of object | yes |  |",
		"| `edits[].old_string` | string | yes | Text to find \\| exactly |",
		"| `edits[].count` | integer | no | (minimum 1) |",
		"| `tags` | array of string | no |  |",
		"| `note` | string or null | no |  |",
		"### Examples\n\nRename a variable:\n\n```json\n{\n  \"file_path\": \"/w/a.go\",\n  \"edits\": [\n    {\n      \"old_string\": \"x\"\n    }\n  ]\n}\n```",
		"## GetTime\n\nGetTime is a test tool.\n\nCategory: `extras` · Side effect: `none` · Default risk: `low` · Disabled\n\nCompared with Claude Code: " + ClaudeCodeOnlyInToolhost + "\n\n### Input\n\nNo input.",
	}
	at := 0
	for _, w := range wantInOrder {
		i := strings.Index(doc[at:], w)
		if i < 0 {
			t.Fatalf("reference lacks, after offset %d:\n%s\n--- reference ---\n%s", at, w, doc)
		}
		at += i + len(w)
	}
}
