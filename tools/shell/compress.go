package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// compressor shortens the output of one common command, keeping what a
// reader acts on. It returns false when the output is not in the shape it
// knows, and the output is then left alone.
type compressor struct {
	name  string
	match *regexp.Regexp
	apply func(string) (string, bool)
	// reshapes marks a compressor whose value is the shape it gives (line
	// numbers), kept even when it is not shorter.
	reshapes bool
}

// compressors are tried in order on a command with no pipes, lists or
// redirections (its output is then the command's own). Compiled on first
// use: not on the path of the server's start.
var compressors = sync.OnceValue(func() []compressor {
	return []compressor{
		{"git status", regexp.MustCompile(`^git\s+status(\s+[^-][^\s]*)*$`), compressGitStatus, false},
		{"git log", regexp.MustCompile(`^git\s+log(\s+(-n\s*\d+|-\d+|--stat|[^-\s][^\s]*))*$`), compressGitLog, false},
		{"git diff", regexp.MustCompile(`^git\s+diff(\s+\S+)*$`), compressGitDiff, false},
		{"ls -la", regexp.MustCompile(`^ls\s+-(la|al|l|lA|Al|lah|alh|lha)(\s+\S+)*$`), compressLsLong, false},
		{"go test", regexp.MustCompile(`^go\s+test(\s+\S+)*$`), compressGoTest, false},
		{"grep", regexp.MustCompile(`^(rg|grep|egrep|fgrep)(\s+\S+)+$`), compressGrep, false},
		{"cat", regexp.MustCompile(`^(cat|head(\s+-n\s*\d+|\s+-\d+)?)\s+[^-\s]\S*$`), numberLines, true},
	}
})

// shellMeta are characters after which a command's output is not simply
// the output of its first program.
const shellMeta = "|;&<>`$()\n"

// compressOutput shortens output when command is one of the known ones.
func compressOutput(command, output string) (string, bool) {
	cmd := strings.Join(strings.Fields(command), " ")
	if strings.ContainsAny(cmd, shellMeta) {
		return output, false
	}
	for _, c := range compressors() {
		if !c.match.MatchString(cmd) {
			continue
		}
		short, ok := c.apply(output)
		if !ok || (len(short) >= len(output) && !c.reshapes) {
			return output, false
		}
		return short + fmt.Sprintf("\n[%s output compressed by the bash.compressOutput setting]", c.name), true
	}
	return output, false
}

// compressGitStatus drops git's advice lines and blank lines.
func compressGitStatus(out string) (string, bool) {
	if !strings.Contains(out, "On branch") && !strings.Contains(out, "HEAD detached") {
		return "", false
	}
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "(use \"git") || strings.HasPrefix(t, "(commit or discard") {
			continue
		}
		kept = append(kept, strings.Replace(l, "\t", "  ", 1))
	}
	return strings.Join(kept, "\n"), true
}

// compressGitLog turns each commit into one line: short hash, date, author,
// subject.
func compressGitLog(out string) (string, bool) {
	if !strings.HasPrefix(out, "commit ") {
		return "", false
	}
	var lines []string
	var hash, author, date, subject string
	flush := func() {
		if hash != "" {
			lines = append(lines, strings.TrimSpace(fmt.Sprintf("%s %s %s: %s", hash, date, author, subject)))
		}
		hash, author, date, subject = "", "", "", ""
	}
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "commit "):
			flush()
			fields := strings.Fields(l)
			hash = fields[1]
			if len(hash) > 10 {
				hash = hash[:10]
			}
		case strings.HasPrefix(l, "Author:"):
			author = strings.TrimSpace(strings.TrimPrefix(l, "Author:"))
			if i := strings.Index(author, " <"); i > 0 {
				author = author[:i]
			}
		case strings.HasPrefix(l, "Date:"):
			f := strings.Fields(strings.TrimPrefix(l, "Date:"))
			// "Mon Jan 2 15:04:05 2006 -0700" → "Jan 2 2006"
			if len(f) >= 5 {
				date = f[1] + " " + f[2] + " " + f[4]
			}
		case strings.HasPrefix(l, "    ") && subject == "" && strings.TrimSpace(l) != "":
			subject = strings.TrimSpace(l)
		case strings.HasPrefix(l, " ") && strings.Contains(l, "|") && hash != "":
			// --stat lines stay.
			lines = append(lines, "    "+strings.TrimSpace(l))
		}
	}
	flush()
	return strings.Join(lines, "\n"), len(lines) > 0
}

// compressGitDiff drops index lines and shortens long runs of unchanged
// context to their first and last lines.
func compressGitDiff(out string) (string, bool) {
	if !strings.HasPrefix(out, "diff --git ") {
		return "", false
	}
	var kept []string
	var run []string
	flushRun := func() {
		if len(run) > 4 {
			kept = append(kept, run[0], fmt.Sprintf("  … %d unchanged lines …", len(run)-2), run[len(run)-1])
		} else {
			kept = append(kept, run...)
		}
		run = nil
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " ") {
			run = append(run, l)
			continue
		}
		flushRun()
		if strings.HasPrefix(l, "index ") {
			continue
		}
		kept = append(kept, l)
	}
	flushRun()
	return strings.Join(kept, "\n"), true
}

// compressLsLong keeps the type and permissions, size and name of each
// entry; the link count, owner, group, date and the . and .. entries go.
func compressLsLong(out string) (string, bool) {
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
			continue
		case f[0] == "total" && len(f) == 2:
			continue
		case len(f) < 9 || len(f[0]) < 10:
			kept = append(kept, l) // a folder header or something unknown
			continue
		}
		name := strings.Join(f[8:], " ")
		if name == "." || name == ".." {
			continue
		}
		kept = append(kept, fmt.Sprintf("%s %8s %s", f[0], f[4], name))
	}
	return strings.Join(kept, "\n"), len(kept) > 0
}

// compressGoTest drops the lines of passing tests, keeping failures, their
// logs, and the per-package summary lines.
func compressGoTest(out string) (string, bool) {
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "", t == "PASS",
			strings.HasPrefix(t, "=== RUN"), strings.HasPrefix(t, "=== PAUSE"),
			strings.HasPrefix(t, "=== CONT"), strings.HasPrefix(t, "--- PASS"),
			strings.HasPrefix(t, "--- SKIP"):
			continue
		}
		kept = append(kept, l)
	}
	if sum := goTestSummary(out); sum != "" {
		kept = append(kept, sum)
	}
	return strings.Join(kept, "\n"), true
}
