package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/toolhost/toolhost/settings"
)

// summariseTimeout bounds one call to the chat-completions endpoint.
const summariseTimeout = 2 * time.Minute

// maxSummaryResponseBytes caps the endpoint's answer.
const maxSummaryResponseBytes = 4 << 20

const summariserInstructions = "You answer a request about one web page, using only the page content you are given. " +
	"Be concise and specific. Quote the page exactly where its wording matters (commands, code, figures, names), " +
	"keep links that the answer relies on, and say plainly when the page does not contain what is asked."

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// summarise asks the OpenAI-compatible chat-completions endpoint of the
// agent settings to answer prompt from the page text.
func summarise(ctx context.Context, client *http.Client, agent settings.Agent, prompt, pageURL, text string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, summariseTimeout)
	defer cancel()
	body, err := json.Marshal(chatRequest{
		Model: agent.Model,
		Messages: []chatMessage{
			{Role: "system", Content: summariserInstructions},
			{Role: "user", Content: "Page: " + pageURL + "\n\n<page>\n" + text + "\n</page>\n\nRequest: " + prompt},
		},
	})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, agent.Endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("bad agent.endpoint %q: %w", agent.Endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if agent.APIKeyEnv != "" {
		if key := os.Getenv(agent.APIKeyEnv); key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxSummaryResponseBytes))
	if err != nil {
		return "", err
	}
	var out chatResponse
	jsonErr := json.Unmarshal(raw, &out)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jsonErr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return "", fmt.Errorf("%s answered %s: %s", agent.Endpoint, resp.Status, msg)
	}
	if jsonErr != nil {
		return "", fmt.Errorf("%s did not answer chat-completions JSON: %w", agent.Endpoint, jsonErr)
	}
	if len(out.Choices) == 0 || strings.TrimSpace(out.Choices[0].Message.Content) == "" {
		return "", fmt.Errorf("%s answered no text", agent.Endpoint)
	}
	return strings.TrimSpace(out.Choices[0].Message.Content), nil
}
