// Package pwsh reads PowerShell commands for the permission rules.
//
// No maintained Go parser of PowerShell exists, and PowerShell's grammar
// (expressions in arguments, script blocks, splatting, the call and dot
// operators, type literals that load assemblies, aliases, Unicode dashes
// and quotes read as ASCII ones) is too wide to read safely by hand. So
// this is a refusal more than a parser: a command is read only when it is
// one command of plain barewords and quoted literals, with none of special
// in it. Everything else is unread: the permission checker then lets no
// prefix or wildcard rule cover it, asks, and lets a PowerShell deny rule
// refuse it since the rule cannot be checked against it.
//
// PowerShell finds commands and parameters in any case, and by its
// built-in aliases (rm, del, ls, ...): Name gives the name a command word
// is found by, so that a deny rule on Remove-Item also stops `rm`.
package pwsh

import (
	"errors"
	"strings"
	"sync"
)

// special are the characters that make a command more than a plain
// command of literals: statement separators, pipes, the call operator,
// variables and subexpressions, script blocks, splatting and here-strings,
// the escape character, redirections, type literals, comments and line
// breaks.
const special = ";|&$(){}@`<>[]#\r\n"

// lookalikes are characters PowerShell reads as dashes and quotes: a
// command holding one is not read, since a rule's ASCII text would not
// match what PowerShell sees.
const lookalikes = "\u2013\u2014\u2015\u2018\u2019\u201a\u201b\u201c\u201d\u201e"

// aliases maps PowerShell's built-in aliases of commands that read, change
// or run things to their cmdlets, in lower case.
var aliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"ls": "get-childitem", "dir": "get-childitem", "gci": "get-childitem",
		"cat": "get-content", "type": "get-content", "gc": "get-content",
		"rm": "remove-item", "del": "remove-item", "erase": "remove-item", "ri": "remove-item", "rd": "remove-item", "rmdir": "remove-item",
		"cp": "copy-item", "copy": "copy-item", "cpi": "copy-item",
		"mv": "move-item", "move": "move-item", "mi": "move-item",
		"ren": "rename-item", "rni": "rename-item",
		"ni": "new-item", "md": "mkdir", "si": "set-item", "sp": "set-itemproperty", "clc": "clear-content", "cli": "clear-item",
		"sc": "set-content", "ac": "add-content",
		"cd": "set-location", "chdir": "set-location", "sl": "set-location", "pushd": "push-location", "popd": "pop-location",
		"echo": "write-output", "write": "write-output",
		"iex": "invoke-expression", "icm": "invoke-command", "ii": "invoke-item", "start": "start-process", "saps": "start-process",
		"iwr": "invoke-webrequest", "curl": "invoke-webrequest", "wget": "invoke-webrequest", "irm": "invoke-restmethod",
		"kill": "stop-process", "spps": "stop-process", "ps": "get-process", "gps": "get-process",
		"sleep": "start-sleep", "pwd": "get-location", "gl": "get-location",
		"ipmo": "import-module", "sal": "set-alias", "nal": "new-alias", "sv": "set-variable", "set": "set-variable",
	}
})

// Name is the lower-case name PowerShell finds a command word by: its
// base name (C:\Git\cmd\git.exe, Module\Remove-Item), without .exe, and
// the cmdlet an alias stands for.
func Name(word string) string {
	name := strings.ToLower(word)
	if i := strings.LastIndexAny(name, `\/`); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, ".exe")
	if cmdlet, ok := aliases()[name]; ok {
		return cmdlet
	}
	return name
}

// Words splits a command of plain barewords and quoted literals into its
// words, quotes removed. The error says what else the command holds when
// it is not one.
func Words(cmd string) ([]string, error) {
	unread := func(why string) error {
		return errors.New("toolhost reads only one PowerShell command of plain words and quoted literals (" + why + ")")
	}
	if i := strings.IndexAny(cmd, special); i >= 0 {
		return nil, unread("it holds " + describe(cmd[i]))
	}
	if strings.ContainsAny(cmd, lookalikes) {
		return nil, unread("it holds a Unicode dash or quote, which PowerShell reads as an ASCII one")
	}
	var (
		words  []string
		word   strings.Builder
		inWord bool
	)
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			// '' inside single quotes is one quote; with $ and the backtick
			// refused above, a double-quoted string is a literal too.
			inWord = true
			j := i + 1
			for ; j < len(cmd); j++ {
				if cmd[j] != c {
					word.WriteByte(cmd[j])
					continue
				}
				if j+1 < len(cmd) && cmd[j+1] == c {
					word.WriteByte(c)
					j++
					continue
				}
				break
			}
			if j >= len(cmd) {
				return nil, unread("a quote is not closed")
			}
			i = j
		default:
			inWord = true
			word.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	switch {
	case len(words) == 0:
		return nil, unread("it is empty")
	case strings.ContainsAny(cmd[:strings.IndexAny(cmd+" ", " \t")], `'"`):
		// A quoted first word is a string PowerShell prints, or with a
		// call operator runs: not a command name to match.
		return nil, unread("its first word is quoted")
	case words[0] == ".":
		return nil, unread("it dot-sources a script into the session")
	}
	return words, nil
}

// describe names a character of special for a message.
func describe(c byte) string {
	switch c {
	case '\r', '\n':
		return "a line break"
	case '`':
		return "a backtick"
	}
	return "`" + string(c) + "`"
}
