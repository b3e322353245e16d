package settings

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// A workspace folder is often a repository someone else wrote, and an
// editor starts toolhost the moment the folder opens. Until the user trusts
// the folder, its project layers (.toolhost/settings.json,
// .toolhost/settings.local.json and, in tools/mcp, .mcp.json) may only make
// toolhost stricter: every key is classified below, and a key that is not
// classified is ignored (fail-closed).

// restriction decides what an untrusted project layer may set for one key.
// base is the value the trusted layers (defaults, the user file,
// initializationOptions, didChangeConfiguration) give the key, v the
// project's value (both as decoded JSON). It returns the value to merge and
// whether any of it applies; nil restriction means the key never applies.
type restriction func(base, v any) (any, bool)

// keyTrust is one row of the table: what an untrusted layer may do with
// the key, and why the rest is ignored (for the docs and the logs).
type keyTrust struct {
	// restrict is nil for keys that are ignored whole.
	restrict restriction
	// applies says in words what an untrusted folder may set.
	applies string
	// why names what the key can do that an untrusted folder must not.
	why string
}

// Reasons a key is ignored in an untrusted project layer.
// WhyRunsCommand is the Why of an ignored item that would run a command
// the moment the folder is trusted (hooks, MCP servers, env): the trust
// question lists those first.
const WhyRunsCommand = "runs a command"

const (
	whyRuns    = WhyRunsCommand
	whyNetwork = "reaches a network endpoint"
	whySecret  = "reads a secret"
	whyGrants  = "grants a permission"
	whyLoosens = "loosens a limit or the permission mode"
	whyWidens  = "widens the workspace"
	whyTurnsOn = "turns on tools that are off by default"
	whyPaths   = "changes which file a path opens"
	whyExposes = "lets other processes reach the session"
)

// trustTable classifies every settings key (as Keys lists them). The test
// fails when a key is missing, so a new key is classified when it is added.
// Built at its first use (filtering an untrusted project layer, the docs'
// table), not at program start.
var trustTable = sync.OnceValue(func() map[string]keyTrust {
	return map[string]keyTrust{
		"permissions.allow":                       {nil, "no", whyGrants},
		"permissions.ask":                         {always, "yes", ""},
		"permissions.deny":                        {always, "yes", ""},
		"permissions.defaultMode":                 {stricterMode, "only a stricter mode", whyLoosens},
		"permissions.additionalDirectories":       {nil, "no", whyWidens},
		"permissions.allowWritesOutsideWorkspace": {onlyValue(false), "only false", whyWidens},
		"permissions.saveAlwaysAllow":             {onlyValue(false), "only false", whyGrants},
		"hooks":                                   {nil, "no", whyRuns},
		"env":                                     {nil, "no", whyRuns},
		"tools.enabled":                           {narrowerEnabled, "only to turn tools off", whyLoosens},
		"tools.disabled":                          {union, "yes, added to the user's list", ""},
		"bash.defaultTimeoutMs":                   {lower, "only a lower value", whyLoosens},
		"bash.maxTimeoutMs":                       {lower, "only a lower value", whyLoosens},
		"bash.maxOutputChars":                     {lower, "only a lower value", whyLoosens},
		"bash.blockedCommands":                    {always, "yes", ""},
		"bash.maskSecrets":                        {onlyValue(true), "only true", whySecret},
		"bash.allowedSecrets":                     {nil, "no", whySecret},
		"bash.compressOutput":                     {always, "yes", ""},
		"edit.fuzzy":                              {always, "yes", ""},
		"edit.reviewInEditor":                     {onlyValue(false), "only false", whyLoosens},
		"edit.diagnostics":                        {always, "yes", ""},
		"edit.diagnosticsWaitMs":                  {lower, "only a lower value", whyLoosens},
		"webFetch.connectTimeoutMs":               {lower, "only a lower value", whyLoosens},
		"webFetch.totalTimeoutMs":                 {lower, "only a lower value", whyLoosens},
		"webFetch.maxBytes":                       {lower, "only a lower value", whyLoosens},
		"webSearch.provider":                      {nil, "no", whyNetwork},
		"webSearch.baseUrl":                       {nil, "no", whyNetwork},
		"webSearch.apiKey":                        {nil, "no", whySecret},
		"agent.endpoint":                          {nil, "no", whyNetwork},
		"agent.model":                             {nil, "no", whyNetwork},
		"agent.apiKeyEnv":                         {nil, "no", whySecret},
		"ssh.hosts":                               {nil, "no", whyRuns},
		"mcpServers":                              {nil, "no", whyRuns},
		"enableAllProjectMcpServers":              {nil, "no", whyRuns},
		"enabledMcpjsonServers":                   {nil, "no", whyRuns},
		"server.maxMessageBytes":                  {lower, "only a lower value", whyLoosens},
		"server.agentEndpoint":                    {onlyValue(false), "only false", whyExposes},
		"server.claudeCodeIde":                    {onlyValue(false), "only false", whyExposes},
		"providers":                               {nil, "no", whyNetwork},
		"tools.optIn":                             {nil, "no", whyTurnsOn},
		"tools.teams":                             {nil, "no", whyTurnsOn},
		"tools.deferred":                          {always, "yes", ""},
		"bash.backgroundStdin":                    {always, "yes", ""},
		"grep.priority":                           {always, "yes", ""},
		"grep.priorityTable":                      {always, "yes", ""},
		"grep.splitAlternatives":                  {always, "yes", ""},
		"paths.atRoot":                            {always, "yes", ""},
		"paths.fuzzy":                             {nil, "no", whyPaths},
		"bash.sandbox":                            {onlyValue(true), "only true", whyLoosens},
		"bash.sandboxNetwork":                     {onlyValue(false), "only false", whyNetwork},
	}
})

// always applies the value: the key only restricts (deny and ask rules,
// blocked commands, disabled tools) or changes nothing a folder could abuse.
func always(_, v any) (any, bool) { return v, true }

// onlyValue applies the key only when it holds want, the restrictive value.
func onlyValue(want any) restriction {
	return func(_, v any) (any, bool) { return v, v == want }
}

// lower applies a limit only when it is below the trusted one. Zero and
// negative values mean "the built-in default" to every reader of these
// limits, which can be higher than the trusted value, so they never apply.
func lower(base, v any) (any, bool) {
	b, okB := base.(float64)
	n, okN := v.(float64)
	if !okN || n <= 0 {
		return nil, false
	}
	return v, !okB || b <= 0 || n < b
}

// union keeps what the trusted layers listed and adds the project's
// entries: tools.disabled is replaced by a later layer, so an untrusted
// layer's list must not drop the user's.
func union(base, v any) (any, bool) {
	out, _ := appendUnique(base, v, true).([]any)
	return out, len(out) > 0
}

// narrowerEnabled applies tools.enabled only when it turns tools off: with
// no trusted list every tool is on, so any non-empty list narrows; with a
// trusted list, only a subset of it narrows.
func narrowerEnabled(base, v any) (any, bool) {
	list, _ := v.([]any)
	trusted, _ := base.([]any)
	if len(list) == 0 {
		return nil, false
	}
	if len(trusted) == 0 {
		return v, true
	}
	for _, e := range list {
		if !slices.Contains(trusted, e) {
			return nil, false
		}
	}
	return v, true
}

// modeStrictness orders the permission modes from loosest to strictest;
// plan and dontAsk both ask nobody and are equally strict. ok is false for
// a name that is not a mode.
func modeStrictness(mode string) (rank int, ok bool) {
	switch mode {
	case "bypassPermissions":
		return 0, true
	case "acceptEdits":
		return 1, true
	case "default":
		return 2, true
	case "plan", "dontAsk":
		return 3, true
	}
	return 0, false
}

// stricterMode applies permissions.defaultMode only when it is stricter
// than the trusted layers' mode.
func stricterMode(base, v any) (any, bool) {
	b, _ := base.(string)
	m, _ := v.(string)
	if b == "" {
		b = "default"
	}
	rb, okB := modeStrictness(b)
	rm, okM := modeStrictness(m)
	return v, okB && okM && rm > rb
}

// Ignored is one thing an untrusted project layer asked for and did not
// get: a hook's command line, an MCP server's command, a rule, a path.
type Ignored struct {
	// File is the project file that holds it.
	File string `json:"file"`
	// Key is the dotted settings key.
	Key string `json:"key"`
	// What is exactly what the folder would enable, as the user should see
	// it before trusting the folder.
	What string `json:"what"`
	// Why says what the key can do that an untrusted folder must not.
	Why string `json:"why"`
}

func (i Ignored) String() string { return i.File + ": " + i.What }

// RootTrust is whether a workspace root's project layers apply in full.
type RootTrust struct {
	Root    string `json:"root"`
	Trusted bool   `json:"trusted"`
	// Reason is "trusted folder" (the user trusted it), "bypassPermissions"
	// (the user's own layers chose it, which trusts every folder) or
	// "untrusted".
	Reason string `json:"reason"`
}

// Trust is what a reload decided about the project layers: each root's
// trust and what the untrusted ones asked for that was ignored.
type Trust struct {
	Roots   []RootTrust `json:"roots"`
	Ignored []Ignored   `json:"ignored"`
}

// Trusted reports whether root (as the store was given it) is trusted; a
// root the store does not know is not.
func (t Trust) Trusted(root string) bool {
	for _, r := range t.Roots {
		if r.Root == root {
			return r.Trusted
		}
	}
	return false
}

// IgnoredIn returns the ignored items of root's project files.
func (t Trust) IgnoredIn(root string) []Ignored {
	var out []Ignored
	for _, i := range t.Ignored {
		if strings.HasPrefix(i.File, root+"/") {
			out = append(out, i)
		}
	}
	return out
}

// trustPrefixes are the dotted prefixes of the table's keys ("permissions",
// "bash"): objects the filter walks into.
var trustPrefixes = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for k := range trustTable() {
		for i := range len(k) {
			if k[i] == '.' {
				out[k[:i]] = true
			}
		}
	}
	return out
})

// untrustedView returns the part of a validated project layer that may
// apply while its folder is untrusted, and what was ignored. base is the
// merge of the trusted layers.
func untrustedView(file string, layer, base map[string]any) (map[string]any, []Ignored) {
	var ignored []Ignored
	var walk func(src map[string]any, path string) map[string]any
	walk = func(src map[string]any, path string) map[string]any {
		out := map[string]any{}
		for _, k := range sortedKeys(src) {
			v := src[k]
			key := joinKey(path, k)
			row, known := trustTable()[key]
			switch {
			case known && row.restrict != nil:
				if kept, ok := row.restrict(getPath(base, strings.Split(key, ".")), v); ok {
					out[k] = kept
					continue
				}
			case !known && trustPrefixes()[key]:
				if sub, ok := v.(map[string]any); ok {
					if kept := walk(sub, key); len(kept) > 0 {
						out[k] = kept
					}
					continue
				}
			}
			why := row.why
			if !known {
				why = "is not known to be safe"
			}
			for _, what := range describeItems(key, v) {
				ignored = append(ignored, Ignored{File: file, Key: key, What: printable(what), Why: why})
			}
		}
		return out
	}
	return walk(layer, ""), ignored
}

// describeItems spells out what a key's value would enable, one entry per
// command, server, rule or path.
func describeItems(key string, v any) []string {
	var out []string
	switch key {
	case "hooks":
		events, _ := v.(map[string]any)
		for _, ev := range sortedKeys(events) {
			matchers, _ := events[ev].([]any)
			for _, m := range matchers {
				mm, _ := m.(map[string]any)
				matcher, _ := mm["matcher"].(string)
				if matcher == "" {
					matcher = "*"
				}
				hooks, _ := mm["hooks"].([]any)
				for _, h := range hooks {
					hm, _ := h.(map[string]any)
					cmd, _ := hm["command"].(string)
					out = append(out, fmt.Sprintf("%s hook for tools %q runs: %s", ev, matcher, cmd))
				}
			}
		}
	case "mcpServers":
		servers, _ := v.(map[string]any)
		for _, name := range sortedKeys(servers) {
			out = append(out, DescribeMCPServer(name, servers[name]))
		}
	case "env":
		vars, _ := v.(map[string]any)
		for _, name := range sortedKeys(vars) {
			out = append(out, fmt.Sprintf("env: sets %s=%v for every command", name, vars[name]))
		}
	case "ssh.hosts":
		hosts, _ := v.(map[string]any)
		for _, name := range sortedKeys(hosts) {
			out = append(out, fmt.Sprintf("ssh.hosts: lets SSHBash reach %s (%s)", name, compactJSON(hosts[name])))
		}
	case "permissions.allow":
		for _, r := range stringsOf(v) {
			out = append(out, "permissions.allow: runs "+r+" without asking")
		}
	case "permissions.additionalDirectories":
		for _, d := range stringsOf(v) {
			out = append(out, "permissions.additionalDirectories: lets tools write in "+d)
		}
	case "enabledMcpjsonServers":
		for _, s := range stringsOf(v) {
			out = append(out, "enabledMcpjsonServers: starts the .mcp.json server "+strconvQuote(s)+" without asking")
		}
	}
	if len(out) == 0 {
		out = append(out, key+": "+compactJSON(v))
	}
	return out
}

// DescribeMCPServer spells out what an MCP server entry (decoded JSON in
// Claude Code's shape) starts or reaches.
func DescribeMCPServer(name string, v any) string {
	m, _ := v.(map[string]any)
	if url, ok := m["url"].(string); ok && url != "" {
		return fmt.Sprintf("MCP server %q connects to %s", name, url)
	}
	cmd, _ := m["command"].(string)
	var line []string
	for _, a := range append([]string{cmd}, stringsOf(m["args"])...) {
		line = append(line, shownArg(a))
	}
	s := fmt.Sprintf("MCP server %q runs: %s", name, printable(strings.Join(line, " ")))
	if env, ok := m["env"].(map[string]any); ok && len(env) > 0 {
		s += " (env: " + strings.Join(sortedKeys(env), ", ") + ")"
	}
	return s
}

// printable escapes what a terminal or a dialog would not show as written
// (escape sequences, line breaks, bidirectional overrides), so a folder's
// strings cannot hide or restyle the rest of what it asks to run.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strconv.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// shownArg is one argument of a command line as the user should read it:
// quoted when it is empty or holds spaces, quotes or unprintable runes.
func shownArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"'\\") && printable(a) == a {
		return a
	}
	return strconv.Quote(a)
}

func stringsOf(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// TrustTableRow is one row of the trust table as documented.
type TrustTableRow struct {
	Key string
	// Applies says what an untrusted folder may set ("yes", "only false",
	// "only a lower value", ...).
	Applies string
	Why     string
}

// TrustTable returns the classification of every key, sorted by key, for
// the docs and `toolhost trust --table`.
func TrustTable() []TrustTableRow {
	table := trustTable()
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]TrustTableRow, 0, len(keys))
	for _, k := range keys {
		row := table[k]
		out = append(out, TrustTableRow{Key: k, Applies: row.applies, Why: row.why})
	}
	return out
}

// TrustDocRow is the row of docs/settings.md's trust table for r; a test
// checks the page holds every row.
func TrustDocRow(r TrustTableRow) string {
	why := r.Why
	if why == "" {
		why = "—"
	}
	return fmt.Sprintf("| `%s` | %s | %s |", r.Key, r.Applies, why)
}
