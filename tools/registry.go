package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolhost/toolhost/internal/strdist"
)

// Categories of tools (design.md section 3).
const (
	CategoryCore     = "core"
	CategoryTasks    = "tasks"
	CategoryState    = "state"
	CategoryNetwork  = "network"
	CategoryAgent    = "agent"
	CategoryMCP      = "mcp"
	CategoryNotebook = "notebook"
	CategoryTeams    = "teams"
	CategoryExtras   = "extras"
)

// aliases maps other agents' names to toolhost's canonical names. Keys are
// lower-case; lookups are case-insensitive.
var aliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"task":       "Agent",
		"fileread":   "Read",
		"fileedit":   "Edit",
		"filewrite":  "Write",
		"read_file":  "Read",
		"write_file": "Write",
		"edit_file":  "Edit",
		"bash":       "Bash",
		"grep":       "Grep",
		"glob":       "Glob",
		"search":     "Grep",
		// Claude Code's earlier names of the task tools, which older models call.
		"bashoutput": "TaskOutput",
		"killshell":  "TaskStop",
	}
})

// Entry is a registered tool with its registry state.
type Entry struct {
	Tool     Tool
	Category string
	Enabled  bool
	// OptIn marks a tool that stays off until the opt-in policy turns it
	// on (tools a Claude-Code-trained model does not expect; see
	// RegisterOptIn).
	OptIn bool
}

// Registry holds the tools of a session in registration order. Safe for
// concurrent use; MCP tools come and go at run time.
type Registry struct {
	// generation counts the changes of the set; it moves before the
	// listeners hear of a change.
	generation atomic.Uint64

	mu sync.RWMutex
	// order is the canonical names in registration order.
	order []string
	// byKey maps lower-case names to entries.
	byKey map[string]*Entry
	// listeners are called, in the order they were added and outside the
	// lock, after the set changes; a removed one is nil.
	listeners []func()
	// policy, when set, says whether a tool starts enabled (the settings'
	// tools.enabled and tools.disabled); nil enables every tool.
	policy func(name string) bool
	// optIn says which opt-in tools are turned on (the settings'
	// tools.optIn and tools.teams); nil leaves them all off.
	optIn func(name, category string) bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: map[string]*Entry{}}
}

// OnChange adds f to the functions called after tools are added, removed,
// enabled or disabled (lspserver sends toolhost/toolsChanged from one, an
// MCP server syncs its tools from another); remove takes it off again, so
// a listener whose owner stops is not called by the changes that follow.
// Listeners run in the order they were added, outside the registry's lock,
// on the goroutine that changed the set: one that blocks holds up that
// change.
func (r *Registry) OnChange(f func()) (remove func()) {
	r.mu.Lock()
	i := len(r.listeners)
	r.listeners = append(r.listeners, f)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.listeners[i] = nil
		r.mu.Unlock()
	}
}

// Generation counts the changes of the set so far. A reader that keeps a
// copy of the set compares it with the count its copy was made at: a
// listener added earlier than its own may already act on a change (an
// editor told of a new tool asks for it at once) before the reader's
// listener has run.
func (r *Registry) Generation() uint64 { return r.generation.Load() }

func (r *Registry) changed() {
	r.generation.Add(1)
	r.mu.RLock()
	fs := slices.Clone(r.listeners)
	r.mu.RUnlock()
	for _, f := range fs {
		if f != nil {
			f()
		}
	}
}

// Register adds tools under a category, enabled. A name already registered is
// replaced in place (keeping its position).
func (r *Registry) Register(category string, ts ...Tool) {
	r.mu.Lock()
	r.addLocked(category, ts, false)
	r.mu.Unlock()
	r.changed()
}

// RegisterOptIn adds tools that are off unless the opt-in policy (see
// SetOptInPolicy) turns them on, so that a default session lists exactly
// the tools a Claude-Code-trained model knows. The policy of SetPolicy
// still applies on top.
func (r *Registry) RegisterOptIn(category string, ts ...Tool) {
	r.mu.Lock()
	r.addLocked(category, ts, true)
	r.mu.Unlock()
	r.changed()
}

// addLocked adds or replaces tools; r.mu is held. A replaced tool keeps its
// position and enabled state; a new one is enabled as the policies say.
func (r *Registry) addLocked(category string, ts []Tool, optIn bool) {
	for _, t := range ts {
		key := strings.ToLower(t.Name())
		if old, ok := r.byKey[key]; ok {
			old.Tool, old.Category = t, category
			continue
		}
		e := &Entry{Tool: t, Category: category, OptIn: optIn}
		e.Enabled = r.enabledLocked(e)
		r.byKey[key] = e
		r.order = append(r.order, t.Name())
	}
}

// enabledLocked is what the policies say about e; r.mu is held.
func (r *Registry) enabledLocked(e *Entry) bool {
	name := e.Tool.Name()
	if e.OptIn && (r.optIn == nil || !r.optIn(name, e.Category)) {
		return false
	}
	return r.policy == nil || r.policy(name)
}

// RemovePrefix removes every tool whose name starts with prefix
// (case-insensitive), e.g. "mcp__github__" when that server goes away. It
// returns the names removed.
func (r *Registry) RemovePrefix(prefix string) []string {
	p := strings.ToLower(prefix)
	var removed []string
	r.mu.Lock()
	kept := r.order[:0]
	for _, name := range r.order {
		if strings.HasPrefix(strings.ToLower(name), p) {
			delete(r.byKey, strings.ToLower(name))
			removed = append(removed, name)
			continue
		}
		kept = append(kept, name)
	}
	r.order = kept
	r.mu.Unlock()
	if len(removed) > 0 {
		r.changed()
	}
	return removed
}

// ReplacePrefix replaces, in one step, every tool whose name starts with
// prefix (case-insensitive) by ts, registered under category: an MCP server's
// re-listed tools. No lookup in between sees the server without tools, and
// OnChange is called once. Tools kept keep their position and enabled state.
func (r *Registry) ReplacePrefix(prefix, category string, ts ...Tool) {
	p := strings.ToLower(prefix)
	incoming := map[string]bool{}
	for _, t := range ts {
		incoming[strings.ToLower(t.Name())] = true
	}
	r.mu.Lock()
	kept := r.order[:0]
	for _, name := range r.order {
		key := strings.ToLower(name)
		if strings.HasPrefix(key, p) && !incoming[key] {
			delete(r.byKey, key)
			continue
		}
		kept = append(kept, name)
	}
	r.order = kept
	r.addLocked(category, ts, false)
	r.mu.Unlock()
	r.changed()
}

// Lookup finds a tool by name or alias, case-insensitively, enabled or not.
func (r *Registry) Lookup(name string) (Entry, bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.byKey[key]; ok {
		return *e, true
	}
	if canon, ok := aliases()[key]; ok {
		if e, ok := r.byKey[strings.ToLower(canon)]; ok {
			return *e, true
		}
	}
	return Entry{}, false
}

// Names returns the canonical names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.order...)
}

// Entries returns the registered tools in registration order; with
// includeDisabled false only enabled ones.
func (r *Registry) Entries(includeDisabled bool) []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Entry, 0, len(r.order))
	for _, name := range r.order {
		e := r.byKey[strings.ToLower(name)]
		if e.Enabled || includeDisabled {
			out = append(out, *e)
		}
	}
	return out
}

// SetEnabled enables or disables tools by name or alias. Unknown names are an
// error that lists them; nothing changes then.
func (r *Registry) SetEnabled(names []string, enabled bool) error {
	r.mu.Lock()
	var unknown []string
	var found []*Entry
	for _, n := range names {
		key := strings.ToLower(strings.TrimSpace(n))
		e, ok := r.byKey[key]
		if !ok {
			if canon, ok2 := aliases()[key]; ok2 {
				e, ok = r.byKey[strings.ToLower(canon)]
			}
		}
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		found = append(found, e)
	}
	if len(unknown) > 0 {
		r.mu.Unlock()
		return fmt.Errorf("unknown tools: %s (see toolhost/listTools for the names)", strings.Join(unknown, ", "))
	}
	for _, e := range found {
		e.Enabled = enabled
	}
	r.mu.Unlock()
	r.changed()
	return nil
}

// SetPolicy sets which tools are enabled: every registered tool is enabled
// or disabled as policy says, and so are tools registered later (MCP tools).
// Run-time SetEnabled calls last until the next SetPolicy. nil enables every
// tool.
func (r *Registry) SetPolicy(policy func(name string) bool) {
	r.mu.Lock()
	r.policy = policy
	r.reapplyLocked()
}

// SetOptInPolicy sets which opt-in tools (RegisterOptIn) are turned on, by
// name and category; nil turns them all off. Like SetPolicy it resets
// run-time SetEnabled calls.
func (r *Registry) SetOptInPolicy(optIn func(name, category string) bool) {
	r.mu.Lock()
	r.optIn = optIn
	r.reapplyLocked()
}

// reapplyLocked enables every tool as the policies say, unlocks r.mu and
// reports a change.
func (r *Registry) reapplyLocked() {
	changed := false
	for _, e := range r.byKey {
		if enabled := r.enabledLocked(e); e.Enabled != enabled {
			e.Enabled, changed = enabled, true
		}
	}
	r.mu.Unlock()
	if changed {
		r.changed()
	}
}

// EnabledNames returns the names of the enabled tools in registration order.
func (r *Registry) EnabledNames() []string {
	var names []string
	for _, e := range r.Entries(false) {
		names = append(names, e.Tool.Name())
	}
	return names
}

// Suggest returns up to n registered names close to name (for "did you mean").
func (r *Registry) Suggest(name string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	lname := strings.ToLower(name)
	var all []scored
	for _, cand := range r.Names() {
		lc := strings.ToLower(cand)
		d := strdist.Levenshtein(lname, lc)
		if strings.Contains(lc, lname) || strings.Contains(lname, lc) {
			d = 0
		}
		if d <= max(2, len(lname)/3) {
			all = append(all, scored{cand, d})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

// Definition formats of Definitions.
const (
	FormatAnthropic = "anthropic"
	FormatOpenAI    = "openai"
	FormatMCP       = "mcp"
)

// Definition renders a tool's definition in a model API's format:
// anthropic {name, description, input_schema}; openai {type: "function",
// function: {name, description, parameters}}; mcp {name, description,
// inputSchema, annotations}.
func Definition(t Tool, format string) (map[string]any, error) {
	schema := json.RawMessage(t.InputSchema())
	switch format {
	case "", FormatAnthropic:
		return map[string]any{"name": t.Name(), "description": t.Description(), "input_schema": schema}, nil
	case FormatOpenAI:
		return map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name(), "description": t.Description(), "parameters": schema}}, nil
	case FormatMCP:
		return map[string]any{"name": t.Name(), "description": t.Description(), "inputSchema": schema,
			"annotations": Annotations(t)}, nil
	}
	return nil, fmt.Errorf("unknown format %q: use anthropic, openai or mcp", format)
}

// ToolAnnotations are MCP's hints about a tool's behaviour.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// Annotations derives MCP annotations from a tool's side effect.
func Annotations(t Tool) ToolAnnotations {
	switch t.SideEffect() {
	case SideEffectNone, SideEffectBlocking:
		return ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	case SideEffectState:
		return ToolAnnotations{IdempotentHint: true}
	case SideEffectMutating:
		return ToolAnnotations{DestructiveHint: true}
	default:
		return ToolAnnotations{DestructiveHint: true, OpenWorldHint: true}
	}
}
