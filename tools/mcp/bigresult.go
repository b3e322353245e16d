package mcp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/shell"
)

// An MCP server can answer with megabytes (a whole database table, a
// crawled site). As Claude Code does, a result over the output limit does
// not reach the model whole: its text is saved to a file the model can
// Read (with offset and limit) or Grep, and the result keeps the start of
// the text with a note naming the file. The limit is in tokens, 25,000
// unless MAX_MCP_OUTPUT_TOKENS in toolhost's environment says otherwise; a
// token is taken as 4 characters, the estimate Claude Code makes too.

// defaultMaxOutputTokens is Claude Code's default MCP output limit.
const defaultMaxOutputTokens = 25000

// charsPerToken turns the token limit into characters.
const charsPerToken = 4

// maxOutputChars is the limit on a result's text, in characters (bytes
// would cut a text in another script sooner; runes are what the limit
// estimates).
func maxOutputChars(getenv func(string) (string, bool)) int {
	tokens := defaultMaxOutputTokens
	if v, ok := getenv("MAX_MCP_OUTPUT_TOKENS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			tokens = n
		}
	}
	return tokens * charsPerToken
}

// limitOutput returns res as the model may see it: unchanged when its text
// fits limit characters; else its text saved by save, and a result with the
// text's start and a note naming the file (images are kept; structured
// content, which repeats the text, is dropped). When saving fails the
// start is still all that is returned, and the note says the rest is lost.
func limitOutput(res *tools.Result, limit int, save func(string) (string, error)) *tools.Result {
	total := 0
	for _, c := range res.Content {
		if c.Type == "text" {
			total += utf8.RuneCountInString(c.Text)
		}
	}
	if total <= limit {
		return res
	}
	var whole strings.Builder
	var images []tools.Content
	for _, c := range res.Content {
		switch c.Type {
		case "text":
			if whole.Len() > 0 {
				whole.WriteByte('\n')
			}
			whole.WriteString(c.Text)
		default:
			images = append(images, c)
		}
	}
	text := whole.String()
	head := headChars(text, limit)
	var note string
	if path, err := save(text); err != nil {
		note = fmt.Sprintf("[The result is too long: %d characters, over the MCP output limit of %d characters (MAX_MCP_OUTPUT_TOKENS=%d tokens); the first %d are shown. The rest could not be saved (%v): if the server can page or filter its answer, ask for a smaller part.]",
			total, limit, limit/charsPerToken, utf8.RuneCountInString(head), err)
	} else {
		note = fmt.Sprintf("[The result is too long: %d characters, over the MCP output limit of %d characters (MAX_MCP_OUTPUT_TOKENS=%d tokens); the first %d are shown. The whole text is saved in %s: Read it with offset and limit, or search it with Grep.]",
			total, limit, limit/charsPerToken, utf8.RuneCountInString(head), path)
	}
	out := &tools.Result{IsError: res.IsError}
	out.Content = append(out.Content, tools.Content{Type: "text", Text: head + "\n" + note})
	out.Content = append(out.Content, images...)
	return out
}

// headChars is the first n characters of s, ended at a line break when one
// is in the last quarter.
func headChars(s string, n int) string {
	head := s
	count := 0
	for i := range s {
		if count == n {
			head = s[:i]
			break
		}
		count++
	}
	if len(head) == len(s) {
		return s
	}
	if i := strings.LastIndexByte(head, '\n'); i >= len(head)*3/4 {
		head = head[:i]
	}
	return head
}

// saveOutput saves the whole text of a result too long for the model and
// returns the file's path: where the saved outputs of commands go, so the
// model finds all of them in one place.
func saveOutput(root, text string) (string, error) {
	f, path, err := shell.CreateOutputFile(root, "mcp")
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		_ = os.Remove(path)
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, nil
}
