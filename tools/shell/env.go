package shell

import (
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/settings"
)

// secretWord reports whether k is a word of a variable's name (split at
// "_") that marks a credential: DB_PASS, MY_PASSWD, GH_PAT, SENTRY_DSN, NPM_CONFIG__AUTH,
// MYSQL_PWD, AWS_SECRET_ACCESS_KEY, ...
func secretWord(k string) bool {
	switch k {
	case "TOKEN", "TOKENS", "KEY", "KEYS", "APIKEY", "SECRET", "SECRETS", "PASSWORD",
		"PASSWD", "PASS", "PWD", "PAT", "CREDENTIAL", "CREDENTIALS", "CREDS", "DSN", "AUTH",
		"AUTHTOKEN", "COOKIE":
		return true
	}
	return false
}

// secretParts mark a credential anywhere in a name (DBPASSWORD, APISECRET).
var secretParts = []string{"PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "TOKEN", "APIKEY"}

// notSecretName reports whether k is a name the rules would match that
// holds no credential.
func notSecretName(k string) bool {
	switch k {
	case "PWD", "OLDPWD", "SSH_AUTH_SOCK":
		return true
	}
	return false
}

// looksSecret reports whether an environment variable looks like a
// credential: by the words of its name, or because its value is a URL with
// a password in it (DATABASE_URL=postgres://user:pw@host/db).
func looksSecret(name, value string) bool {
	n := strings.ToUpper(name)
	if notSecretName(n) {
		return false
	}
	for _, w := range strings.Split(n, "_") {
		if secretWord(w) {
			return true
		}
	}
	for _, part := range secretParts {
		if strings.Contains(n, part) {
			return true
		}
	}
	return urlWithPassword(value)
}

// urlWithPassword reports a value that holds a URL with a password.
func urlWithPassword(value string) bool {
	i := strings.Index(value, "://")
	if i < 0 || !strings.Contains(value[i:], "@") {
		return false
	}
	start := strings.LastIndexAny(value[:i], " ,;\"'") + 1
	u, err := url.Parse(strings.Fields(value[start:])[0])
	if err != nil || u.User == nil {
		return false
	}
	_, has := u.User.Password()
	return has
}

// commandEnv builds a command's environment from the server's: without
// secret-looking variables unless bash.maskSecrets is false or the name is
// in bash.allowedSecrets, then with the env setting added (set explicitly,
// so never masked).
func commandEnv(base []string, s *settings.Settings) []string {
	mask := s.Bash.MaskSecrets == nil || *s.Bash.MaskSecrets
	env := make([]string, 0, len(base)+len(s.Env))
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if _, set := s.Env[name]; set {
			continue
		}
		if mask && looksSecret(name, value) && !slices.Contains(s.Bash.AllowedSecrets, name) {
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
