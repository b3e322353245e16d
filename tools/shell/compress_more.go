package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxMatchLineChars is where compressGrep cuts a matching line.
const maxMatchLineChars = 200

// grepLine is "file:line:text" (grep -n, rg with line numbers) or
// "file:text" (grep -r, rg without).
var grepLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^:\s][^:]*):(?:(\d+):)?(.*)$`) })

// compressGrep groups matches by file, one header per file and the matches
// under it (with their line numbers when the output has them), and cuts
// long lines. Output that is not file-prefixed (grep on one file, counts,
// context separators) is left alone.
func compressGrep(out string) (string, bool) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		return out, false
	}
	var b strings.Builder
	current := ""
	files := 0
	for _, l := range lines {
		m := grepLine().FindStringSubmatch(l)
		if m == nil {
			return out, false
		}
		file, num, text := m[1], m[2], m[3]
		if file != current {
			if files > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(file + "\n")
			current = file
			files++
		}
		text = strings.TrimSpace(text)
		if utf8.RuneCountInString(text) > maxMatchLineChars {
			text = string([]rune(text)[:maxMatchLineChars]) + "…"
		}
		if num != "" {
			fmt.Fprintf(&b, "  %s: %s\n", num, text)
		} else {
			fmt.Fprintf(&b, "  %s\n", text)
		}
	}
	// Grouping pays off only when files repeat; a list of one match per
	// file is left as it is.
	if files == len(lines) {
		return out, false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// numberLines numbers a file's lines as cat -n and Read do (six columns, a
// tab), so that a later Edit can name them.
func numberLines(out string) (string, bool) {
	if out == "" || strings.ContainsRune(out, 0) {
		return out, false
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// goTestLine is a package's result line of go test.
var goTestLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(ok|FAIL|\?)\s+\S+`) })

// goTestSummary counts the packages of a go test run: "go test: 3 packages
// ok, 1 failed, 2 without tests". Empty when no package line was seen.
func goTestSummary(out string) string {
	var ok, failed, none int
	for _, l := range strings.Split(out, "\n") {
		m := goTestLine().FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		switch m[1] {
		case "ok":
			ok++
		case "FAIL":
			failed++
		default:
			none++
		}
	}
	if ok+failed+none == 0 {
		return ""
	}
	return fmt.Sprintf("go test: %d packages ok, %d failed, %d without tests", ok, failed, none)
}
