package jsonstr

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDecodeIsEncodingJSON checks Decode against encoding/json on strings
// of every kind of escape, invalid text, and values that are not strings.
func TestDecodeIsEncodingJSON(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr bool
	}{
		{"empty", `""`, false},
		{"plain", `"hello"`, false},
		{"escapes", `"a\"b\\c\/d\b\f\n\r\t"`, false},
		{"unicode escapes", `"\u00e9\u2028 \ud83d\ude00"`, false},
		{"lone surrogate", `"x\ud800y"`, false},
		{"raw UTF-8", `"é 😀"`, false},
		{"invalid UTF-8", "\"bad \xff\xfe end\"", false},
		{"many lines", `"` + strings.Repeat(`line of text\n`, 10000) + `"`, false},
		{"null", `null`, false},
		{"a number", `12`, true},
		{"an object", `{"a":1}`, true},
		{"a bad escape", `"\x"`, true},
		{"unterminated", `"abc`, true},
		{"nothing", ``, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.raw))
			var want string
			wantErr := json.Unmarshal([]byte(tt.raw), &want)
			if (err != nil) != tt.wantErr || (wantErr != nil) != tt.wantErr {
				t.Fatalf("Decode error %v, encoding/json's %v; want an error: %v", err, wantErr, tt.wantErr)
			}
			if got != want {
				t.Errorf("Decode = %.80q, encoding/json gives %.80q", got, want)
			}
		})
	}
}
