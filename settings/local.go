package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/workspace"
)

// ErrNotTrusted is returned for a change that only a trusted folder takes.
var ErrNotTrusted = errors.New("the folder is not trusted")

// localFileMu serialises read-modify-write of local settings files across
// stores, so two "Always allow" answers at once both land.
var localFileMu sync.Mutex

// SaveLocalRule appends rule to permissions.allow in
// <root>/.toolhost/settings.local.json (creating it), keeping every other
// key, and reloads. A rule already present is not added twice. The file is
// replaced atomically.
//
// In a folder the user has not trusted the rule is not saved (ErrNotTrusted):
// the file is the folder's, and its allow rules apply only once the folder
// is trusted, so a saved rule would look like one the folder asks for.
func (s *Store) SaveLocalRule(root, rule string) error {
	r, err := ParseRule(rule)
	if err != nil {
		return err
	}
	if !s.Current().Trust.Trusted(root) {
		return fmt.Errorf("%w: %s; the rule lasts for this session (trust the folder with `toolhost trust %s` to keep such rules)", ErrNotTrusted, root, root)
	}
	canonical := r.String()
	err = editLocal(root, func(doc map[string]any) error {
		perms, ok := doc["permissions"].(map[string]any)
		if !ok {
			if doc["permissions"] != nil {
				return fmt.Errorf("%s: permissions is %s, not an object; fix it first", LocalPath(root), describeJSON(doc["permissions"]))
			}
			perms = map[string]any{}
			doc["permissions"] = perms
		}
		allow, ok := perms["allow"].([]any)
		if !ok && perms["allow"] != nil {
			return fmt.Errorf("%s: permissions.allow is %s, not an array; fix it first", LocalPath(root), describeJSON(perms["allow"]))
		}
		if !slices.Contains(allow, any(canonical)) {
			perms["allow"] = append(allow, canonical)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.Reload()
	return nil
}

// SetLocal sets the dotted key to value in <root>/.toolhost/settings.local.json
// (nil removes the key), keeping every other key, and reloads. The value is
// checked as a settings file would be: a value the key does not accept is an
// error and nothing is written.
func (s *Store) SetLocal(root, key string, value any) error {
	if _, err := keyType(key); err != nil {
		return err
	}
	parts := strings.Split(key, ".")
	if value != nil {
		// Normalise Go values (ints, []string) to what JSON decoding gives.
		b, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("%s: cannot encode the value: %w", key, err)
		}
		if err := json.Unmarshal(b, &value); err != nil {
			return fmt.Errorf("%s: cannot encode the value: %w", key, err)
		}
		probe := map[string]any{}
		setPath(probe, parts, value)
		c := &checker{source: LocalPath(root)}
		c.check(probe)
		if len(c.problems) > 0 {
			msgs := make([]string, len(c.problems))
			for i, p := range c.problems {
				msgs[i] = p.Key + ": " + p.Message
			}
			return errors.New(strings.Join(msgs, "; "))
		}
	}
	err := editLocal(root, func(doc map[string]any) error {
		if value == nil {
			deletePath(doc, parts)
			return nil
		}
		return setPathStrict(doc, parts, value, LocalPath(root))
	})
	if err != nil {
		return err
	}
	s.Reload()
	return nil
}

// editLocal reads root's local settings file as a generic document, lets
// edit change it, and writes it back atomically. A file that is not a JSON
// object is left alone and reported: overwriting it would lose the user's
// text.
func editLocal(root string, edit func(doc map[string]any) error) error {
	localFileMu.Lock()
	defer localFileMu.Unlock()
	path := LocalPath(root)
	if err := projectDirInside(root); err != nil {
		return err
	}
	doc := map[string]any{}
	raw, err := pathutil.ReadFile(path, MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(raw)) > 0:
		if err := json.Unmarshal(TrimBOM(raw), &doc); err != nil || doc == nil {
			return fmt.Errorf("%s is not a JSON object; fix or remove it before settings can be saved there", path)
		}
	}
	if err := edit(doc); err != nil {
		return err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return workspace.WriteFileAtomic(path, append(out, '\n'))
}

// projectDirInside refuses a <root>/.toolhost that resolves outside the
// root (a link planted by the repository): nothing is written through it.
func projectDirInside(root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("cannot resolve the workspace folder %s: %w", root, err)
	}
	dir := filepath.Join(root, ProjectDir)
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(dir); lerr != nil {
			// Not there at all: it is created inside the root.
			return nil
		}
		return fmt.Errorf("%s is a link to a folder that does not exist; nothing is written through it. Remove the link, or make %s a folder", dir, dir)
	}
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %w", dir, err)
	}
	if !pathutil.Within(realRoot, real) {
		return fmt.Errorf("%s resolves to %s, outside the workspace %s; nothing is written through it. Remove the link, or make %s a folder", dir, real, realRoot, dir)
	}
	return nil
}

// setPath sets m[parts...] = v, creating objects on the way (overwriting
// non-objects).
func setPath(m map[string]any, parts []string, v any) {
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// setPathStrict is setPath that refuses to overwrite a non-object on the way.
func setPathStrict(m map[string]any, parts []string, v any, file string) error {
	for i, p := range parts[:len(parts)-1] {
		switch next := m[p].(type) {
		case map[string]any:
			m = next
		case nil:
			fresh := map[string]any{}
			m[p] = fresh
			m = fresh
		default:
			return fmt.Errorf("%s: %s is %s, not an object; fix it first", file, strings.Join(parts[:i+1], "."), describeJSON(next))
		}
	}
	m[parts[len(parts)-1]] = v
	return nil
}

// deletePath removes m[parts...] when present.
func deletePath(m map[string]any, parts []string) {
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// UpdateLocalList changes the string array at the dotted key in
// <root>/.toolhost/settings.local.json: add items are appended unless present,
// remove items are dropped. Every other key is kept; an empty result removes
// the key. It reloads after writing.
func (s *Store) UpdateLocalList(root, key string, add, remove []string) error {
	if _, err := keyType(key); err != nil {
		return err
	}
	parts := strings.Split(key, ".")
	err := editLocal(root, func(doc map[string]any) error {
		var cur []any
		if v := getPath(doc, parts); v != nil {
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s: %s is %s, not an array; fix it first", LocalPath(root), key, describeJSON(v))
			}
			cur = list
		}
		var next []any
		for _, v := range cur {
			if str, ok := v.(string); ok && slices.Contains(remove, str) {
				continue
			}
			next = append(next, v)
		}
		for _, a := range add {
			if !slices.Contains(next, any(a)) {
				next = append(next, a)
			}
		}
		if len(next) == 0 {
			deletePath(doc, parts)
			return nil
		}
		return setPathStrict(doc, parts, next, LocalPath(root))
	})
	if err != nil {
		return err
	}
	s.Reload()
	return nil
}

// getPath returns m[parts...], or nil when a step is missing.
func getPath(m map[string]any, parts []string) any {
	var v any = m
	for _, p := range parts {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[p]
	}
	return v
}
