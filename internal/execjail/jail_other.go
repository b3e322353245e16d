//go:build !linux

package execjail

import (
	"errors"
	"os/exec"
)

// errNoJail: Landlock is Linux's; elsewhere callers take their fallback.
var errNoJail = errors.New("the jail needs Linux's Landlock")

type ruleset struct{}

func (*ruleset) close() {}

func abiVersion() (int, error)                      { return 0, errNoJail }
func newRuleset(Readable, string) (*ruleset, error) { return nil, errNoJail }
func lockThreadForGood()                            {}
func restrictThread(*ruleset) error                 { return errNoJail }
func holdWhileRunning(*exec.Cmd) func()             { return nil }
func isAccessDenied(error) bool                     { return false }
