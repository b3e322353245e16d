// Package chatapi is a small client of OpenAI-compatible chat-completions
// endpoints (the agent.endpoint setting): the request and answer shapes,
// tool calls included, and one POST with the key from agent.apiKeyEnv, a cap
// on the answer's size and errors that name the endpoint and its reply.
// WebFetch's summariser and the Agent tool's built-in loop share it.
package chatapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// MaxResponseBytes caps the endpoint's answer.
const MaxResponseBytes = 4 << 20

// Message is one message of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is one function call an assistant message asks for.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and its arguments. Arguments is a JSON
// text in a string as OpenAI sends it; some servers send the object itself,
// so it is kept raw (see Input).
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Input returns the call's arguments as a JSON object, whether the server
// sent them as a string holding JSON or as the object itself. Missing
// arguments are an empty object.
func (f FunctionCall) Input() (json.RawMessage, error) {
	raw := bytes.TrimSpace(f.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("the arguments are not a JSON object: %w", err)
	}
	return json.RawMessage(raw), nil
}

// Request is the body of a chat-completions request.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Tools are function definitions (tools.Definition in the "openai" format).
	Tools []any `json:"tools,omitempty"`
}

// Response is the answer of a chat-completions endpoint.
type Response struct {
	Choices []Choice `json:"choices"`
	Error   *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Choice is one completion of a Response.
type Choice struct {
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Endpoint is where requests go and how: an OpenAI-compatible
// chat-completions URL, the model asked when a request names none, and the
// environment variable holding the API key. It has the fields of the
// settings' agent and providers entries, which convert to it
// (chatapi.Endpoint(st.Agent)), so this package needs nothing above it.
type Endpoint struct {
	Endpoint  string
	Model     string
	APIKeyEnv string
}

// Client posts chat-completions requests.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// UserAgent is sent when set.
	UserAgent string
}

// Complete posts req to agent.Endpoint, with agent.Model when req has no
// model and the key from the variable agent.APIKeyEnv names, and returns the
// first choice. A non-2xx status, an answer that is not chat-completions
// JSON and an answer without choices are errors that say so.
func (c Client) Complete(ctx context.Context, agent Endpoint, req Request) (*Choice, error) {
	if req.Model == "" {
		req.Model = agent.Model
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, agent.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("bad agent.endpoint %q: %w", agent.Endpoint, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		hreq.Header.Set("User-Agent", c.UserAgent)
	}
	if agent.APIKeyEnv != "" {
		if key := os.Getenv(agent.APIKeyEnv); key != "" {
			hreq.Header.Set("Authorization", "Bearer "+key)
		}
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	if err != nil {
		return nil, err
	}
	var out Response
	jsonErr := json.Unmarshal(raw, &out)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jsonErr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("%s answered %s: %s", agent.Endpoint, resp.Status, msg)
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("%s did not answer chat-completions JSON: %w", agent.Endpoint, jsonErr)
	}
	if out.Error != nil && out.Error.Message != "" {
		return nil, fmt.Errorf("%s answered an error: %s", agent.Endpoint, out.Error.Message)
	}
	if len(out.Choices) == 0 {
		return nil, fmt.Errorf("%s answered no choices", agent.Endpoint)
	}
	return &out.Choices[0], nil
}
