package shell

import "github.com/toolhost/toolhost/settings"

// CommandEnv is the environment a command started by Bash gets from base
// under the settings s: secret-looking variables masked as bash.maskSecrets
// and bash.allowedSecrets say, the env setting added. Other tools that show
// the environment (GetEnv) use it so that they reveal no more than a
// command could.
func CommandEnv(base []string, s *settings.Settings) []string { return commandEnv(base, s) }

// LooksSecret reports whether a name (an environment variable, a
// command-line flag spelled as one) suggests a credential, by the same rules
// that mask Bash's environment.
func LooksSecret(name string) bool { return looksSecret(name, "") }
