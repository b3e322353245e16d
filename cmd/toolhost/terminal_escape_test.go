//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/toolhost/toolhost/tools"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("cannot name the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

const hostile = "ok\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2A\x1b[2Kdone \u202eexe.txt"

// TestCallPrintsEscapesOnATerminal: a result holding terminal escapes
// (a file a repository ships, printed by Read) reaches a terminal with
// them written out, and a pipe unchanged.
func TestCallPrintsEscapesOnATerminal(t *testing.T) {
	res := tools.TextResult(hostile + "\nline two\ttab")

	var piped bytes.Buffer
	printResult(&piped, res)
	if !strings.Contains(piped.String(), hostile) {
		t.Errorf("piped output %q was changed", piped.String())
	}

	master, slave := openPTY(t)
	printResult(slave, res)
	got := make([]byte, 4096)
	n, err := master.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	shown := string(got[:n])
	if strings.ContainsAny(shown, "\x1b\x07\u202e") {
		t.Errorf("the terminal got raw escapes: %q", shown)
	}
	for _, want := range []string{`\x1b]52;c;`, `\x07`, `\u202e`, "line two"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal got %q, want %q in it", shown, want)
		}
	}
}

// TestTerminalDialogsShowEscapes: a question or a permission prompt on the
// terminal cannot move the cursor over what was shown before it.
func TestTerminalDialogsShowEscapes(t *testing.T) {
	var out bytes.Buffer
	h := &terminalHost{out: &out, in: bufio.NewReader(strings.NewReader("1\nn\n"))}
	if _, err := h.AskUserQuestion(context.Background(), "", []tools.Question{{
		Question: "Pick " + hostile,
		Options:  []tools.QuestionOption{{Label: "a" + hostile, Description: "b\n" + hostile}, {Label: "c", Description: "d"}},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RequestPermission(context.Background(), tools.PermissionRequest{Title: "Run " + hostile + "?", Preview: &tools.Preview{Kind: "command", Text: hostile}}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") {
		t.Errorf("the dialogs wrote raw escapes: %q", out.String())
	}
}
