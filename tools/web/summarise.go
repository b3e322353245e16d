package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/chatapi"
	"github.com/toolhost/toolhost/settings"
)

// summariseTimeout bounds one call to the chat-completions endpoint.
const summariseTimeout = 2 * time.Minute

const summariserInstructions = "You answer a request about one web page, using only the page content you are given. " +
	"Be concise and specific. Quote the page exactly where its wording matters (commands, code, figures, names), " +
	"keep links that the answer relies on, and say plainly when the page does not contain what is asked."

type (
	chatMessage = chatapi.Message
	chatRequest = chatapi.Request
)

// summarise asks the OpenAI-compatible chat-completions endpoint of the
// agent settings to answer prompt from the page text.
func summarise(ctx context.Context, client *http.Client, agent settings.Agent, prompt, pageURL, text string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, summariseTimeout)
	defer cancel()
	choice, err := chatapi.Client{HTTP: client, UserAgent: userAgent}.Complete(ctx, chatapi.Endpoint(agent), chatRequest{
		Model: agent.Model,
		Messages: []chatMessage{
			{Role: "system", Content: summariserInstructions},
			{Role: "user", Content: "Page: " + pageURL + "\n\n<page>\n" + text + "\n</page>\n\nRequest: " + prompt},
		},
	})
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(choice.Message.Content) == "" {
		return "", fmt.Errorf("%s answered no text", agent.Endpoint)
	}
	return strings.TrimSpace(choice.Message.Content), nil
}
