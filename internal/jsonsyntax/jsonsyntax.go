// Package jsonsyntax describes why a text is not JSON, for the errors both
// servers send back when a client's message does not parse.
package jsonsyntax

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Detail says where text stops being JSON: the syntax error and its byte
// offset. For text that is JSON it says "unexpected content".
func Detail(text []byte) string {
	var v any
	err := json.Unmarshal(text, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "unexpected content"
}
