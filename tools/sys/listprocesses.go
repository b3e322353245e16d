package sys

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/shell"
)

//go:embed listprocesses.md
var listProcessesDescription string

// Limits of ListProcesses.
const (
	maxProcesses     = 200
	maxCommandLength = 300
	// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
	// Linux architecture Go supports.
	clockTicks = 100
)

var listProcessesSchema = tools.SchemaOf[listProcessesParams](nil)

type listProcessesParams struct {
	Filter string `json:"filter,omitempty" jsonschema:"Keep only processes whose command line contains this text (case-insensitive)."`
}

// Process is one row of ListProcesses' structured result.
type Process struct {
	PID        int     `json:"pid"`
	Command    string  `json:"command"`
	CPUPercent float64 `json:"cpuPercent"`
	MemoryKB   int64   `json:"memoryKB"`
	Started    string  `json:"started"`
}

// ListProcesses lists the current user's processes from /proc.
type ListProcesses struct {
	// proc is the proc file system's mount point ("/proc"; tests use a copy).
	proc string
	uid  int
	now  func() time.Time
}

// NewListProcesses returns ListProcesses reading /proc for the current user.
func NewListProcesses() *ListProcesses {
	return &ListProcesses{proc: "/proc", uid: os.Getuid(), now: time.Now}
}

func (*ListProcesses) Name() string                 { return "ListProcesses" }
func (*ListProcesses) Description() string          { return listProcessesDescription }
func (*ListProcesses) InputSchema() json.RawMessage { return listProcessesSchema.JSON() }
func (*ListProcesses) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*ListProcesses) Docs() tools.Docs {
	return tools.Docs{
		Short: "The user's processes (pid, command, CPU, memory, start time) from /proc.",
		Long: "Only processes of the user toolhost runs as are listed, read from /proc without starting " +
			"a program. Command-line arguments that look like secrets are masked by the rule that masks " +
			"Bash's environment. Linux only; elsewhere the tool says so. Read-only, never asks.",
		Examples: []tools.Example{
			{Title: "Every process of the user", Input: json.RawMessage(`{}`)},
			{Title: "Running node processes", Input: json.RawMessage(`{"filter":"node"}`)},
		},
	}
}

// Execute reads /proc and formats the table.
func (l *ListProcesses) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p listProcessesParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid ListProcesses input (%v); send {} or {\"filter\": \"node\"}.", err), nil
	}
	boot, err := l.bootTime()
	if err != nil {
		return tools.ErrorResult("cannot read the process table (%v); ListProcesses needs Linux's /proc. Use Bash with `ps` instead.", err), nil
	}
	entries, err := os.ReadDir(l.proc)
	if err != nil {
		return tools.ErrorResult("cannot read %s (%v); use Bash with `ps` instead.", l.proc, err), nil
	}
	filter := strings.ToLower(strings.TrimSpace(p.Filter))
	now := l.now()
	var procs []Process
	total := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		proc, ok := l.read(pid, boot, now)
		if !ok || (filter != "" && !strings.Contains(strings.ToLower(proc.Command), filter)) {
			continue
		}
		total++
		procs = append(procs, proc)
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i].PID < procs[j].PID })
	if len(procs) > maxProcesses {
		procs = procs[:maxProcesses]
	}
	if len(procs) == 0 {
		if filter != "" {
			return tools.TextResult(fmt.Sprintf("No process of yours has %q in its command line.", p.Filter)), nil
		}
		return tools.TextResult("No processes found."), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%7s %6s %10s  %-19s  %s\n", "PID", "%CPU", "RSS", "STARTED", "COMMAND")
	for _, pr := range procs {
		fmt.Fprintf(&b, "%7d %6.1f %10s  %-19s  %s\n", pr.PID, pr.CPUPercent, formatKB(pr.MemoryKB), pr.Started, pr.Command)
	}
	if total > len(procs) {
		fmt.Fprintf(&b, "(%d of %d processes shown; use filter to narrow the list)\n", len(procs), total)
	}
	res := tools.TextResult(strings.TrimSuffix(b.String(), "\n"))
	res.Structured = map[string]any{"processes": procs, "total": total}
	return res, nil
}

// bootTime is when the machine started, from /proc/stat's btime.
func (l *ListProcesses) bootTime() (time.Time, error) {
	data, err := os.ReadFile(filepath.Join(l.proc, "stat"))
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("btime %q: %w", v, err)
			}
			return time.Unix(secs, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime line in stat")
}

// read reads one process; ok is false for another user's process, a
// process that ended meanwhile, or an unreadable entry.
func (l *ListProcesses) read(pid int, boot, now time.Time) (Process, bool) {
	dir := filepath.Join(l.proc, strconv.Itoa(pid))
	if uid, err := ownerUID(dir); err != nil || uid != l.uid {
		return Process{}, false
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return Process{}, false
	}
	// The command name is in parentheses and may hold spaces and ')'; the
	// fields after the last ')' are fixed (proc(5)).
	end := bytes.LastIndexByte(stat, ')')
	start := bytes.IndexByte(stat, '(')
	if end < 0 || start < 0 || start > end {
		return Process{}, false
	}
	name := string(stat[start+1 : end])
	fields := strings.Fields(string(stat[end+1:]))
	// fields[0] is field 3 (state): utime is 14, stime 15, starttime 22, rss 24.
	if len(fields) < 22 {
		return Process{}, false
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	startTicks, _ := strconv.ParseInt(fields[19], 10, 64)
	rssPages, _ := strconv.ParseInt(fields[21], 10, 64)
	started := boot.Add(time.Duration(startTicks) * time.Second / clockTicks)
	cpu := 0.0
	if alive := now.Sub(started).Seconds(); alive > 0 {
		cpu = float64(utime+stime) / clockTicks / alive * 100
	}
	cmd := commandLine(dir)
	if cmd == "" {
		cmd = "[" + name + "]"
	}
	return Process{
		PID:        pid,
		Command:    cmd,
		CPUPercent: float64(int(cpu*10+0.5)) / 10,
		MemoryKB:   rssPages * int64(os.Getpagesize()) / 1024,
		Started:    started.Local().Format("2006-01-02 15:04:05"),
	}, true
}

// ownerUID is the real user id of a process, from its status file.
func ownerUID(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			return strconv.Atoi(f[0])
		}
	}
	return 0, fs.ErrInvalid
}

// commandLine is the process's arguments joined by spaces, secrets masked,
// cut to maxCommandLength characters.
func commandLine(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(data) == 0 {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	maskArgs(args)
	cmd := strings.Join(args, " ")
	if r := []rune(cmd); len(r) > maxCommandLength {
		cmd = string(r[:maxCommandLength]) + "…"
	}
	return cmd
}

// maskArgs replaces the values of secret-looking arguments by "***":
// --name=value and NAME=value with a secret-looking name, and the argument
// after a secret-looking --name. The names are judged by the rule that
// masks Bash's environment (a flag "--api-key" counts as API_KEY).
func maskArgs(args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		isFlag := strings.HasPrefix(name, "-")
		if !isFlag && !hasValue {
			continue
		}
		if !secretName(name) {
			continue
		}
		switch {
		case hasValue:
			args[i] = name + "=***"
		case isFlag && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			args[i+1] = "***"
			i++
		}
	}
}

// secretName judges a flag or assignment name: "--api-key" as API_KEY,
// "--token" as _TOKEN.
func secretName(name string) bool {
	n := strings.ReplaceAll(strings.TrimLeft(name, "-"), "-", "_")
	if n == "" || strings.ContainsAny(n, " /") {
		return false
	}
	return shell.LooksSecret(n) || shell.LooksSecret("_"+n)
}

// formatKB shows a size in KB as KB, MB or GB.
func formatKB(kb int64) string {
	switch {
	case kb >= 1<<20:
		return fmt.Sprintf("%.1f GB", float64(kb)/(1<<20))
	case kb >= 1<<10:
		return fmt.Sprintf("%.1f MB", float64(kb)/(1<<10))
	}
	return fmt.Sprintf("%d KB", kb)
}
