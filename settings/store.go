package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Names of the settings sources that are not files, as Problem.File shows them.
const (
	SourceInitOptions  = "initializationOptions"
	SourceConfigChange = "workspace/didChangeConfiguration"
)

// ProjectDir is the folder under a workspace root that holds the project's
// settings files.
const ProjectDir = ".toolhost"

// ProjectFile and LocalFile are the project settings files under
// <root>/.toolhost: the shared one (checked in) and the personal one (where
// "Always allow" answers and the Config tool write).
const (
	ProjectFile = "settings.json"
	LocalFile   = "settings.local.json"
)

// LocalPath is <root>/.toolhost/settings.local.json.
func LocalPath(root string) string {
	return filepath.Join(root, ProjectDir, LocalFile)
}

// DefaultUserConfigPath is $XDG_CONFIG_HOME/toolhost/settings.json, or
// ~/.config/toolhost/settings.json when XDG_CONFIG_HOME is unset. It is empty
// when neither can be found.
func DefaultUserConfigPath() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "toolhost", "settings.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "toolhost", "settings.json")
}

// LoadOptions say where a Store reads from.
type LoadOptions struct {
	// Roots are the workspace folders; each may hold .toolhost/settings.json
	// and .toolhost/settings.local.json.
	Roots []string
	// UserConfigPath is the user's settings file; empty means
	// DefaultUserConfigPath(). Tests point it into a temporary folder.
	UserConfigPath string
	// InitOptions is the client's initializationOptions (settings shape).
	InitOptions json.RawMessage
	// TrustFile is where the folders the user trusts are kept; empty means
	// trusted-folders.json next to the user's settings file.
	TrustFile string
}

// Store holds the merged settings of every layer, later over earlier:
// built-in defaults; the user file; each root's .toolhost/settings.json;
// each root's .toolhost/settings.local.json; initializationOptions;
// workspace/didChangeConfiguration. Scalars of a later layer replace earlier
// ones, objects merge key by key, permission rule arrays (and
// additionalDirectories, bash.blockedCommands, enabledMcpjsonServers) are
// concatenated, hooks are concatenated per event, and mcpServers/ssh.hosts
// entries are replaced whole.
//
// A source that is not valid JSON (or not a JSON object) is ignored whole; a
// key of the wrong type, an unknown key, an unknown permission mode, a rule
// with bad syntax or a bad regular expression is ignored alone (for arrays,
// just the bad entry). Each is listed by Problems; none is fatal.
//
// Current returns an immutable snapshot: callers must not modify it. A Store
// is safe for concurrent use.
type Store struct {
	current atomic.Pointer[Settings]

	// reloadMu serialises reloads so snapshots are published, and
	// listeners called, in the order their sources changed.
	reloadMu sync.Mutex

	mu sync.Mutex
	// roots are the workspace folders whose project files are read.
	roots    []string
	userPath string
	// initOptions and configChange are the client-sent layers (nil: none).
	initOptions  json.RawMessage
	configChange json.RawMessage
	// trustFile lists the folders the user trusts (see TrustFile).
	trustFile string
	// sessionBypass is set while the session runs in bypassPermissions by
	// the user's choice (from the editor), which trusts every folder.
	sessionBypass bool
	problems      []Problem
	listeners     []func(*Settings)
}

// NewStore loads every layer and returns the store. It never fails: problems
// are kept for Problems.
func NewStore(opts LoadOptions) *Store {
	s := &Store{
		roots:       append([]string(nil), opts.Roots...),
		userPath:    opts.UserConfigPath,
		initOptions: opts.InitOptions,
	}
	if s.userPath == "" {
		s.userPath = DefaultUserConfigPath()
	}
	s.trustFile = opts.TrustFile
	if s.trustFile == "" && s.userPath != "" {
		s.trustFile = filepath.Join(filepath.Dir(s.userPath), TrustFileName)
	}
	s.Reload()
	return s
}

// Current returns the merged settings. The value is shared: never modify it.
func (s *Store) Current() *Settings {
	return s.current.Load()
}

// Problems returns what was wrong with the sources at the last reload.
func (s *Store) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Problem(nil), s.problems...)
}

// OnChange registers f to be called with the new snapshot after a reload
// that changed the merged settings, in the order of the reloads. f runs on
// the reloading goroutine and must not call Reload, SetInitOptions,
// ApplyConfigurationChange, SetRoots, SetLocal or SaveLocalRule (they would
// wait for the reload f is part of).
func (s *Store) OnChange(f func(*Settings)) {
	s.mu.Lock()
	s.listeners = append(s.listeners, f)
	s.mu.Unlock()
}

// SetInitOptions replaces the initializationOptions layer and reloads.
func (s *Store) SetInitOptions(raw json.RawMessage) {
	s.mu.Lock()
	s.initOptions = raw
	s.mu.Unlock()
	s.Reload()
}

// ApplyConfigurationChange replaces the workspace/didChangeConfiguration
// layer and reloads. raw is the notification's settings: either the
// settings object itself or one wrapped as {"toolhost": {...}}; null clears
// the layer.
func (s *Store) ApplyConfigurationChange(raw json.RawMessage) {
	s.mu.Lock()
	s.configChange = raw
	s.mu.Unlock()
	s.Reload()
}

// SetRoots replaces the workspace folders whose project files are read
// (workspace/didChangeWorkspaceFolders) and reloads.
func (s *Store) SetRoots(roots []string) {
	s.mu.Lock()
	s.roots = append([]string(nil), roots...)
	s.mu.Unlock()
	s.Reload()
}

// Reload reads every source again and publishes the merged result.
func (s *Store) Reload() {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	next, changed, listeners := s.reloadLocked()
	if changed {
		// Listeners run under reloadMu so they see snapshots in order.
		for _, f := range listeners {
			f(next)
		}
	}
}

// reloadLocked merges every source; reloadMu is held.
func (s *Store) reloadLocked() (next *Settings, changed bool, listeners []func(*Settings)) {
	s.mu.Lock()
	roots := append([]string(nil), s.roots...)
	userPath, initOptions, configChange := s.userPath, s.initOptions, s.configChange
	trustFile, sessionBypass := s.trustFile, s.sessionBypass
	s.mu.Unlock()

	var problems []Problem
	parse := func(source string, raw []byte, unwrap bool) map[string]any {
		layer, ps := parseLayer(source, raw, unwrap)
		problems = append(problems, ps...)
		return layer
	}
	readFile := func(path string) map[string]any {
		raw, err := pathutil.ReadFile(path, MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			problems = append(problems, Problem{File: path, Message: "cannot read the file (" + err.Error() + "); ignored"})
			return nil
		}
		return parse(path, raw, false)
	}
	var user map[string]any
	if userPath != "" {
		user = readFile(userPath)
	}
	type projectLayer struct {
		root, file string
		layer      map[string]any
	}
	var project []projectLayer
	for _, name := range []string{ProjectFile, LocalFile} {
		for _, r := range roots {
			file := filepath.Join(r, ProjectDir, name)
			if l := readFile(file); l != nil {
				// Keys only the user may set are dropped even when the
				// folder is trusted.
				problems = append(problems, dropUserOnly(file, l)...)
				project = append(project, projectLayer{r, file, l})
			}
		}
	}
	initLayer := parse(SourceInitOptions, initOptions, false)
	configLayer := parse(SourceConfigChange, configChange, true)

	// What the user's own layers say, without the project's: the trust
	// decision (the defaults' mode, "default", never bypasses) and, over
	// the defaults, the yardstick of "stricter" for untrusted layers. The
	// yardstick is built only when an untrusted layer is there: the
	// defaults' JSON costs a reflective encoding of Settings, on the path
	// of every start to its first reply.
	userSide := []map[string]any{user, initLayer, configLayer}
	own := map[string]any{}
	for _, l := range userSide {
		mergeInto(own, l, "")
	}
	trust := decideTrust(roots, trustFile, sessionBypass || getPath(own, []string{"permissions", "defaultMode"}) == "bypassPermissions")
	trustedBase := sync.OnceValue(func() map[string]any {
		base := defaultsMap()
		for _, l := range userSide {
			mergeInto(base, l, "")
		}
		return base
	})

	merged := map[string]any{}
	mergeInto(merged, user, "")
	for _, p := range project {
		l := p.layer
		if !trust.Trusted(p.root) {
			var ignored []Ignored
			l, ignored = untrustedView(p.file, l, trustedBase())
			trust.Ignored = append(trust.Ignored, ignored...)
		}
		mergeInto(merged, l, "")
	}
	mergeInto(merged, initLayer, "")
	mergeInto(merged, configLayer, "")

	next = Defaults()
	// When no layer says anything (no settings file, no options) the
	// defaults stand: decoding "{}" into them would only cost encoding/json's
	// reflection over the whole Settings type, half a millisecond of a
	// session's start.
	if len(merged) > 0 {
		if b, err := json.Marshal(merged); err == nil {
			if err := json.Unmarshal(b, next); err != nil {
				// Validation should make this impossible; keep the
				// defaults rather than a half-decoded value.
				problems = append(problems, Problem{File: "(merged settings)", Message: "could not be decoded (" + err.Error() + "); using the defaults"})
				next = Defaults()
			}
		}
	}
	next.Trust = trust

	prev := s.current.Load()
	changed = prev == nil || !reflect.DeepEqual(prev, next)
	if changed {
		s.current.Store(next)
	} else {
		next = prev
	}
	s.mu.Lock()
	s.problems = problems
	listeners = append(listeners, s.listeners...)
	s.mu.Unlock()
	return next, changed, listeners
}

// defaultsMap is Defaults as decoded JSON, the base of trustedBase.
func defaultsMap() map[string]any {
	out := map[string]any{}
	b, _ := json.Marshal(Defaults())
	_ = json.Unmarshal(b, &out)
	return out
}

// parseLayer decodes and validates one source. An empty source is an empty
// layer. With unwrap, {"toolhost": {...}} is accepted for {...}.
func parseLayer(source string, raw []byte, unwrap bool) (map[string]any, []Problem) {
	raw = bytes.TrimSpace(TrimBOM(raw))
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	var v any
	shape, err := DecodeFile(source, raw, &v)
	if err != nil {
		return map[string]any{}, []Problem{{File: source, Message: "not valid JSON (" + err.Error() + "); the whole source is ignored"}}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}, []Problem{{File: source, Message: "must hold a JSON object, not " + describeJSON(v) + "; ignored"}}
	}
	if unwrap {
		// "toolhost" is no settings key, so its presence means the client
		// sent its configuration sections (VS Code does, one per section).
		if inner, ok := m["toolhost"].(map[string]any); ok {
			m = inner
		}
	}
	c := &checker{source: source}
	layer := c.check(m)
	return layer, append(shape, c.problems...)
}

// shapeProblems reports what decoding raw drops without an error: keys
// written twice in one object (the last one wins) and bytes that are not
// UTF-8 (read as U+FFFD, so a rule naming them matches nothing meant).
func shapeProblems(source string, raw []byte) []Problem {
	var out []Problem
	for _, key := range DuplicateKeys(raw) {
		out = append(out, Problem{File: source, Key: key, Message: "appears more than once in the same object; only the last one applies, the earlier ones are ignored. Merge them into one"})
	}
	if !utf8.Valid(raw) {
		out = append(out, Problem{File: source, Message: "holds bytes that are not valid UTF-8; they were read as U+FFFD, so text containing them will not match what was meant. Save the file as UTF-8"})
	}
	return out
}
