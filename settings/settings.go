// Package settings reads toolhost's settings in layers (built-in defaults,
// the user file, the project files, initializationOptions,
// workspace/didChangeConfiguration) into one Settings value. Keys follow
// Claude Code's settings where they overlap; a bad file is reported and
// ignored, never fatal.
package settings

// Settings is the merged view of every layer. Field names match the JSON keys
// of the settings files.
type Settings struct {
	Permissions Permissions `json:"permissions,omitempty" jsonschema:"Permission rules and mode. Deny beats ask beats allow."`
	// Hooks maps an event (PreToolUse, PostToolUse, PostToolUseFailure) to
	// its matchers, in Claude Code's shape.
	Hooks map[string][]HookMatcher `json:"hooks,omitempty" jsonschema:"Commands run around tool calls, in Claude Code's shape."`
	// Env is added to the environment of commands and hooks.
	Env   map[string]string `json:"env,omitempty" jsonschema:"Variables added to the environment of commands and hooks."`
	Tools ToolsSettings     `json:"tools,omitempty" jsonschema:"Which tools are offered."`
	Bash  Bash              `json:"bash,omitempty" jsonschema:"The Bash tool."`
	Edit  Edit              `json:"edit,omitempty" jsonschema:"The Edit tool."`
	// Paths changes how tool paths are read (both off by default, as in
	// Claude Code).
	Paths Paths `json:"paths,omitempty" jsonschema:"Conveniences of path resolution (off by default, as in Claude Code)."`
	// Grep changes the order and fallbacks of Grep (off by default).
	Grep Grep `json:"grep,omitempty" jsonschema:"Conveniences of Grep (off by default)."`
	Web  Web  `json:"webFetch,omitempty" jsonschema:"The WebFetch tool."`
	// WebSearch chooses and configures the search provider.
	WebSearch WebSearch `json:"webSearch,omitempty" jsonschema:"The WebSearch provider."`
	Agent     Agent     `json:"agent,omitempty" jsonschema:"The built-in model loop of the Agent tool (used when the editor does not run agents itself)."`
	// Providers are other models a model may consult, each an
	// OpenAI-compatible chat-completions endpoint, as tools ask_<name>.
	// Only the user's layers may set them (the user file and the client's
	// settings), never a project file: a repository cannot make toolhost
	// send the code, or a key, to an endpoint of its choosing.
	Providers map[string]Agent `json:"providers,omitempty" jsonschema:"Other models a model may consult, as tools ask_<name>. Read from the user's own settings only, never from a project file."`
	SSH       SSH              `json:"ssh,omitempty" jsonschema:"Hosts the SSHBash tool may reach."`
	// MCPServers are MCP servers to connect to, by name.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty" jsonschema:"MCP servers to connect to, by name."`
	// EnableAllProjectMCPServers starts the servers of <root>/.mcp.json
	// without asking.
	EnableAllProjectMCPServers bool `json:"enableAllProjectMcpServers,omitempty" jsonschema:"Start the servers of the project's .mcp.json without asking." schema:"default=false"`
	// EnabledMCPJSONServers are .mcp.json servers the user allowed.
	EnabledMCPJSONServers []string `json:"enabledMcpjsonServers,omitempty" jsonschema:"Servers of the project's .mcp.json the user allowed."`
	Server                Server   `json:"server,omitempty" jsonschema:"The JSON-RPC connection."`

	// Trust is whether each root's project layers applied in full, and what
	// the untrusted ones asked for and did not get. It is no settings key.
	Trust Trust `json:"-"`
}

// Permissions are the permission rules and mode.
type Permissions struct {
	Allow []string `json:"allow,omitempty" jsonschema:"Calls that run without asking."`
	Ask   []string `json:"ask,omitempty" jsonschema:"Calls that always ask, even when an allow rule matches."`
	Deny  []string `json:"deny,omitempty" jsonschema:"Calls that are refused."`
	// DefaultMode is default, acceptEdits, plan, bypassPermissions or dontAsk.
	DefaultMode string `json:"defaultMode,omitempty" jsonschema:"Permission mode at start." schema:"enum=default|acceptEdits|plan|bypassPermissions|dontAsk,default=\"default\""`
	// AdditionalDirectories count as inside the workspace.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty" jsonschema:"Directories treated as inside the workspace."`
	// AllowWritesOutsideWorkspace lets Write/Edit reach paths outside every
	// root (after a prompt). Off by default: such writes are refused.
	AllowWritesOutsideWorkspace bool `json:"allowWritesOutsideWorkspace,omitempty" jsonschema:"Let Write and Edit reach paths outside every root, after a prompt. Off: such writes are refused." schema:"default=false"`
	// SaveAlwaysAllow saves the rule of an "Always allow" answer to
	// <root>/.toolhost/settings.local.json so it outlives the session. Nil
	// means on.
	SaveAlwaysAllow *bool `json:"saveAlwaysAllow,omitempty" jsonschema:"Save the rule of an \"Always allow\" answer to .toolhost/settings.local.json so it outlives the session. Off: it lasts for the session only." schema:"default=true"`
}

// SavesAlwaysAllow reports whether "Always allow" answers are saved.
func (p Permissions) SavesAlwaysAllow() bool {
	return p.SaveAlwaysAllow == nil || *p.SaveAlwaysAllow
}

// HookMatcher selects tools by name (a regular expression or "*"/"" for all)
// and lists the hooks to run for them.
type HookMatcher struct {
	Matcher string        `json:"matcher,omitempty" jsonschema:"Tool names to match: a regular expression, or \"*\" / \"\" for every tool."`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one hook: a shell command with a timeout in seconds.
type HookCommand struct {
	Type    string  `json:"type,omitempty" jsonschema:"Only shell-command hooks exist." schema:"enum=command"` // "command"
	Command string  `json:"command" jsonschema:"Shell command; it gets the event as JSON on stdin. Exit code 2 blocks the call with stderr as the reason."`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds before the hook is killed." schema:"minimum=0"`
}

// ToolsSettings enables and disables tools by name.
type ToolsSettings struct {
	Enabled  []string `json:"enabled,omitempty" jsonschema:"Tools to turn on (e.g. tools that are off by default)."`
	Disabled []string `json:"disabled,omitempty" jsonschema:"Tools to turn off."`
	// OptIn turns on tools that are off by default because Claude Code has
	// no such tool (QueryJSON, HTTPRequest, GetEnv, ListProcesses); "*" at
	// the end of an entry matches a prefix.
	OptIn []string `json:"optIn,omitempty" jsonschema:"Tools that are off by default because Claude Code has none (QueryJSON, HTTPRequest, GetEnv, ListProcesses); a trailing * matches a prefix."`
	// Teams turns on the team tools (TeamCreate, TeamDelete and SendMessage's
	// team messages).
	Teams bool `json:"teams,omitempty" jsonschema:"Turn on the team tools (TeamCreate, TeamDelete, SendMessage's team messages)." schema:"default=false"`
	// Deferred names the tools a listing that asks for it gives by name
	// only, their definitions loaded with ToolSearch; a trailing "*"
	// matches a prefix. Nil means tools.DefaultDeferred (Claude Code's
	// defaults for its tools, and toolhost's own); empty defers nothing.
	Deferred []string `json:"deferred,omitempty" jsonschema:"Tools a deferred listing gives by name only, their definitions fetched with ToolSearch; a trailing * matches a prefix. Unset: MCP tools, the built-ins Claude Code defers, and toolhost's own tools."`
}

// Bash configures the Bash tool.
type Bash struct {
	DefaultTimeoutMs int `json:"defaultTimeoutMs,omitempty" jsonschema:"Timeout of a command that sets none." schema:"minimum=1,default=120000"`
	MaxTimeoutMs     int `json:"maxTimeoutMs,omitempty" jsonschema:"Largest timeout a call may ask for." schema:"minimum=1,default=600000"`
	MaxOutputChars   int `json:"maxOutputChars,omitempty" jsonschema:"Output longer than this keeps its head and tail." schema:"minimum=1,default=30000"`
	// BlockedCommands are regular expressions; a command matching one is refused.
	BlockedCommands []string `json:"blockedCommands,omitempty" jsonschema:"Regular expressions; a command matching one is refused."`
	// MaskSecrets removes secret-looking variables (names with a word such
	// as TOKEN, KEY, SECRET, PASS, PASSWD, PWD, PAT, CREDENTIALS, DSN, AUTH;
	// values holding a URL with a password) from commands' environment
	// (docs/settings.md). Nil means on.
	MaskSecrets *bool `json:"maskSecrets,omitempty" jsonschema:"Remove secret-looking variables (names with TOKEN, KEY, SECRET, PASS, PASSWD, PAT, CREDENTIALS, DSN, AUTH; URLs with a password) from commands' environment." schema:"default=true"`
	// AllowedSecrets are variable names kept even when they look secret:
	// the allow-list for false positives.
	AllowedSecrets []string `json:"allowedSecrets,omitempty" jsonschema:"Variable names kept even when they look secret."`
	// Sandbox runs Bash commands under bubblewrap: the workspace folders
	// and a private /tmp writable, the rest of the file system read-only,
	// no network unless SandboxNetwork (docs/settings.md).
	Sandbox bool `json:"sandbox,omitempty" jsonschema:"Run commands under bubblewrap: workspace folders and a private /tmp writable, the rest read-only, no network unless sandboxNetwork." schema:"default=false"`
	// SandboxNetwork lets sandboxed commands use the network.
	SandboxNetwork bool `json:"sandboxNetwork,omitempty" jsonschema:"Let sandboxed commands use the network." schema:"default=false"`
	// CompressOutput shortens the output of common commands (git status,
	// git log, git diff, ls -la, go test, grep/rg grouped by file) and
	// numbers the lines cat and head print.
	CompressOutput bool `json:"compressOutput,omitempty" jsonschema:"Shorten the output of common commands (git status, git log, git diff, ls -la, go test, grep/rg) and number the lines cat and head print." schema:"default=false"`
	// BackgroundStdin adds stdin to Bash's input: text fed to a background
	// command. Off, Bash's schema is Claude Code's.
	BackgroundStdin bool `json:"backgroundStdin,omitempty" jsonschema:"Add stdin to Bash's input: text fed to a background command." schema:"default=false"`
}

// Paths are conveniences of path resolution.
type Paths struct {
	// AtRoot makes a leading "@" in a path mean the first workspace root
	// ("@src/a.go", "@/src/a.go").
	AtRoot bool `json:"atRoot,omitempty" jsonschema:"A leading @ in a path means the first workspace root." schema:"default=false"`
	// Fuzzy lets Read open the single closest existing file when the path
	// given does not exist, with a note saying so.
	Fuzzy bool `json:"fuzzy,omitempty" jsonschema:"Read opens the single closest existing file when the path given does not exist, with a note." schema:"default=false"`
}

// Grep are conveniences of the Grep tool.
type Grep struct {
	// Priority orders results by file kind: source, then configuration,
	// then documentation and data, then the rest (then as usual within a
	// kind).
	Priority bool `json:"priority,omitempty" jsonschema:"Order results by file kind: source, configuration, docs and data, the rest." schema:"default=false"`
	// PriorityTable overrides the built-in kind of file extensions
	// (".proto": 0): 0 source, 1 configuration, 2 docs and data, 3 last.
	PriorityTable map[string]int `json:"priorityTable,omitempty" jsonschema:"Kind of file extensions, e.g. {\".proto\": 0}: 0 source, 1 configuration, 2 docs and data, 3 last."`
	// SplitAlternatives retries a pattern with alternatives ("a\\|b",
	// "a|b") that finds nothing as the alternation of its parts.
	SplitAlternatives bool `json:"splitAlternatives,omitempty" jsonschema:"A pattern with alternatives that finds nothing is retried as each alternative." schema:"default=false"`
}

// Edit configures Edit.
type Edit struct {
	// Fuzzy lets old_string match across CRLF, trailing-whitespace and
	// indentation differences.
	Fuzzy bool `json:"fuzzy,omitempty" jsonschema:"Let old_string match across CRLF, trailing-whitespace and indentation differences." schema:"default=false"`
	// ReviewInEditor lets, in the default permission mode, an edit that would
	// need a permission dialog go to the editor as a workspace/applyEdit marked
	// needsConfirmation instead: the editor's own review (VS Code's refactor
	// preview, the Neovim plugin's review tab) is the prompt, and rejecting it
	// writes nothing. Only for clients that can apply edits.
	ReviewInEditor bool `json:"reviewInEditor,omitempty" jsonschema:"In the default permission mode, send an edit that needs approval to the editor's own review (refactor preview) instead of a permission dialog." schema:"default=false"`
	// Diagnostics chooses what the editor's language servers add to the
	// result of an edit applied through the editor: "on" (errors and
	// warnings), "errors" (errors only) or "off".
	Diagnostics string `json:"diagnostics,omitempty" jsonschema:"What the editor's language servers add to the result of an edit applied through the editor: errors and warnings (on), errors only, or nothing (off)." schema:"enum=on|errors|off,default=\"on\""`
	// DiagnosticsWaitMs bounds how long an edit waits for the editor's
	// diagnostics to follow it.
	DiagnosticsWaitMs int `json:"diagnosticsWaitMs,omitempty" jsonschema:"How long, at most, an edit waits for the editor's diagnostics to follow it." schema:"minimum=0,default=2000"`
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
	ConnectTimeoutMs int   `json:"connectTimeoutMs,omitempty" jsonschema:"Time allowed to connect." schema:"minimum=1,default=10000"`
	TotalTimeoutMs   int   `json:"totalTimeoutMs,omitempty" jsonschema:"Time allowed for the whole fetch." schema:"minimum=1,default=60000"`
	MaxBytes         int64 `json:"maxBytes,omitempty" jsonschema:"Largest response body read." schema:"minimum=1,default=10485760"`
}

// WebSearch chooses the search provider.
type WebSearch struct {
	// Provider is duckduckgo (default), brave or searxng.
	Provider string `json:"provider,omitempty" jsonschema:"Search provider." schema:"enum=duckduckgo|brave|searxng,default=\"duckduckgo\""`
	// BaseURL overrides the provider's endpoint (a SearXNG instance, tests).
	BaseURL string `json:"baseUrl,omitempty" jsonschema:"Endpoint of the provider, e.g. a SearXNG instance."`
	// APIKey is Brave's subscription token.
	APIKey string `json:"apiKey,omitempty" jsonschema:"Brave's subscription token."`
}

// Agent configures the built-in model loop and WebFetch's summariser.
type Agent struct {
	// Endpoint is an OpenAI-compatible chat-completions URL.
	Endpoint  string `json:"endpoint,omitempty" jsonschema:"An OpenAI-compatible chat-completions URL."`
	Model     string `json:"model,omitempty" jsonschema:"Model name sent to the endpoint."`
	APIKeyEnv string `json:"apiKeyEnv,omitempty" jsonschema:"Name of the environment variable holding the API key."`
}

// SSH names hosts SSHBash may reach.
type SSH struct {
	Hosts map[string]SSHHost `json:"hosts,omitempty" jsonschema:"Hosts by the name a call uses."`
}

// SSHHost is one ssh destination.
type SSHHost struct {
	Host string   `json:"host" jsonschema:"Host name or address."`
	User string   `json:"user,omitempty" jsonschema:"Login user."`
	Port int      `json:"port,omitempty" jsonschema:"SSH port." schema:"minimum=1,maximum=65535"`
	Args []string `json:"args,omitempty" jsonschema:"Extra arguments for ssh."`
}

// MCPServer is one MCP server in Claude Code's shape.
type MCPServer struct {
	Type    string            `json:"type,omitempty" jsonschema:"stdio: a command speaking MCP on its stdin/stdout; http: a streamable HTTP endpoint." schema:"enum=stdio|http,default=\"stdio\""` // "stdio" (default), "http"
	Command string            `json:"command,omitempty" jsonschema:"Command to start (stdio servers)."`
	Args    []string          `json:"args,omitempty" jsonschema:"Arguments of the command."`
	Env     map[string]string `json:"env,omitempty" jsonschema:"Environment added for the command."`
	URL     string            `json:"url,omitempty" jsonschema:"Endpoint URL (http servers)."`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"HTTP headers sent with each request (http servers)."`
}

// Server configures the JSON-RPC connection.
type Server struct {
	// MaxMessageBytes caps a message's Content-Length (default 64 MiB).
	MaxMessageBytes int64 `json:"maxMessageBytes,omitempty" jsonschema:"Largest Content-Length accepted." schema:"minimum=1024,default=67108864"`
	// AgentEndpoint serves the editor session to other agents over MCP on
	// a loopback port (docs/agents.md). Nil means on.
	AgentEndpoint *bool `json:"agentEndpoint,omitempty" jsonschema:"Serve the editor session to other agents (Copilot agent mode, Claude Code, toolhost mcp --attach) over MCP on a loopback port with a token; see docs/agents.md." schema:"default=true"`
	// ClaudeCodeIDE serves Claude Code's IDE protocol, so the claude CLI
	// in the editor's terminal reviews its edits in the editor
	// (docs/agents.md). Nil means on.
	ClaudeCodeIDE *bool `json:"claudeCodeIde,omitempty" jsonschema:"Serve Claude Code's IDE protocol (a loopback WebSocket announced in ~/.claude/ide), so the claude CLI in the editor's terminal reviews its edits in the editor and sees its diagnostics and selection; see docs/agents.md." schema:"default=true"`
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
