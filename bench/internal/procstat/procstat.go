// Package procstat reads what Linux's /proc says about a process that a
// benchmark started: its peak resident memory and the processor time it
// has used. Processor time stays meaningful on a busy machine, where a
// wall-clock time also measures the other processes.
package procstat

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// PeakRSS is a process's peak resident memory in bytes (VmHWM).
func PeakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak memory needs Linux's /proc: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// ticksPerSecond is USER_HZ, the unit of /proc/PID/stat's times: 100 on
// every Linux architecture Go supports.
const ticksPerSecond = 100

// CPUTime is the processor time, user and system, that a process has used
// so far (its threads included, its waited-for children not).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("processor time needs Linux's /proc: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After the name: state is field 3 of the file, utime 14, stime 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}
