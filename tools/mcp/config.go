package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolhost/toolhost/internal/pathutil"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/settings"
)

// Source says where a server's configuration came from; it decides whether
// the server may start without the user's consent.
type Source string

const (
	// SourceSettings: the mcpServers key of the settings. Trusted.
	SourceSettings Source = "settings"
	// SourceProject: the project's .mcp.json. A cloned repository must not
	// run commands unasked, so these start only once allowed.
	SourceProject Source = "project"
)

// ProjectConfigFile is the project file in Claude Code's shape.
const ProjectConfigFile = ".mcp.json"

// ServerConfig is one configured server, with ${VAR} references expanded.
type ServerConfig struct {
	Name   string
	Source Source
	settings.MCPServer
	// Dir is the working folder of a stdio server: the workspace root once
	// the folder is trusted, a neutral folder before (pathutil.NeutralDir).
	// It is part of the configuration, so trusting the folder restarts the
	// user's servers in the workspace.
	Dir string `json:"dir,omitempty"`
}

// transportKind is "stdio", "http" (streamable HTTP; "streamable-http" is
// accepted too) or "sse" (the older HTTP+SSE transport).
func (c ServerConfig) transportKind() string {
	switch strings.ToLower(c.Type) {
	case "http", "streamable-http", "streamablehttp":
		return "http"
	case "sse":
		return "sse"
	case "", "stdio":
		if c.Command == "" && c.URL != "" {
			return "http"
		}
		return "stdio"
	}
	return c.Type
}

// validate reports a configuration that cannot start, in words a user can act on.
func (c ServerConfig) validate() error {
	switch c.transportKind() {
	case "stdio":
		if c.Command == "" {
			return fmt.Errorf("server %q has no command: set \"command\" (stdio) or \"type\": \"http\" with a \"url\"", c.Name)
		}
	case "http", "sse":
		if c.URL == "" {
			return fmt.Errorf("server %q is of type %s but has no \"url\"", c.Name, c.transportKind())
		}
	default:
		return fmt.Errorf("server %q has unknown type %q: use \"stdio\", \"http\" or \"sse\"", c.Name, c.Type)
	}
	return nil
}

// equal reports whether two configurations start the same server.
func (c ServerConfig) equal(o ServerConfig) bool {
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(o)
	return string(a) == string(b)
}

// projectFile is the shape of .mcp.json.
type projectFile struct {
	MCPServers map[string]settings.MCPServer `json:"mcpServers"`
}

// LoadProjectConfig reads <root>/.mcp.json. A missing file is no servers and
// no error; a malformed one is an error naming the file.
func LoadProjectConfig(root string) (map[string]settings.MCPServer, error) {
	servers, _, err := ReadProjectConfig(root)
	return servers, err
}

// ReadProjectConfig is LoadProjectConfig with the file's problems, read as
// settings files are read (settings.DecodeFile): a server name or a key
// written twice, of which only the last counts, and bytes that are not
// UTF-8.
func ReadProjectConfig(root string) (map[string]settings.MCPServer, []settings.Problem, error) {
	if root == "" {
		return nil, nil, nil
	}
	path := filepath.Join(root, ProjectConfigFile)
	// Through the workspace's jail: a .mcp.json that is (or lies behind) a
	// link to elsewhere is refused.
	data, err := pathutil.ReadFileIn(root, ProjectConfigFile, settings.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var f projectFile
	problems, err := settings.DecodeFile(path, data, &f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not valid: %w (expected {\"mcpServers\": {name: {command, args, env} | {type: \"http\", url, headers}}})", path, err)
	}
	return f.MCPServers, problems, nil
}

// collectConfigs merges the servers of the settings and of the project file.
// A name in both is the settings' server: the user's own configuration wins
// over what a repository ships. The result is sorted by name.
func collectConfigs(s *settings.Settings, project map[string]settings.MCPServer, getenv func(string) (string, bool)) []ServerConfig {
	byName := map[string]ServerConfig{}
	for name, srv := range project {
		byName[name] = ServerConfig{Name: name, Source: SourceProject, MCPServer: expandServer(srv, getenv)}
	}
	if s != nil {
		for name, srv := range s.MCPServers {
			byName[name] = ServerConfig{Name: name, Source: SourceSettings, MCPServer: expandServer(srv, getenv)}
		}
	}
	out := make([]ServerConfig, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func expandServer(s settings.MCPServer, getenv func(string) (string, bool)) settings.MCPServer {
	s.Command = ExpandEnv(s.Command, getenv)
	s.URL = ExpandEnv(s.URL, getenv)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = ExpandEnv(a, getenv)
		}
		s.Args = args
	}
	s.Env = expandMap(s.Env, getenv)
	s.Headers = expandMap(s.Headers, getenv)
	return s
}

func expandMap(m map[string]string, getenv func(string) (string, bool)) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = ExpandEnv(v, getenv)
	}
	return out
}

// envRef matches ${VAR} and ${VAR:-default}.
var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`) })

// ExpandEnv replaces ${VAR} with the variable's value and ${VAR:-default}
// with the value, or default when the variable is unset or empty, as Claude
// Code does in .mcp.json. getenv is os.LookupEnv when nil. A bare $VAR is
// left alone: it is often meant literally in arguments.
func ExpandEnv(s string, getenv func(string) (string, bool)) string {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if !strings.Contains(s, "${") {
		return s
	}
	return envRef().ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef().FindStringSubmatch(ref)
		val, ok := getenv(m[1])
		hasDefault := strings.Contains(ref, ":-")
		if hasDefault && (!ok || val == "") {
			return m[2]
		}
		return val
	})
}
