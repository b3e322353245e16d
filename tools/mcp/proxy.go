package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
)

// maxToolNameLen is the longest tool name model APIs accept.
const maxToolNameLen = 64

// maxServerSegment caps the server part of a tool name so that the
// "mcp__{server}__" prefix always survives truncation (tools are removed by
// that prefix).
const maxServerSegment = 40

// ToolPrefix is the prefix of every tool of a server: "mcp__{server}__".
func ToolPrefix(server string) string {
	s := sanitize(server)
	if len(s) > maxServerSegment {
		s = s[:maxServerSegment]
	}
	return "mcp__" + s + "__"
}

// ToolName is the registry name of a server's tool: mcp__{server}__{tool},
// with characters outside [A-Za-z0-9_-] replaced by "_" and at most 64
// characters; a longer name keeps its prefix and ends with a short hash of
// the tool's own name so that two long names stay distinct.
func ToolName(server, tool string) string {
	name := ToolPrefix(server) + sanitize(tool)
	if len(name) <= maxToolNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return name[:maxToolNameLen-len(suffix)] + suffix
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// proxyTool is one tool of an MCP server, registered as mcp__{server}__{tool}.
// Its calls go to whichever connection the server has at call time, so a
// restarted server serves calls made through the tool registered before.
type proxyTool struct {
	name   string
	server *server
	remote *sdk.Tool
	schema json.RawMessage
}

func newProxyTool(srv *server, remote *sdk.Tool) *proxyTool {
	return &proxyTool{
		name:   ToolName(srv.cfg.Name, remote.Name),
		server: srv,
		remote: remote,
		schema: objectSchema(remote.InputSchema),
	}
}

// objectSchema marshals a server's input schema, making sure it is an object
// schema (clients and validators reject anything else).
func objectSchema(s any) json.RawMessage {
	m := map[string]any{}
	if s != nil {
		if b, err := json.Marshal(s); err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	if m["type"] != "object" {
		m["type"] = "object"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

func (t *proxyTool) Name() string { return t.name }

func (t *proxyTool) Description() string {
	d := strings.TrimSpace(t.remote.Description)
	if d == "" {
		d = t.remote.Title
	}
	if d == "" {
		d = fmt.Sprintf("Tool %s of the MCP server %s.", t.remote.Name, t.server.cfg.Name)
	}
	return d
}

func (t *proxyTool) InputSchema() json.RawMessage { return t.schema }

// SideEffect is none for tools the server declares read-only; anything else
// runs code in another process that may reach anywhere, so it counts as
// network (never as a workspace edit that acceptEdits would let through).
func (t *proxyTool) SideEffect() tools.SideEffect {
	if a := t.remote.Annotations; a != nil && a.ReadOnlyHint {
		return tools.SideEffectNone
	}
	return tools.SideEffectNetwork
}

// Risk follows the server's annotations: read-only is low, destructive is
// critical, anything else high. A tool without annotations is high: its
// server said nothing to trust.
func (t *proxyTool) Risk(json.RawMessage) tools.Risk {
	a := t.remote.Annotations
	switch {
	case a == nil:
		return tools.RiskHigh
	case a.ReadOnlyHint:
		return tools.RiskLow
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return tools.RiskCritical
	}
	return tools.RiskHigh
}

// Docs documents the tool from what its server says about it.
func (t *proxyTool) Docs() tools.Docs {
	short, _, _ := strings.Cut(t.Description(), "\n")
	return tools.Docs{
		Short: short,
		Long:  fmt.Sprintf("%s\n\nProvided by the MCP server %q as its tool %q.", t.Description(), t.server.cfg.Name, t.remote.Name),
	}
}

// Access makes calls that may change something exclusive per server, so a
// batch runs them one at a time in the order given; read-only calls run
// in parallel.
func (t *proxyTool) Access(json.RawMessage) tools.Access {
	if t.SideEffect() == tools.SideEffectNone {
		return tools.Access{}
	}
	return tools.Access{Exclusive: []string{"mcp:" + t.server.cfg.Name}}
}

func (t *proxyTool) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var args map[string]any
	if err := json.Unmarshal(call.Input, &args); err != nil {
		return tools.ErrorResult("the input of %s must be a JSON object: %v.", t.name, err), nil
	}
	res, err := t.server.callTool(ctx, t.remote.Name, args, call.Progress)
	if err != nil || res == nil {
		return res, err
	}
	m := t.server.m
	return limitOutput(res, maxOutputChars(m.opts.Getenv), func(text string) (string, error) { return saveOutput(m.opts.Root, text) }), nil
}

// convertResult turns an MCP tool result into toolhost's result. Text and
// images pass through; audio, resource links and embedded resources become
// text that says what they are.
func convertResult(res *sdk.CallToolResult) *tools.Result {
	out := &tools.Result{IsError: res.IsError, Structured: res.StructuredContent}
	for _, c := range res.Content {
		out.Content = append(out.Content, convertContent(c)...)
	}
	if len(out.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Content = append(out.Content, tools.Content{Type: "text", Text: string(b)})
		}
	}
	if out.IsError {
		text := out.Text()
		if !strings.HasPrefix(text, "Error: ") {
			out.Content = append([]tools.Content{{Type: "text", Text: "Error: the MCP tool reported a failure."}}, out.Content...)
		}
	}
	return out
}

func convertContent(c sdk.Content) []tools.Content {
	switch c := c.(type) {
	case *sdk.TextContent:
		return []tools.Content{{Type: "text", Text: c.Text}}
	case *sdk.ImageContent:
		return []tools.Content{imageContent(c.Data, c.MIMEType)}
	case *sdk.AudioContent:
		return []tools.Content{{Type: "text", Text: fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))}}
	case *sdk.ResourceLink:
		text := fmt.Sprintf("[resource link: %s", c.URI)
		if c.Name != "" {
			text += " (" + c.Name + ")"
		}
		if c.MIMEType != "" {
			text += ", " + c.MIMEType
		}
		return []tools.Content{{Type: "text", Text: text + "]"}}
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return nil
		}
		return resourceContents(c.Resource)
	}
	if b, err := json.Marshal(c); err == nil {
		return []tools.Content{{Type: "text", Text: string(b)}}
	}
	return nil
}

// resourceContents renders one resource's contents: text as text, images as
// image content, other binary data as a note with its size and type.
func resourceContents(rc *sdk.ResourceContents) []tools.Content {
	switch {
	case rc.Blob != nil && strings.HasPrefix(rc.MIMEType, "image/"):
		return []tools.Content{imageContent(rc.Blob, rc.MIMEType)}
	case rc.Blob != nil:
		mime := rc.MIMEType
		if mime == "" {
			mime = "unknown type"
		}
		return []tools.Content{{Type: "text", Text: fmt.Sprintf("[binary resource %s: %d bytes, %s; not shown as text]", rc.URI, len(rc.Blob), mime)}}
	default:
		return []tools.Content{{Type: "text", Text: rc.Text}}
	}
}

// imageContent carries raw image bytes as base64, as toolhost's content does.
func imageContent(data []byte, mime string) tools.Content {
	return tools.Content{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}
}

// isConnectionClosed reports a call that failed because the server went away.
func isConnectionClosed(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed)
}
