package state

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The caps of the task list, for the same reason as TodoWrite's: every
// change sends the whole list to the editor, so a task of megabytes or a
// list of a million tasks would be sent, and drawn, at every call.
const (
	// MaxTasks is the most tasks the list holds (deleted ones do not count).
	MaxTasks = MaxTodos
	// MaxTaskDescriptionChars is the most characters of a description; a
	// subject, activeForm or owner is held to MaxTodoChars.
	MaxTaskDescriptionChars = 20_000
	// MaxTaskMetadataBytes is the most a task's metadata may take as JSON.
	MaxTaskMetadataBytes = 16 << 10
)

// taskField is a text field of a task call, nil when the call leaves it.
type taskField struct {
	name string
	text *string
	max  int
}

// taskTextProblem is the first field of fields over its cap, as an error
// for the model; "" when all fit.
func taskTextProblem(fields ...taskField) string {
	for _, f := range fields {
		if f.text == nil {
			continue
		}
		if n := utf8.RuneCountInString(*f.text); n > f.max {
			return fmt.Sprintf("%s is %d characters, more than the %d a task's %s holds; nothing was changed. Keep it short, and put long notes in a file the task names.", f.name, n, f.max, f.name)
		}
	}
	return ""
}

// metadataProblem is an error for the model when metadata, as JSON, is over
// MaxTaskMetadataBytes; "" when it fits.
func metadataProblem(metadata map[string]any) string {
	if len(metadata) == 0 {
		return ""
	}
	raw, err := json.Marshal(metadata)
	if err != nil {
		return fmt.Sprintf("metadata cannot be stored (%v); nothing was changed.", err)
	}
	if len(raw) > MaxTaskMetadataBytes {
		return fmt.Sprintf("the task's metadata would take %d bytes as JSON, more than the %d it holds; nothing was changed. Keep metadata to short keys and values (ids, labels), and large data in a file.", len(raw), MaxTaskMetadataBytes)
	}
	return ""
}
