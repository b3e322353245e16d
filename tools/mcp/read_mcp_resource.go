package mcp

import (
	"context"
	_ "embed"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
)

//go:embed read_mcp_resource.md
var readMcpResourceDescription string

// ReadMcpResourceParams is the input of ReadMcpResource.
type ReadMcpResourceParams struct {
	Server string `json:"server" jsonschema:"Name of the MCP server"`
	URI    string `json:"uri" jsonschema:"URI of the resource"`
}

var readMcpResourceSchema = tools.SchemaOf[ReadMcpResourceParams](nil)

// ReadMcpResourceOutput is the structured result, in Claude Code's shape
// (binary contents are described by size rather than saved to a file).
type ReadMcpResourceOutput struct {
	Contents []ReadContent `json:"contents"`
}

// ReadContent is one content of a read resource.
type ReadContent struct {
	URI       string `json:"uri"`
	MimeType  string `json:"mimeType,omitempty"`
	Text      string `json:"text,omitempty"`
	BlobBytes int    `json:"blobBytes,omitempty"`
}

// ReadMcpResource reads one resource of an MCP server.
type ReadMcpResource struct {
	manager *Manager
}

// NewReadMcpResource returns the tool over m's servers.
func NewReadMcpResource(m *Manager) *ReadMcpResource { return &ReadMcpResource{manager: m} }

func (*ReadMcpResource) Name() string                 { return "ReadMcpResource" }
func (*ReadMcpResource) Description() string          { return readMcpResourceDescription }
func (*ReadMcpResource) InputSchema() json.RawMessage { return readMcpResourceSchema.JSON() }
func (*ReadMcpResource) SideEffect() tools.SideEffect { return tools.SideEffectNone }

func (*ReadMcpResource) Docs() tools.Docs {
	return tools.Docs{
		Short: "Read a resource of an MCP server by URI.",
		Long:  readMcpResourceDescription,
		Examples: []tools.Example{
			{Title: "Read a file a server exposes", Input: json.RawMessage(`{"server":"files","uri":"file:///srv/notes.md"}`)},
		},
	}
}

func (t *ReadMcpResource) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p ReadMcpResourceParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("invalid input: %v.", err), nil
	}
	if p.Server == "" || p.URI == "" {
		return tools.ErrorResult("both server and uri are required; ListMcpResources shows them."), nil
	}
	cs, bad := t.manager.connected(p.Server)
	if bad != nil {
		return bad, nil
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: p.URI})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return tools.ErrorResult("the MCP server %q could not read %s: %v. Check the URI with ListMcpResources.", p.Server, p.URI, err), nil
	}
	out := &tools.Result{}
	var contents []ReadContent
	for _, c := range res.Contents {
		out.Content = append(out.Content, resourceContents(c)...)
		contents = append(contents, ReadContent{URI: c.URI, MimeType: c.MIMEType, Text: c.Text, BlobBytes: len(c.Blob)})
	}
	out.Structured = ReadMcpResourceOutput{Contents: contents}
	if len(out.Content) == 0 {
		out.Content = []tools.Content{{Type: "text", Text: "The resource " + p.URI + " is empty."}}
	}
	return out, nil
}
