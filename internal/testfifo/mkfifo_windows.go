package testfifo

import "errors"

func mkfifo(string) error { return errors.New("Windows has no named pipes in its file system") }

// Supported: Windows has no FIFOs in its file system.
const Supported = false
