//go:build unix

package testfifo

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// Supported: this system has FIFOs.
const Supported = true
