// Package sys holds read-only tools about the machine toolhost runs on:
// GetEnv (one environment variable, as a command would see it, secrets
// masked) and ListProcesses (the user's processes, read from /proc).
package sys
