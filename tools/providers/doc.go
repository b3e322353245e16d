// Package providers turns the named chat-completions endpoints of the
// providers setting into tools, ask_<name>, so that one model can consult
// another. The set of tools follows the settings as they change.
package providers
