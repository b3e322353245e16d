package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolhost/toolhost/tools"
)

//go:embed read_mcp_resource_dir.md
var readMcpResourceDirDescription string

// DirectoryMimeType marks a directory entry, as in Claude Code.
const DirectoryMimeType = "inode/directory"

var readMcpResourceDirSchema = tools.SchemaVariantOf[ReadMcpResourceParams]("ReadMcpResourceDir", func(s *jsonschema.Schema) {
	s.Properties["server"].Description = "The MCP server name."
	s.Properties["uri"].Description = "The directory resource URI to list."
})

// DirEntry is one child in ReadMcpResourceDir's output.
type DirEntry struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
}

// ReadMcpResourceDirOutput is the structured result, in Claude Code's shape.
type ReadMcpResourceDirOutput struct {
	Resources []DirEntry `json:"resources"`
	Error     string     `json:"error,omitempty"`
}

// ReadMcpResourceDir lists the direct children of a directory resource.
//
// Claude Code sends the resources/directory/read request of an MCP
// extension to servers that declare it. The Go MCP SDK cannot send a request
// it does not know, so toolhost lists the directory from the server's
// resources/list: every resource whose URI lies under the directory's, with
// deeper ones folded into their subdirectory. For servers that list their
// resources (most do) the answer is the same.
type ReadMcpResourceDir struct {
	manager *Manager
}

// NewReadMcpResourceDir returns the tool over m's servers.
func NewReadMcpResourceDir(m *Manager) *ReadMcpResourceDir { return &ReadMcpResourceDir{manager: m} }

func (*ReadMcpResourceDir) Name() string        { return "ReadMcpResourceDir" }
func (*ReadMcpResourceDir) Description() string { return readMcpResourceDirDescription }
func (*ReadMcpResourceDir) InputSchema() json.RawMessage {
	return readMcpResourceDirSchema.JSON()
}
func (*ReadMcpResourceDir) SideEffect() tools.SideEffect { return tools.SideEffectNone }

func (*ReadMcpResourceDir) Docs() tools.Docs {
	return tools.Docs{
		Short: "List the direct children of a directory resource of an MCP server.",
		Long: "Built on the server's resources/list (Claude Code uses the resources/directory/read extension, " +
			"which the Go MCP SDK cannot send): the resources under the URI, subdirectories as " + DirectoryMimeType + ".",
		Examples: []tools.Example{
			{Title: "List a folder a server exposes", Input: json.RawMessage(`{"server":"files","uri":"file:///srv/docs"}`)},
		},
	}
}

func (t *ReadMcpResourceDir) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p ReadMcpResourceParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("invalid input: %v.", err), nil
	}
	cs, bad := t.manager.connected(p.Server)
	if bad != nil {
		return bad, nil
	}
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
		return tools.ErrorResult("the MCP server %q has no resources to list.", p.Server), nil
	}
	dir := strings.TrimSuffix(p.URI, "/") + "/"
	seen := map[string]bool{}
	out := ReadMcpResourceDirOutput{Resources: []DirEntry{}}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return tools.ErrorResult("listing the resources of %q failed: %v.", p.Server, err), nil
		}
		rest, ok := strings.CutPrefix(r.URI, dir)
		if !ok || rest == "" {
			continue
		}
		entry := DirEntry{URI: r.URI, Name: r.Name, MimeType: r.MIMEType}
		if i := strings.IndexByte(rest, '/'); i >= 0 && i < len(rest)-1 {
			entry = DirEntry{URI: dir + rest[:i], Name: rest[:i], MimeType: DirectoryMimeType}
		}
		if entry.Name == "" {
			entry.Name = strings.TrimSuffix(rest, "/")
		}
		if seen[entry.URI] {
			continue
		}
		seen[entry.URI] = true
		out.Resources = append(out.Resources, entry)
	}
	slices.SortFunc(out.Resources, func(a, b DirEntry) int { return strings.Compare(a.URI, b.URI) })
	b, err := json.MarshalIndent(out.Resources, "", "  ")
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Directory listing of %s (%d entries):\n%s", p.URI, len(out.Resources), b)
	if len(out.Resources) == 0 {
		text = fmt.Sprintf("The server %q lists no resources under %s. ListMcpResources shows every resource it has.", p.Server, p.URI)
	}
	return &tools.Result{Content: []tools.Content{{Type: "text", Text: text}}, Structured: out}, nil
}
