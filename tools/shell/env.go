package shell

import (
	"slices"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/settings"
)

// looksSecret reports whether an environment variable's name suggests a
// credential: *_TOKEN, *_KEY, *_SECRET, or anything with PASSWORD.
func looksSecret(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_TOKEN") || strings.HasSuffix(n, "_KEY") ||
		strings.HasSuffix(n, "_SECRET") || strings.Contains(n, "PASSWORD")
}

// commandEnv builds a command's environment from the server's: without
// secret-looking variables unless bash.maskSecrets is false or the name is
// in bash.allowedSecrets, then with the env setting added (set explicitly,
// so never masked).
func commandEnv(base []string, s *settings.Settings) []string {
	mask := s.Bash.MaskSecrets == nil || *s.Bash.MaskSecrets
	env := make([]string, 0, len(base)+len(s.Env))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := s.Env[name]; set {
			continue
		}
		if mask && looksSecret(name) && !slices.Contains(s.Bash.AllowedSecrets, name) {
			continue
		}
		env = append(env, kv)
	}
	names := make([]string, 0, len(s.Env))
	for name := range s.Env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		env = append(env, name+"="+s.Env[name])
	}
	return env
}
