package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// rawClient is the least an MCP client can be: it writes one request line
// and reads lines until the answer with the same id. Beside the SDK client
// it shows how much of a round trip is the servers' own: what neither
// client overhead nor the SDK's client-side decoding hide.
type rawClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
	// replied is how long the initialize reply took to arrive, from
	// before the process was started.
	replied time.Duration
}

// startRaw starts the peer and completes the handshake.
func startRaw(ctx context.Context, p peer) (*rawClient, error) {
	cmd := exec.CommandContext(ctx, p.cmd[0], p.cmd[1:]...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	init := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpbench-raw", "version": "1"},
	}
	if _, err := c.call("initialize", init); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.replied = time.Since(started)
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *rawClient) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// call sends a request and returns its result. Requests from the server
// (a roots/list after the handshake) are answered "method not found", as a
// client without those capabilities would; notifications are skipped.
func (c *rawClient) call(method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if err := c.send(req); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the answer to %s: %w", method, err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("the server wrote a line that is not JSON: %.200s", line)
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			answer := map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "not supported by this client"}}
			if err := c.send(answer); err != nil {
				return nil, err
			}
		case msg.Method != "":
			// a notification
		case string(msg.ID) == fmt.Sprint(id):
			if msg.Error != nil {
				return nil, errors.New(msg.Error.Message)
			}
			return msg.Result, nil
		}
	}
}

// callTool calls a tool, checks the result holds want, and returns the
// round-trip time.
func (c *rawClient) callTool(tool string, args map[string]any, want string) (time.Duration, error) {
	start := time.Now()
	res, err := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return 0, err
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	if r.IsError || !strings.Contains(text.String(), want) {
		return 0, fmt.Errorf("unexpected result (isError %v): %.300s", r.IsError, text.String())
	}
	return d, nil
}

func (c *rawClient) ping() (time.Duration, error) {
	start := time.Now()
	_, err := c.call("ping", nil)
	return time.Since(start), err
}

func (c *rawClient) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// measureReply starts the peer with the minimal client and returns how
// long its initialize reply took to arrive: the start as the issue of a
// server's start measures it, without an SDK client's own work (decoding
// the reply, sending notifications/initialized) in the figure.
func measureReply(ctx context.Context, p peer) (time.Duration, error) {
	c, err := startRaw(ctx, p)
	if err != nil {
		return 0, err
	}
	c.close()
	return c.replied, nil
}

// measureRaw interleaves ping, Read and Bash calls of the minimal client
// against every peer, calls times each.
func measureRaw(ctx context.Context, peers []peer, calls int, readArgs, bashArgs map[string]any) (ping, read, bash map[string][]time.Duration, err error) {
	clients := map[string]*rawClient{}
	for _, p := range peers {
		c, err := startRaw(ctx, p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s (minimal client): %w", p.name, err)
		}
		defer c.close()
		clients[p.name] = c
		// warm-up, unmeasured
		if _, err := c.callTool("Read", readArgs, "line 2000"); err != nil {
			return nil, nil, nil, fmt.Errorf("%s Read (minimal client): %w", p.name, err)
		}
	}
	ping, read, bash = map[string][]time.Duration{}, map[string][]time.Duration{}, map[string][]time.Duration{}
	for i := range calls {
		for _, p := range alternate(peers, i) {
			c := clients[p.name]
			d, err := c.ping()
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s ping (minimal client): %w", p.name, err)
			}
			ping[p.name] = append(ping[p.name], d)
			if d, err = c.callTool("Read", readArgs, "line 2049"); err != nil {
				return nil, nil, nil, fmt.Errorf("%s Read (minimal client): %w", p.name, err)
			}
			read[p.name] = append(read[p.name], d)
			if d, err = c.callTool("Bash", bashArgs, "hi"); err != nil {
				return nil, nil, nil, fmt.Errorf("%s Bash (minimal client): %w", p.name, err)
			}
			bash[p.name] = append(bash[p.name], d)
		}
	}
	return ping, read, bash, nil
}
