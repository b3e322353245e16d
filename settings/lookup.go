package settings

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Lookup returns the value of a dotted key ("permissions.defaultMode",
// "bash.defaultTimeoutMs", "env.GOFLAGS") in s. Structs are walked by their
// JSON names and maps by their keys. An unknown key is an error that lists
// the keys possible at that point.
func (s *Settings) Lookup(key string) (any, error) {
	v := reflect.ValueOf(s).Elem()
	walked := ""
	for _, part := range strings.Split(key, ".") {
		if part == "" {
			return nil, fmt.Errorf("%q is not a dotted key such as permissions.defaultMode", key)
		}
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, nil
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			f, ok := jsonFields(v.Type())[part]
			if !ok {
				return nil, fmt.Errorf("no setting %q; the keys under %s are: %s", joinKey(walked, part), orTop(walked), strings.Join(sortedKeys(jsonFields(v.Type())), ", "))
			}
			v = v.FieldByIndex(f.Index)
		case reflect.Map:
			e := v.MapIndex(reflect.ValueOf(part))
			if !e.IsValid() {
				return nil, nil
			}
			v = e
		default:
			return nil, fmt.Errorf("no setting %q: %s is a single value", key, walked)
		}
		walked = joinKey(walked, part)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	return v.Interface(), nil
}

func orTop(walked string) string {
	if walked == "" {
		return "the top level"
	}
	return walked
}

// Keys returns every settings key as a dotted path, sorted. Maps (env,
// hooks, mcpServers, ...) are listed as one key each.
func Keys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for name, f := range jsonFields(t) {
			key := joinKey(prefix, name)
			ft := f.Type
			if ft.Kind() == reflect.Struct {
				walk(ft, key)
				continue
			}
			out = append(out, key)
		}
	}
	walk(reflect.TypeFor[Settings](), "")
	sort.Strings(out)
	return out
}

// keyType returns the Go type of a dotted key, following struct fields only.
func keyType(key string) (reflect.Type, error) {
	t := reflect.TypeFor[Settings]()
	for _, part := range strings.Split(key, ".") {
		if t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("no setting %q", key)
		}
		f, ok := jsonFields(t)[part]
		if !ok {
			return nil, fmt.Errorf("no setting %q", key)
		}
		t = f.Type
	}
	return t, nil
}
