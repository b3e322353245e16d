// Package settings reads toolhost's settings in layers (built-in defaults,
// the user file, the project files, initializationOptions,
// workspace/didChangeConfiguration) into one Settings value. Keys follow
// Claude Code's settings where they overlap; a bad file is reported and
// ignored, never fatal.
package settings

// Settings is the merged view of every layer. Field names match the JSON keys
// of the settings files.
type Settings struct {
	Permissions Permissions `json:"permissions"`
	// Hooks maps an event (PreToolUse, PostToolUse, PostToolUseFailure) to
	// its matchers, in Claude Code's shape.
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
	// Env is added to the environment of commands and hooks.
	Env   map[string]string `json:"env,omitempty"`
	Tools ToolsSettings     `json:"tools"`
	Bash  Bash              `json:"bash"`
	Edit  Edit              `json:"edit"`
	// Paths changes how tool paths are read (both off by default, as in
	// Claude Code).
	Paths Paths `json:"paths"`
	// Grep changes the order and fallbacks of Grep (off by default).
	Grep Grep `json:"grep"`
	Web  Web  `json:"webFetch"`
	// WebSearch chooses and configures the search provider.
	WebSearch WebSearch `json:"webSearch"`
	Agent     Agent     `json:"agent"`
	// Providers are other models a model may consult, each an
	// OpenAI-compatible chat-completions endpoint, as tools ask_<name>.
	// Only the user's layers may set them (the user file and the client's
	// settings), never a project file: a repository cannot make toolhost
	// send the code, or a key, to an endpoint of its choosing.
	Providers map[string]Agent `json:"providers,omitempty"`
	SSH       SSH              `json:"ssh"`
	// MCPServers are MCP servers to connect to, by name.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty"`
	// EnableAllProjectMCPServers starts the servers of <root>/.mcp.json
	// without asking.
	EnableAllProjectMCPServers bool `json:"enableAllProjectMcpServers,omitempty"`
	// EnabledMCPJSONServers are .mcp.json servers the user allowed.
	EnabledMCPJSONServers []string `json:"enabledMcpjsonServers,omitempty"`
	Server                Server   `json:"server"`

	// Trust is whether each root's project layers applied in full, and what
	// the untrusted ones asked for and did not get. It is no settings key.
	Trust Trust `json:"-"`
}

// Permissions are the permission rules and mode.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// DefaultMode is default, acceptEdits, plan, bypassPermissions or dontAsk.
	DefaultMode string `json:"defaultMode,omitempty"`
	// AdditionalDirectories count as inside the workspace.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// AllowWritesOutsideWorkspace lets Write/Edit reach paths outside every
	// root (after a prompt). Off by default: such writes are refused.
	AllowWritesOutsideWorkspace bool `json:"allowWritesOutsideWorkspace,omitempty"`
	// SaveAlwaysAllow saves the rule of an "Always allow" answer to
	// <root>/.toolhost/settings.local.json so it outlives the session. Nil
	// means on.
	SaveAlwaysAllow *bool `json:"saveAlwaysAllow,omitempty"`
}

// SavesAlwaysAllow reports whether "Always allow" answers are saved.
func (p Permissions) SavesAlwaysAllow() bool {
	return p.SaveAlwaysAllow == nil || *p.SaveAlwaysAllow
}

// HookMatcher selects tools by name (a regular expression or "*"/"" for all)
// and lists the hooks to run for them.
type HookMatcher struct {
	Matcher string        `json:"matcher"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one hook: a shell command with a timeout in seconds.
type HookCommand struct {
	Type    string  `json:"type"` // "command"
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"`
}

// ToolsSettings enables and disables tools by name.
type ToolsSettings struct {
	Enabled  []string `json:"enabled,omitempty"`
	Disabled []string `json:"disabled,omitempty"`
	// OptIn turns on tools that are off by default because Claude Code has
	// no such tool (QueryJSON, HTTPRequest, GetEnv, ListProcesses); "*" at
	// the end of an entry matches a prefix.
	OptIn []string `json:"optIn,omitempty"`
	// Teams turns on the team tools (TeamCreate, TeamDelete and SendMessage's
	// team messages).
	Teams bool `json:"teams,omitempty"`
	// Deferred names the tools a listing that asks for it gives by name
	// only, their definitions loaded with ToolSearch; a trailing "*"
	// matches a prefix. Nil means tools.DefaultDeferred (MCP tools and
	// rarely used built-ins, as in Claude Code); empty defers nothing.
	Deferred []string `json:"deferred,omitempty"`
}

// Bash configures the Bash tool.
type Bash struct {
	DefaultTimeoutMs int `json:"defaultTimeoutMs,omitempty"`
	MaxTimeoutMs     int `json:"maxTimeoutMs,omitempty"`
	MaxOutputChars   int `json:"maxOutputChars,omitempty"`
	// BlockedCommands are regular expressions; a command matching one is refused.
	BlockedCommands []string `json:"blockedCommands,omitempty"`
	// MaskSecrets removes secret-looking variables (names with a word such
	// as TOKEN, KEY, SECRET, PASS, PASSWD, PWD, PAT, CREDENTIALS, DSN, AUTH;
	// values holding a URL with a password) from commands' environment
	// (docs/settings.md). Nil means on.
	MaskSecrets *bool `json:"maskSecrets,omitempty"`
	// AllowedSecrets are variable names kept even when they look secret:
	// the allow-list for false positives.
	AllowedSecrets []string `json:"allowedSecrets,omitempty"`
	// Sandbox runs Bash commands under bubblewrap: the workspace folders
	// and a private /tmp writable, the rest of the file system read-only,
	// no network unless SandboxNetwork (docs/settings.md).
	Sandbox bool `json:"sandbox,omitempty"`
	// SandboxNetwork lets sandboxed commands use the network.
	SandboxNetwork bool `json:"sandboxNetwork,omitempty"`
	// CompressOutput shortens the output of common commands (git status,
	// git log, git diff, ls -la, go test, grep/rg grouped by file) and
	// numbers the lines cat and head print.
	CompressOutput bool `json:"compressOutput,omitempty"`
	// BackgroundStdin adds stdin to Bash's input: text fed to a background
	// command. Off, Bash's schema is Claude Code's.
	BackgroundStdin bool `json:"backgroundStdin,omitempty"`
}

// Paths are conveniences of path resolution.
type Paths struct {
	// AtRoot makes a leading "@" in a path mean the first workspace root
	// ("@src/a.go", "@/src/a.go").
	AtRoot bool `json:"atRoot,omitempty"`
	// Fuzzy lets Read open the single closest existing file when the path
	// given does not exist, with a note saying so.
	Fuzzy bool `json:"fuzzy,omitempty"`
}

// Grep are conveniences of the Grep tool.
type Grep struct {
	// Priority orders results by file kind: source, then configuration,
	// then documentation and data, then the rest (then as usual within a
	// kind).
	Priority bool `json:"priority,omitempty"`
	// PriorityTable overrides the built-in kind of file extensions
	// (".proto": 0): 0 source, 1 configuration, 2 docs and data, 3 last.
	PriorityTable map[string]int `json:"priorityTable,omitempty"`
	// SplitAlternatives retries a pattern with alternatives ("a\\|b",
	// "a|b") that finds nothing as the alternation of its parts.
	SplitAlternatives bool `json:"splitAlternatives,omitempty"`
}

// Edit configures Edit.
type Edit struct {
	// Fuzzy lets old_string match across CRLF, trailing-whitespace and
	// indentation differences.
	Fuzzy bool `json:"fuzzy,omitempty"`
	// ReviewInEditor lets, in the default permission mode, an edit that would
	// need a permission dialog go to the editor as a workspace/applyEdit marked
	// needsConfirmation instead: the editor's own review (VS Code's refactor
	// preview, the Neovim plugin's review tab) is the prompt, and rejecting it
	// writes nothing. Only for clients that can apply edits.
	ReviewInEditor bool `json:"reviewInEditor,omitempty"`
	// Diagnostics chooses what the editor's language servers add to the
	// result of an edit applied through the editor: "on" (errors and
	// warnings), "errors" (errors only) or "off".
	Diagnostics string `json:"diagnostics,omitempty"`
	// DiagnosticsWaitMs bounds how long an edit waits for the editor's
	// diagnostics to follow it.
	DiagnosticsWaitMs int `json:"diagnosticsWaitMs,omitempty"`
}

// Values of edit.diagnostics.
const (
	DiagnosticsOn     = "on"
	DiagnosticsErrors = "errors"
	DiagnosticsOff    = "off"
)

// DiagnosticsModes are the values edit.diagnostics accepts.
var DiagnosticsModes = []string{DiagnosticsOn, DiagnosticsErrors, DiagnosticsOff}

// Web configures WebFetch.
type Web struct {
	ConnectTimeoutMs int   `json:"connectTimeoutMs,omitempty"`
	TotalTimeoutMs   int   `json:"totalTimeoutMs,omitempty"`
	MaxBytes         int64 `json:"maxBytes,omitempty"`
}

// WebSearch chooses the search provider.
type WebSearch struct {
	// Provider is duckduckgo (default), brave or searxng.
	Provider string `json:"provider,omitempty"`
	// BaseURL overrides the provider's endpoint (a SearXNG instance, tests).
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKey is Brave's subscription token.
	APIKey string `json:"apiKey,omitempty"`
}

// Agent configures the built-in model loop and WebFetch's summariser.
type Agent struct {
	// Endpoint is an OpenAI-compatible chat-completions URL.
	Endpoint  string `json:"endpoint,omitempty"`
	Model     string `json:"model,omitempty"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// SSH names hosts SSHBash may reach.
type SSH struct {
	Hosts map[string]SSHHost `json:"hosts,omitempty"`
}

// SSHHost is one ssh destination.
type SSHHost struct {
	Host string   `json:"host"`
	User string   `json:"user,omitempty"`
	Port int      `json:"port,omitempty"`
	Args []string `json:"args,omitempty"`
}

// MCPServer is one MCP server in Claude Code's shape.
type MCPServer struct {
	Type    string            `json:"type,omitempty"` // "stdio" (default), "http"
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Server configures the JSON-RPC connection.
type Server struct {
	// MaxMessageBytes caps a message's Content-Length (default 64 MiB).
	MaxMessageBytes int64 `json:"maxMessageBytes,omitempty"`
	// AgentEndpoint serves the editor session to other agents over MCP on
	// a loopback port (docs/agents.md). Nil means on.
	AgentEndpoint *bool `json:"agentEndpoint,omitempty"`
	// ClaudeCodeIDE serves Claude Code's IDE protocol, so the claude CLI
	// in the editor's terminal reviews its edits in the editor
	// (docs/agents.md). Nil means on.
	ClaudeCodeIDE *bool `json:"claudeCodeIde,omitempty"`
}

// ServesAgentEndpoint reports whether the editor session's MCP endpoint
// runs.
func (s Server) ServesAgentEndpoint() bool { return s.AgentEndpoint == nil || *s.AgentEndpoint }

// ServesClaudeCodeIDE reports whether Claude Code's IDE listener may run.
func (s Server) ServesClaudeCodeIDE() bool { return s.ClaudeCodeIDE == nil || *s.ClaudeCodeIDE }

// Defaults returns the built-in defaults.
func Defaults() *Settings {
	return &Settings{
		Permissions: Permissions{DefaultMode: "default"},
		Bash: Bash{
			DefaultTimeoutMs: 120_000,
			MaxTimeoutMs:     600_000,
			MaxOutputChars:   30_000,
		},
		Web: Web{
			ConnectTimeoutMs: 10_000,
			TotalTimeoutMs:   60_000,
			MaxBytes:         10 << 20,
		},
		WebSearch: WebSearch{Provider: "duckduckgo"},
		Server:    Server{MaxMessageBytes: 64 << 20},
		Edit:      Edit{Diagnostics: DiagnosticsOn, DiagnosticsWaitMs: 2000},
	}
}
