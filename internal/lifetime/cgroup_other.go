//go:build !linux

package lifetime

import (
	"context"
	"errors"
	"os/exec"
)

// cgroups are Linux's; elsewhere commands run without a group.

func cgroupParent() string                                     { return "" }
func contain(context.Context, *exec.Cmd, []string, Scope) bool { return false }
func containLabelled(*exec.Cmd, Scope)                         {}
func killGroups([]Scope) int                                   { return 0 }
func killAllGroups()                                           {}
func removeCgroupTree(string)                                  {}

// CgroupStatus says why commands do not run in cgroups here.
func CgroupStatus() error { return errors.New("cgroups are Linux's") }
