package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/session"
)

// TestServeAnswersInitializeBeforeTheSessionIsBuilt: toolhost mcp answers
// the initialize request before it builds its session, which it builds
// once the reply is out; a tools/list waits for the session and lists its
// tools, and a session that cannot be built ends Serve with its error
// after the handshake was answered.
func TestServeAnswersInitializeBeforeTheSessionIsBuilt(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	const list = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	buildFailed := errors.New("the session could not be built")
	for _, tt := range []struct {
		name string
		// build is what the held-back session build returns.
		build   func(session.Options) (*session.Session, error)
		wantErr error
	}{
		{"the session builds", session.New, nil},
		{"the session fails", func(session.Options) (*session.Session, error) { return nil, buildFailed }, buildFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			release := make(chan struct{})
			building := make(chan struct{})
			newSession = func(opts session.Options) (*session.Session, error) {
				close(building)
				<-release
				return tt.build(opts)
			}
			t.Cleanup(func() { newSession = session.New })

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clientIn, serverOut := io.Pipe()
			serverIn, clientOut := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- Serve(ctx, serverIn, serverOut, Options{Roots: []string{t.TempDir()}}) }()
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(clientIn)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			defer func() {
				_ = clientOut.Close()
				_ = clientIn.Close()
			}()
			// The bound only turns an answer that never comes into a
			// failure.
			next := func(what string) string {
				select {
				case line := <-lines:
					return line
				case <-time.After(time.Minute):
					t.Fatalf("no %s within a minute", what)
					return ""
				}
			}

			// Written aside: a server that reads nothing before its
			// session is built fails the test below, not the write.
			go func() { _, _ = io.WriteString(clientOut, initialize) }()
			if reply := next("initialize reply before the session was built"); !strings.Contains(reply, `"id":1`) || !strings.Contains(reply, `"serverInfo"`) {
				t.Fatalf("the first line is not the initialize reply: %s", reply)
			}
			select {
			case <-building:
			case <-time.After(time.Minute):
				t.Fatal("the session was not being built within a minute of the initialize reply")
			}
			// The server reads no further line until its session is built
			// (the cap on lines comes from its settings), and the pipe holds
			// none: the lines are written aside.
			wrote := make(chan error, 1)
			go func() {
				_, err := io.WriteString(clientOut, list)
				wrote <- err
			}()
			close(release)
			if tt.wantErr != nil {
				select {
				case err := <-served:
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Serve returned %v, want the session's error", err)
					}
				case <-time.After(time.Minute):
					t.Fatal("Serve did not end within a minute of its session failing")
				}
				return
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if reply := next("tools/list reply"); !strings.Contains(reply, `"id":2`) || !strings.Contains(reply, `"name":"Read"`) {
				t.Fatalf("tools/list did not list the session's tools: %.300s", reply)
			}
			cancel()
			<-served
		})
	}
}
