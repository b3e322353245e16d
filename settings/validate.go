package settings

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a settings source. The key (or, for a file
// that is not valid JSON, the whole file) is ignored; loading goes on.
type Problem struct {
	// File is the settings file's path, or "initializationOptions" /
	// "workspace/didChangeConfiguration" for settings sent by the client.
	File string `json:"file"`
	// Key is the dotted path of the offending key (e.g.
	// "permissions.allow[2]"); empty when the whole source is unusable.
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Key == "" {
		return p.File + ": " + p.Message
	}
	return p.File + ": " + p.Key + ": " + p.Message
}

// PermissionModes are the values permissions.defaultMode accepts (the same
// strings as the tools package's Mode constants).
var PermissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// SearchProviders are the values webSearch.provider accepts.
var SearchProviders = []string{"duckduckgo", "brave", "searxng"}

// checker validates decoded JSON against the Settings type, key by key. A
// key of the wrong type, an unknown key, or a value the key does not accept
// is reported and left out of the cleaned result, so one bad key costs only
// itself.
type checker struct {
	source   string
	problems []Problem
}

func (c *checker) report(key, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.source, Key: key, Message: fmt.Sprintf(format, args...)})
}

// check validates a whole settings object and returns the usable part.
func (c *checker) check(raw map[string]any) map[string]any {
	cleaned, ok := c.value(reflect.TypeFor[Settings](), raw, "")
	if !ok {
		return map[string]any{}
	}
	m := cleaned.(map[string]any)
	c.semantics(m)
	return m
}

// value checks v against t; it returns the cleaned value and whether any of
// it is usable. A JSON null is treated as absent, without a problem.
func (c *checker) value(t reflect.Type, v any, key string) (any, bool) {
	if v == nil {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.value(t.Elem(), v, key)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			c.wrongType(key, "an object", v)
			return nil, false
		}
		fields := jsonFields(t)
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			f, known := fields[k]
			if !known {
				c.report(joinKey(key, k), "unknown setting, ignored (known keys here: %s)", strings.Join(sortedKeys(fields), ", "))
				continue
			}
			if cv, ok := c.value(f.Type, m[k], joinKey(key, k)); ok {
				out[k] = cv
			}
		}
		return out, true
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			c.wrongType(key, "an object", v)
			return nil, false
		}
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			if cv, ok := c.value(t.Elem(), m[k], joinKey(key, k)); ok {
				out[k] = cv
			}
		}
		return out, true
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			c.wrongType(key, "an array", v)
			return nil, false
		}
		out := make([]any, 0, len(arr))
		for i, e := range arr {
			if cv, ok := c.value(t.Elem(), e, fmt.Sprintf("%s[%d]", key, i)); ok {
				out = append(out, cv)
			}
		}
		return out, true
	case reflect.String:
		if _, ok := v.(string); !ok {
			c.wrongType(key, "a string", v)
			return nil, false
		}
		return v, true
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			c.wrongType(key, "true or false", v)
			return nil, false
		}
		return v, true
	case reflect.Int, reflect.Int64, reflect.Int32:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			c.wrongType(key, "a whole number", v)
			return nil, false
		}
		return v, true
	case reflect.Float64, reflect.Float32:
		if _, ok := v.(float64); !ok {
			c.wrongType(key, "a number", v)
			return nil, false
		}
		return v, true
	}
	c.report(key, "cannot be set from a settings file")
	return nil, false
}

func (c *checker) wrongType(key, want string, got any) {
	c.report(key, "must be %s, not %s; ignored", want, describeJSON(got))
}

// semantics checks the values whose type is right but whose content may not
// be: the permission mode, rule syntax, blocked-command regexps, the search
// provider. Bad entries are removed from m.
func (c *checker) semantics(m map[string]any) {
	if perms, ok := m["permissions"].(map[string]any); ok {
		if mode, ok := perms["defaultMode"].(string); ok && !slices.Contains(PermissionModes, mode) {
			c.report("permissions.defaultMode", "unknown permission mode %q; use one of %s", mode, strings.Join(PermissionModes, ", "))
			delete(perms, "defaultMode")
		}
		for _, list := range []string{"allow", "ask", "deny"} {
			key := "permissions." + list
			filterStrings(perms, list, func(i int, s string) bool {
				if _, err := ParseRule(s); err != nil {
					c.report(fmt.Sprintf("%s[%d]", key, i), "%v; rule ignored", err)
					return false
				}
				return true
			})
		}
	}
	if edit, ok := m["edit"].(map[string]any); ok {
		if mode, ok := edit["diagnostics"].(string); ok && !slices.Contains(DiagnosticsModes, mode) {
			c.report("edit.diagnostics", "unknown value %q; use one of %s", mode, strings.Join(DiagnosticsModes, ", "))
			delete(edit, "diagnostics")
		}
	}
	if bash, ok := m["bash"].(map[string]any); ok {
		filterStrings(bash, "blockedCommands", func(i int, s string) bool {
			if _, err := regexp.Compile(s); err != nil {
				c.report(fmt.Sprintf("bash.blockedCommands[%d]", i), "not a valid regular expression (%v); ignored", err)
				return false
			}
			return true
		})
	}
	if ws, ok := m["webSearch"].(map[string]any); ok {
		if p, ok := ws["provider"].(string); ok && !slices.Contains(SearchProviders, p) {
			c.report("webSearch.provider", "unknown search provider %q; use one of %s", p, strings.Join(SearchProviders, ", "))
			delete(ws, "provider")
		}
	}
}

// filterStrings keeps the strings of m[key] for which keep returns true.
// Indexes given to keep are those of the cleaned array.
func filterStrings(m map[string]any, key string, keep func(i int, s string) bool) {
	arr, ok := m[key].([]any)
	if !ok {
		return
	}
	out := arr[:0]
	for i, e := range arr {
		if s, ok := e.(string); ok && keep(i, s) {
			out = append(out, e)
		}
	}
	m[key] = out
}

// jsonFields maps the JSON names of a struct's fields to the fields.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// describeJSON names the JSON type of a decoded value for messages.
func describeJSON(v any) string {
	switch x := v.(type) {
	case string:
		return "the string " + strconv.Quote(x)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
