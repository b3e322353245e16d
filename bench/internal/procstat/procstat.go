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
	return statTimes(strconv.Itoa(pid), 2)
}

// CPUTimeWithChildren is the processor time this process has used so far,
// its waited-for children's included: what a tool that runs a program
// costs in all, or what running that program directly costs.
func CPUTimeWithChildren() (time.Duration, error) {
	return statTimes("self", 4)
}

// statTimes sums the first n of /proc/PID/stat's times: utime, stime,
// cutime, cstime.
func statTimes(pid string, n int) (time.Duration, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// After the name: state is field 3 of the file, utime 14, stime 15,
	// cutime 16, cstime 17.
	if len(f) < 11+n {
		return 0, fmt.Errorf("unexpected /proc/%s/stat", pid)
	}
	var ticks int64
	for _, field := range f[11 : 11+n] {
		t, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected /proc/%s/stat", pid)
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / ticksPerSecond, nil
}

// MinorFaults is how many minor page faults a process has taken so far:
// each is a page of memory touched for the first time. They do not depend
// on the machine's load, and on a virtual machine each costs tens of
// microseconds, so a large allocation shows in them.
func MinorFaults(pid int) (int64, error) {
	f, err := statFields(strconv.Itoa(pid))
	if err != nil {
		return 0, err
	}
	// minflt is field 10 of the file.
	if len(f) < 8 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strconv.ParseInt(f[7], 10, 64)
}

// statFields are the fields of /proc/PID/stat after the command name, the
// first of them the state (field 3 of the file).
func statFields(pid string) ([]string, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, fmt.Errorf("processor figures need Linux's /proc: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, fmt.Errorf("unexpected /proc/%s/stat", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}

// Usage is what a process has used so far: processor time and minor page
// faults.
type Usage struct {
	CPU    time.Duration
	Faults int64
}

// UsageOf reads a process's Usage.
func UsageOf(pid int) (Usage, error) {
	cpu, err := CPUTime(pid)
	if err != nil {
		return Usage{}, err
	}
	faults, err := MinorFaults(pid)
	return Usage{CPU: cpu, Faults: faults}, err
}

// Since is what was used between before and u.
func (u Usage) Since(before Usage) Usage {
	return Usage{CPU: u.CPU - before.CPU, Faults: u.Faults - before.Faults}
}
