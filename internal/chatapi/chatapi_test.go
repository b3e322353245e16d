package chatapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestFunctionCallInput(t *testing.T) {
	tests := []struct {
		name, args, want, err string
	}{
		{"a string holding JSON", `"{\"a\":1}"`, `{"a":1}`, ""},
		{"the object itself", `{"a":1}`, `{"a":1}`, ""},
		{"missing", ``, `{}`, ""},
		{"null", `null`, `{}`, ""},
		{"an empty string", `""`, `{}`, ""},
		{"not an object", `"[1]"`, "", "not a JSON object"},
		{"not JSON", `"nope"`, "", "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FunctionCall{Arguments: []byte(tc.args)}.Input()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("Input = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string // the error, or the content of the first choice
	}{
		{"an answer", 200, `{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`, "hi"},
		{"an error status", 429, `{"error":{"message":"slow down"}}`, "429 Too Many Requests: slow down"},
		{"an error in a 200", 200, `{"error":{"message":"bad model"}}`, "answered an error: bad model"},
		{"no choices", 200, `{"choices":[]}`, "answered no choices"},
		{"not JSON", 200, `<html>`, "did not answer chat-completions JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			choice, err := Client{}.Complete(t.Context(), Endpoint{Endpoint: srv.URL, Model: "m"}, Request{})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = choice.Message.Content
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
