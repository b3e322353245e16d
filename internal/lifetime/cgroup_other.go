//go:build !linux

package lifetime

import "errors"

// cgroups are Linux's; elsewhere there is no cgroup folder for the
// watchdog to remove.

func cgroupParent() string    { return "" }
func removeCgroupTree(string) {}

// CgroupStatus says why commands do not run in cgroups here.
func CgroupStatus() error { return errors.New("cgroups are Linux's") }
