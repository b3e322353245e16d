package script

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// echoServer answers each request with {"echo": method, "root": params.root}
// and, for the method "ask", first asks the client and returns its answer.
// A notification "exit" ends it; "bye" makes it return an error.
func echoServer(ctx context.Context, in io.Reader, out io.Writer) error {
	br := bufio.NewReader(in)
	for {
		body, err := ReadFrame(br)
		if err != nil {
			return errors.New("input ended")
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		switch {
		case m.Method == "exit":
			return nil
		case m.Method == "bye":
			return errors.New("bye")
		case m.Method == "ask":
			_ = WriteFrame(out, []byte(`{"jsonrpc":"2.0","id":100,"method":"client/question","params":{"q":"color?"}}`))
			answer, err := ReadFrame(br)
			if err != nil {
				return err
			}
			var a struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(answer, &a)
			_ = WriteFrame(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, a.Result)))
		case len(m.ID) > 0:
			params := string(m.Params)
			if params == "" {
				params = "null"
			}
			_ = WriteFrame(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"echo":%q,"params":%s,"durationMs":12}}`, m.ID, m.Method, params)))
		}
	}
}

func archive(transcript string, files ...string) []byte {
	var b strings.Builder
	b.WriteString("-- transcript --\n" + transcript)
	for i := 0; i+1 < len(files); i += 2 {
		b.WriteString("-- " + files[i] + " --\n" + files[i+1])
	}
	return []byte(b.String())
}

func TestReplay(t *testing.T) {
	tests := []struct {
		name       string
		transcript string
		files      []string
		// wantFailure is part of the first failure; "" means the replay passes.
		wantFailure string
	}{
		{name: "matching reply with $WORK and volatile duration",
			transcript: `-> {"id":1,"method":"a","params":{"p":"$WORK/x"}}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"a","params":{"p":"$WORK/x"},"durationMs":"*"}}
-> {"method":"exit"}
exit 0
`},
		{name: "a run of expectations matches in any order",
			transcript: `-> {"id":1,"method":"a"}
-> {"id":2,"method":"b"}
<- {"jsonrpc":"2.0","id":2,"result":{"echo":"b","params":null,"durationMs":"*"}}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"a","params":null,"durationMs":"*"}}
-> {"method":"exit"}
`},
		{name: "subset expectation",
			transcript: `-> {"id":1,"method":"a","params":{"list":[1,2,3],"k":"v"}}
<~ {"id":1,"result":{"params":{"list":[1,3]}}}
-> {"method":"exit"}
`},
		{name: "subset expectation that is not contained",
			transcript: `-> {"id":1,"method":"a","params":{"list":[1,2,3]}}
<~ {"id":1,"result":{"params":{"list":[3,1]}}}
`, wantFailure: "unexpected message"},
		{name: "wrong value",
			transcript: `-> {"id":1,"method":"a"}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"b","params":null,"durationMs":"*"}}
`, wantFailure: "line 2: unexpected message"},
		{name: "extra key in the reply",
			transcript: `-> {"id":1,"method":"a"}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"a","durationMs":"*"}}
`, wantFailure: "unexpected message"},
		{name: "a server request answered by the script",
			transcript: `-> {"id":1,"method":"ask"}
<- {"jsonrpc":"2.0","id":100,"method":"client/question","params":{"q":"color?"}}
-> {"jsonrpc":"2.0","id":100,"result":"blue"}
<- {"jsonrpc":"2.0","id":1,"result":"blue"}
-> {"method":"exit"}
`},
		{name: "a message nobody expected",
			transcript: `-> {"id":1,"method":"a"}
-> {"method":"exit"}
`, wantFailure: "unexpected message after the transcript"},
		{name: "exit code",
			transcript: `-> {"method":"bye"}
exit 0
`, wantFailure: "want exit 0"},
		{name: "file checks",
			transcript: `== file a.txt want/a.txt
== nofile b.txt
-> {"method":"exit"}
`, files: []string{"ws/a.txt", "alpha\n", "want/a.txt", "alpha\n"}},
		{name: "a file that differs",
			transcript: `== file a.txt want/a.txt
-> {"method":"exit"}
`, files: []string{"ws/a.txt", "alpha\n", "want/a.txt", "beta\n"}, wantFailure: "a.txt differs"},
		{name: "raw bytes",
			transcript: `=> "Content-Length: 27\r\n\r\n{\"id\":5,\"method\":\"rawcall\"}"
<- {"jsonrpc":"2.0","id":5,"result":{"echo":"rawcall","params":null,"durationMs":"*"}}
-> {"method":"exit"}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(archive(tt.transcript, tt.files...))
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Replay(context.Background(), echoServer, Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantFailure == "" && len(res.Failures) > 0:
				t.Fatalf("unexpected failures: %v", res.Failures)
			case tt.wantFailure != "" && (len(res.Failures) == 0 || !strings.Contains(res.Failures[0], tt.wantFailure)):
				t.Fatalf("failures %v, want one mentioning %q", res.Failures, tt.wantFailure)
			}
		})
	}
}

func TestUpdateRewritesOnlyWhatNoLongerMatches(t *testing.T) {
	in := `-> {"id":1,"method":"a"}
<~ {"id":1}
-> {"id":2,"method":"b"}
<- *
-> {"method":"exit"}
`
	s, err := Parse(archive(in))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Replay(context.Background(), echoServer, Options{Dir: t.TempDir(), Update: true})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("update: %v %v", err, res.Failures)
	}
	want := `-- transcript --
-> {"id":1,"method":"a"}
<~ {"id":1}
-> {"id":2,"method":"b"}
<- {"id":2,"jsonrpc":"2.0","result":{"durationMs":"*","echo":"b","params":null}}
-> {"method":"exit"}
`
	if got := string(res.Archive); got != want {
		t.Fatalf("rewritten archive:\n%s\nwant:\n%s", got, want)
	}
	// The rewritten session passes as it is.
	s2, err := Parse(res.Archive)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := s2.Replay(context.Background(), echoServer, Options{Dir: t.TempDir()})
	if err != nil || len(res2.Failures) > 0 {
		t.Fatalf("replaying the rewritten session: %v %v", err, res2.Failures)
	}
}

func TestParseRejectsUnknownLines(t *testing.T) {
	if _, err := Parse(archive("hello\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err = %v, want one naming line 1", err)
	}
	if _, err := Parse([]byte("-- other --\nx\n")); err == nil {
		t.Fatal("an archive without a transcript parsed")
	}
}

func TestDemoPrintsReadably(t *testing.T) {
	file := filepath.Join(t.TempDir(), "demo.txtar")
	data := archive(`-> {"jsonrpc":"2.0","id":1,"method":"ask"}
<- {"jsonrpc":"2.0","id":100,"method":"client/question","params":{"q":"color?"}}
-> {"jsonrpc":"2.0","id":100,"result":{"content":[{"type":"text","text":"line one\nline two"}],"isError":false}}
<- {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"line one\nline two"}],"isError":false}}
-> {"jsonrpc":"2.0","method":"exit"}
`)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Demo(context.Background(), &out, file, echoServer); err != nil {
		t.Fatalf("Demo: %v", err)
	}
	for _, want := range []string{
		"→ editor → toolhost: request 1 ask",
		"← toolhost → editor: request 100 client/question",
		"→ editor → toolhost: result of 100 client/question",
		"← toolhost → editor: result of 1 ask\n    │ line one\n    │ line two\n",
		"→ editor → toolhost: notification exit",
		"Every message matched",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// lineEchoServer answers each newline-delimited request with its method, and
// each line that is not JSON with an error, as an MCP stdio server would.
func lineEchoServer(ctx context.Context, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			fmt.Fprintln(out, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON"}}`)
			continue
		}
		if len(m.ID) > 0 {
			fmt.Fprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"echo\":%q}}\n", m.ID, m.Method)
		}
	}
	return nil
}

// TestReplayLines replays a session framed as newline-delimited JSON.
func TestReplayLines(t *testing.T) {
	tests := []struct {
		name       string
		transcript string
		fails      int
	}{
		{name: "requests and a bad line", transcript: `-> {"jsonrpc":"2.0","id":1,"method":"ping"}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"ping"}}
=> "not json\n"
<~ {"error":{"code":-32700}}
exit 0
`},
		{name: "a wrong expectation fails", transcript: `-> {"jsonrpc":"2.0","id":1,"method":"ping"}
<- {"jsonrpc":"2.0","id":1,"result":{"echo":"pong"}}
`, fails: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(archive(tt.transcript))
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Replay(context.Background(), lineEchoServer, Options{Dir: t.TempDir(), Lines: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) != tt.fails {
				t.Errorf("failures = %q, want %d", res.Failures, tt.fails)
			}
		})
	}
}
