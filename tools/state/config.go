package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed config.md
var configDescription string

// ConfigStore is what Config needs of the settings; *settings.Store
// implements it.
type ConfigStore interface {
	Current() *settings.Settings
	SetLocal(root, key string, value any) error
}

// settingKind is the JSON type a writable setting takes.
type settingKind int

const (
	kindBool settingKind = iota
	kindInt
	kindString
	kindStringList
)

// writableSettings are the keys Config may change, with their kinds. The
// rest (permission rules, hooks, environment, MCP servers, secrets) change
// only by editing the settings files: a model must not be able to widen
// its own permissions or run commands through a settings write.
var writableSettings = sync.OnceValue(func() map[string]settingKind {
	return map[string]settingKind{
		"permissions.defaultMode": kindString,
		"bash.compressOutput":     kindBool,
		"bash.defaultTimeoutMs":   kindInt,
		"edit.fuzzy":              kindBool,
		"webSearch.provider":      kindString,
		"tools.enabled":           kindStringList,
		"tools.disabled":          kindStringList,
	}
})

// WritableSettings lists the keys Config can change, sorted.
func WritableSettings() []string {
	keys := make([]string, 0, len(writableSettings()))
	for k := range writableSettings() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var configSchema = tools.SchemaVariantOf[configParams]("Config", func(s *jsonschema.Schema) {
	s.Properties["value"].Items = &jsonschema.Schema{Type: "string"} // a list setting's entries
})

type configParams struct {
	Setting string          `json:"setting" jsonschema:"The dotted settings key, e.g. \"permissions.defaultMode\" or \"bash.defaultTimeoutMs\"." schema:"minLength=1"`
	Value   json.RawMessage `json:"value,omitempty" jsonschema:"The new value. Leave it out to read the current value." schema:"type=string|boolean|number|array"`
}

// ConfigOutput is Config's structured result.
type ConfigOutput struct {
	Success       bool   `json:"success"`
	Operation     string `json:"operation"` // "get" or "set"
	Setting       string `json:"setting"`
	Value         any    `json:"value,omitempty"`
	PreviousValue any    `json:"previousValue,omitempty"`
	NewValue      any    `json:"newValue,omitempty"`
}

// Config reads any setting by its dotted key and changes a few of them in
// the first root's .toolhost/settings.local.json.
type Config struct {
	store ConfigStore
	// root returns the workspace root whose local settings file is written.
	root func() string
	// modes, when set, switches the running session's mode when
	// permissions.defaultMode is written, so the change is felt at once.
	modes tools.ModeController
}

// NewConfig returns the Config tool. modes may be nil.
func NewConfig(store ConfigStore, root func() string, modes tools.ModeController) *Config {
	return &Config{store: store, root: root, modes: modes}
}

func (*Config) Name() string                 { return "Config" }
func (*Config) Description() string          { return configDescription }
func (*Config) InputSchema() json.RawMessage { return configSchema.JSON() }

// SideEffect is state: a write changes toolhost's own settings, never the
// project's files. Writes still prompt, through Risk.
func (*Config) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*Config) Docs() tools.Docs {
	return tools.Docs{
		Short: "Read any toolhost setting by its dotted key; change a few of them for this project.",
		Long: "Without value, returns the current merged value of the key (values of keys that look secret are hidden). " +
			"With value, writes it to .toolhost/settings.local.json of the first workspace root and reloads the settings; " +
			"writable keys: " + strings.Join(WritableSettings(), ", ") + ". Writing permissions.defaultMode also switches " +
			"the session's permission mode. A write asks the user's permission first.",
		Examples: []tools.Example{
			{Title: "Read the permission mode", Input: json.RawMessage(`{"setting":"permissions.defaultMode"}`)},
			{Title: "Turn on fuzzy edits", Input: json.RawMessage(`{"setting":"edit.fuzzy","value":true}`)},
			{Title: "Disable a tool", Input: json.RawMessage(`{"setting":"tools.disabled","value":["WebSearch"]}`)},
		},
	}
}

// Risk implements tools.RiskAssessor: reading is low risk; writing is
// medium, high for the permission mode and critical for bypassPermissions.
func (c *Config) Risk(input json.RawMessage) tools.Risk {
	var p configParams
	if json.Unmarshal(input, &p) != nil || len(p.Value) == 0 {
		return tools.RiskLow
	}
	if p.Setting == "permissions.defaultMode" {
		var mode string
		if json.Unmarshal(p.Value, &mode) == nil && mode == tools.ModeBypassPermissions {
			return tools.RiskCritical
		}
		return tools.RiskHigh
	}
	return tools.RiskMedium
}

// Preview implements tools.Previewer: the old and new value as a diff.
func (c *Config) Preview(_ context.Context, input json.RawMessage) *tools.Preview {
	var p configParams
	if json.Unmarshal(input, &p) != nil || len(p.Value) == 0 {
		return nil
	}
	old, err := c.store.Current().Lookup(p.Setting)
	if err != nil {
		return nil
	}
	return &tools.Preview{Kind: "diff", Text: fmt.Sprintf("--- %s\n+++ %s\n-%s: %s\n+%s: %s\n",
		settings.LocalPath("."), settings.LocalPath("."), p.Setting, jsonText(redact(p.Setting, old)), p.Setting, string(p.Value))}
}

// Execute reads or writes the setting.
func (c *Config) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var p configParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid Config input (%v); send {\"setting\": \"edit.fuzzy\"} to read or add \"value\" to change it.", err), nil
	}
	key := strings.TrimSpace(p.Setting)
	current, err := c.store.Current().Lookup(key)
	if err != nil {
		return tools.ErrorResult("%v. Use a dotted key such as permissions.defaultMode or bash.defaultTimeoutMs.", err), nil
	}
	current = redact(key, current)
	if len(p.Value) == 0 || string(p.Value) == "null" {
		text := fmt.Sprintf("%s = %s", key, jsonText(current))
		if key == "permissions.defaultMode" && c.modes != nil {
			// The saved default and the session's mode differ after
			// EnterPlanMode, ExitPlanMode or toolhost/setPermissionMode;
			// say both, so neither is taken for the other.
			text += fmt.Sprintf(" (the saved default, which new sessions start in). This session's permission mode is %s.", c.modes.Mode())
		}
		res := tools.TextResult(text)
		res.Structured = ConfigOutput{Success: true, Operation: "get", Setting: key, Value: current}
		return res, nil
	}

	kind, ok := writableSettings()[key]
	if !ok {
		return tools.ErrorResult("%s cannot be changed with Config; the writable settings are %s. Ask the user to edit .toolhost/settings.json for other keys.",
			key, strings.Join(WritableSettings(), ", ")), nil
	}
	value, err := coerce(kind, p.Value)
	if err != nil {
		return tools.ErrorResult("%s: %v.", key, err), nil
	}
	root := c.root()
	if err := c.store.SetLocal(root, key, value); err != nil {
		return tools.ErrorResult("%s was not changed: %v. Fix the value and try again.", key, err), nil
	}
	if key == "permissions.defaultMode" && c.modes != nil {
		// SetLocal has validated the mode, so this cannot fail on it.
		if err := c.modes.SetMode(value.(string)); err != nil {
			return tools.ErrorResult("%s was saved but the session's mode did not change: %v.", key, err), nil
		}
	}
	now, _ := c.store.Current().Lookup(key)
	text := fmt.Sprintf("Set %s to %s in %s (it was %s).", key, jsonText(now), settings.LocalPath(root), jsonText(current))
	if !jsonEqual(now, value) {
		text += fmt.Sprintf(" A later settings layer (initializationOptions or the client's configuration) overrides it, so the value in effect is %s.", jsonText(now))
	}
	if key == "permissions.defaultMode" && c.modes != nil {
		text += " The session's permission mode is now " + c.modes.Mode() + "."
	}
	res := tools.TextResult(text)
	res.Structured = ConfigOutput{Success: true, Operation: "set", Setting: key, PreviousValue: current, NewValue: now}
	return res, nil
}

// coerce turns the input value into the setting's type, accepting the
// string spellings models often send ("true", "5000", "a, b").
func coerce(kind settingKind, raw json.RawMessage) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("the value is not JSON (%v)", err)
	}
	s, isString := v.(string)
	s = strings.TrimSpace(s)
	switch kind {
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		if b, err := strconv.ParseBool(s); isString && err == nil {
			return b, nil
		}
		return nil, fmt.Errorf("the value must be true or false, not %s", string(raw))
	case kindInt:
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			return int64(f), nil
		}
		if n, err := strconv.ParseInt(s, 10, 64); isString && err == nil {
			return n, nil
		}
		return nil, fmt.Errorf("the value must be a whole number, not %s", string(raw))
	case kindString:
		if isString {
			return s, nil
		}
		return nil, fmt.Errorf("the value must be a string, not %s", string(raw))
	case kindStringList:
		if isString {
			var out []string
			for _, part := range strings.Split(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
			return out, nil
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("the value must be an array of strings (or one comma-separated string), not %s", string(raw))
		}
		return list, nil
	}
	return nil, fmt.Errorf("unsupported setting")
}

// secretKey matches keys whose values must not be shown to the model.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|secret|password|passwd|api_?key|authorization|credential)`)
})

// redact hides secret-looking values in what Config returns: the value of
// a secret key, and secret entries of maps and objects below it.
func redact(key string, v any) any {
	if v == nil {
		return nil
	}
	last := key[strings.LastIndex(key, ".")+1:]
	if secretKey().MatchString(last) {
		return "(hidden)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	if json.Unmarshal(b, &generic) != nil {
		return v
	}
	return redactTree(generic)
}

func redactTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if secretKey().MatchString(k) {
				x[k] = "(hidden)"
				continue
			}
			x[k] = redactTree(e)
		}
	case []any:
		for i, e := range x {
			x[i] = redactTree(e)
		}
	}
	return v
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func jsonEqual(a, b any) bool {
	return jsonText(a) == jsonText(b)
}

// Access implements tools.AccessDescriber: a write names the local settings
// file, so the permission checker treats it as the protected file it is
// (asked even in acceptEdits, refused in plan and dontAsk).
func (c *Config) Access(input json.RawMessage) tools.Access {
	var p configParams
	if json.Unmarshal(input, &p) != nil || len(p.Value) == 0 {
		return tools.Access{}
	}
	return tools.Access{WritePaths: []string{settings.LocalPath(c.root())}}
}
