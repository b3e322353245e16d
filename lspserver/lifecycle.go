package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/toolhost/toolhost/internal/rpcfault"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// ProtocolVersion is the version of the toolhost/* methods, reported in
// capabilities.experimental.toolhost.version.
const ProtocolVersion = "1"

// Methods are the custom requests the server handles, as listed in
// capabilities.experimental.toolhost.methods.
var Methods = []string{
	"toolhost/listTools",
	"toolhost/callTool",
	"toolhost/callTools",
	"toolhost/setToolsEnabled",
	"toolhost/setPermissionMode",
	"toolhost/status",
	"toolhost/checkPermission",
	"toolhost/changes",
	"toolhost/rewind",
}

// initializeParams is the part of LSP's InitializeParams toolhost reads.
// protocol.InitializeParams lacks general.positionEncodings and types the
// experimental capabilities loosely, hence this struct.
type initializeParams struct {
	ProcessID  *int32 `json:"processId"`
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	RootURI               *string                    `json:"rootUri"`
	RootPath              *string                    `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	Capabilities          clientCapabilities         `json:"capabilities"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
	Trace                 string                     `json:"trace"`
}

// clientCapabilities are the client capabilities toolhost acts on.
type clientCapabilities struct {
	Workspace struct {
		ApplyEdit bool `json:"applyEdit"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
		// ShowMessage is present when the client describes its
		// window/showMessageRequest support (LSP 3.16).
		ShowMessage json.RawMessage `json:"showMessage"`
	} `json:"window"`
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	// Toolhost is experimental.toolhost, read separately so that other
	// experimental values of any shape are accepted.
	Toolhost toolhostClientCapabilities `json:"-"`
}

// toolhostClientCapabilities are the custom requests a client handles.
type toolhostClientCapabilities struct {
	AskUserQuestion   bool `json:"askUserQuestion"`
	RequestPermission bool `json:"requestPermission"`
	RunAgent          bool `json:"runAgent"`
	SavesAppliedEdits bool `json:"savesAppliedEdits"`
	// ReviewChanges: the client reviews a turn's file changes as one
	// (toolhost/reviewChanges) instead of one prompt per file.
	ReviewChanges bool `json:"reviewChanges"`
	// RequestTrust: the client asks the user whether the folder is trusted
	// (toolhost/requestTrust).
	RequestTrust bool `json:"requestTrust"`
	// Diagnostics: the client answers toolhost/diagnostics with the
	// editor's diagnostics.
	Diagnostics bool `json:"diagnostics"`
	// LanguageFeatures: the client answers toolhost/languageFeature with
	// its language servers' navigation results.
	LanguageFeatures bool `json:"languageFeatures"`
	// IDETools: the client answers Claude Code's IDE tools
	// (toolhost/ideTool), so the IDE listener may run (claudeide.go).
	IDETools bool `json:"ideTools"`
	// IDEProcessID is the process the editor's terminals descend from,
	// when that is not processId: the Claude Code CLI connects only to an
	// IDE whose lock file names one of its ancestors, and VS Code's
	// terminals are not children of the extension host that starts the
	// server but of the window's main process (its parent).
	IDEProcessID int `json:"ideProcessId"`
}

// canShowMessageRequest reports whether window/showMessageRequest may be used.
func (c clientCapabilities) canShowMessageRequest() bool {
	return len(c.Window.ShowMessage) > 0 && string(c.Window.ShowMessage) != "null"
}

// initializeResult is the result of initialize.
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type serverCapabilities struct {
	PositionEncoding string           `json:"positionEncoding"`
	TextDocumentSync textDocumentSync `json:"textDocumentSync"`
	Workspace        struct {
		WorkspaceFolders struct {
			Supported           bool `json:"supported"`
			ChangeNotifications bool `json:"changeNotifications"`
		} `json:"workspaceFolders"`
	} `json:"workspace"`
	Experimental struct {
		Toolhost struct {
			Version string   `json:"version"`
			Methods []string `json:"methods"`
		} `json:"toolhost"`
	} `json:"experimental"`
}

type textDocumentSync struct {
	OpenClose bool `json:"openClose"`
	// Change is 2: incremental.
	Change int  `json:"change"`
	Save   bool `json:"save"`
}

// initialize reads the client's parameters, builds the session and answers
// with the server's capabilities.
func (s *server) initialize(raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	var caps struct {
		Experimental json.RawMessage `json:"experimental"`
	}
	if len(raw) > 0 {
		var outer struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(raw, &outer)
		_ = json.Unmarshal(outer.Capabilities, &caps)
	}
	var exp struct {
		Toolhost json.RawMessage `json:"toolhost"`
	}
	if json.Unmarshal(caps.Experimental, &exp) == nil && len(exp.Toolhost) > 0 {
		if err := json.Unmarshal(exp.Toolhost, &p.Capabilities.Toolhost); err != nil {
			return nil, invalidParams("capabilities.experimental.toolhost: %v", fieldError(err))
		}
	}

	roots, skipped := initialRoots(p)
	for _, u := range skipped {
		s.opts.Log.Warn("ignored a workspace folder that is not a file: URI", "uri", u)
	}
	if p.Trace != "" {
		s.trace.Store(normaliseTrace(p.Trace))
	}
	if limit := maxMessageBytes(p.InitializationOptions); limit > 0 {
		s.stream.SetLimit(limit)
	}

	// The capabilities are in place before the session starts anything that
	// may ask the user (an MCP server of the project's .mcp.json).
	clientCaps := p.Capabilities
	s.caps.Store(&clientCaps)
	log := slog.New(fanoutHandler{s.opts.Log.Handler(), &clientLogHandler{srv: s}})
	sess, err := s.opts.NewSession(session.Options{
		Roots:            roots,
		InitOptions:      p.InitializationOptions,
		Log:              log,
		ApproveMCPServer: s.approveMCPServer,
	})
	if err != nil {
		return nil, rpcfault.Errorf(rpcfault.CodeInternalError, "initialize: %v", err)
	}
	enc := sess.Workspace.ChoosePositionEncoding(p.Capabilities.General.PositionEncodings)
	if s.opts.OnSession != nil {
		s.opts.OnSession(sess)
	}
	if p.ClientInfo != nil {
		s.clientName = p.ClientInfo.Name
	}
	s.sess.Store(sess)
	if s.opts.AgentEndpoint && sess.Settings.Current().Server.ServesAgentEndpoint() {
		editor := ""
		if p.ClientInfo != nil {
			editor = p.ClientInfo.Name
		}
		// Off the initialize reply's path: it costs a few milliseconds
		// (a listener, two MCP servers' tools, the session file).
		s.bg.Go("starting the agent endpoint", func(ctx context.Context) {
			defer close(s.endpointReady)
			if ctx.Err() != nil {
				return
			}
			ep, err := s.startEndpoint(sess, editor)
			if err != nil {
				s.opts.Log.Warn("other agents cannot reach this session: its MCP endpoint did not start", "err", err)
				return
			}
			s.endpoint.Store(ep)
			// The workspace folders may have changed while it started.
			if err := ep.setRoots(sess.Workspace.Roots()); err != nil {
				s.opts.Log.Warn("the session file keeps the old workspace folders", "err", err)
			}
		})
	} else {
		close(s.endpointReady)
	}
	s.startClaudeIDE(sess, p)
	// The endpoint's servers follow the registry on their own; an editor
	// told of new tools finds them there even before their listeners ran
	// (mcpserver syncs a tool request that finds the registry changed).
	sess.Registry.OnChange(func() {
		_ = s.notify("toolhost/toolsChanged", map[string]any{"tools": servedNames(sess, s.callHost(nil))})
	})

	var res initializeResult
	res.ServerInfo = serverInfo{Name: "toolhost", Version: s.opts.Version}
	c := &res.Capabilities
	c.PositionEncoding = enc
	c.TextDocumentSync = textDocumentSync{OpenClose: true, Change: 2, Save: true}
	c.Workspace.WorkspaceFolders.Supported = true
	c.Workspace.WorkspaceFolders.ChangeNotifications = true
	c.Experimental.Toolhost.Version = ProtocolVersion
	c.Experimental.Toolhost.Methods = Methods
	return res, nil
}

// initialRoots picks the workspace roots: workspaceFolders, else rootUri,
// else rootPath. It returns the URIs it could not use.
func initialRoots(p initializeParams) (roots, skipped []string) {
	if len(p.WorkspaceFolders) > 0 {
		for _, f := range p.WorkspaceFolders {
			path, err := workspace.URIToPath(f.URI)
			if err != nil {
				skipped = append(skipped, f.URI)
				continue
			}
			roots = append(roots, path)
		}
		return roots, skipped
	}
	if p.RootURI != nil && *p.RootURI != "" {
		path, err := workspace.URIToPath(*p.RootURI)
		if err == nil {
			return []string{path}, nil
		}
		skipped = append(skipped, *p.RootURI)
	}
	if p.RootPath != nil && *p.RootPath != "" {
		return []string{*p.RootPath}, skipped
	}
	return nil, skipped
}

// maxMessageBytes reads server.maxMessageBytes from initializationOptions.
func maxMessageBytes(initOptions json.RawMessage) int64 {
	var o struct {
		Server struct {
			MaxMessageBytes int64 `json:"maxMessageBytes"`
		} `json:"server"`
	}
	if len(initOptions) == 0 || json.Unmarshal(initOptions, &o) != nil {
		return 0
	}
	return o.Server.MaxMessageBytes
}

// Trace levels of $/setTrace.
const (
	traceOff      = "off"
	traceMessages = "messages"
	traceVerbose  = "verbose"
)

func normaliseTrace(v string) string {
	switch v {
	case "messages", "message":
		return traceMessages
	case "verbose":
		return traceVerbose
	}
	return traceOff
}

// decodeParams decodes a request's params into v. Missing params decode as
// {}; params that are not an object, or a field of the wrong type, are
// -32602 naming the field.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return invalidParams("params must be a JSON object")
	}
	// segmentio/encoding decodes in one pass, where
	// encoding/json validates the whole input first: params can carry a
	// file's content. Params it refuses are decoded again by encoding/json,
	// whose errors name the field. Raw values (a tool's input) are not
	// copied: they point into the message's body, which nothing reuses.
	if rest, err := segjson.Parse(raw, v, segjson.DontCopyRawMessage); err == nil && len(rest) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("%s", fieldError(err))
	}
	return nil
}

// fieldError phrases a decoding error with the field it is about.
func fieldError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonTypeName(te.Type.Kind().String()), te.Value)
	}
	return err.Error()
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int32", "int64", "uint32", "uint64", "float64":
		return "a number"
	}
	return "of another type"
}

// invalidParams is a -32602 error.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return rpcfault.Errorf(rpcfault.CodeInvalidParams, "invalid params: "+format, args...)
}

// approveMCPServer asks the user whether a server of the project's .mcp.json
// may start: a cloned repository must not run commands unasked.
func (s *server) approveMCPServer(ctx context.Context, name, command string) bool {
	// The session starts its MCP servers during initialize; the prompt waits
	// until the client has the initialize result and sent initialized.
	select {
	case <-s.ready:
	case <-ctx.Done():
		return false
	}
	res, err := s.callHost(nil).RequestPermission(ctx, tools.PermissionRequest{
		ToolName: "mcp__" + name,
		Title:    fmt.Sprintf("Start the MCP server %q from this project's .mcp.json? It runs a command on this machine.", name),
		Risk:     tools.RiskHigh,
		Preview:  tools.CommandPreview(command),
	})
	if err != nil {
		s.opts.Log.Warn("could not ask whether an MCP server may start; it stays stopped", "server", name, "err", err)
		return false
	}
	return res.Consented()
}
