package permission

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellCommand is a Bash command as bash itself reads it: the simple
// commands it runs, found on mvdan.cc/sh's syntax tree. Every permission
// decision about a command (allow, ask and deny rules, bash.blockedCommands,
// protected files) is made on these parts, so quoting, comments, here-docs
// and $'…' cannot make a rule see something other than what bash runs.
type shellCommand struct {
	// whole is the command with runs of spaces and tabs collapsed, for
	// rules that name the whole command and for messages.
	whole string
	// parts are the simple commands bash would run, in source order, those
	// inside substitutions, subshells, functions, loops, and strings given
	// to bash -c, sh -c and eval included.
	parts []simpleCommand
	// dotGlob is set when the command may make globs match dot files
	// (shopt, GLOBIGNORE).
	dotGlob bool
	// unparsed holds bash's complaint when the command does not parse;
	// then parts is empty and only a rule naming the whole command (or a
	// bare Bash rule) allows it.
	unparsed string
	// powerShell is set for a PowerShell command (powershell.go).
	powerShell bool
}

// simpleCommand is one command bash would run.
type simpleCommand struct {
	// argv are its words after quote removal, with wrappers that only run
	// another command (timeout, nohup, command, env NAME=VALUE, bash -c,
	// xargs, ...) taken off: what rules are matched against.
	argv []string
	// full is argv before the wrappers were taken off, when they were.
	full []string
	// static is set when every word, assignment and redirection target is
	// a literal after quote removal (no parameter, substitution or brace
	// expansion, no glob as the command's name) and no assignment
	// changes how the command is found or run (PATH, LD_PRELOAD, ...):
	// only then can a prefix rule cover it.
	static bool
	// opaque is set when what it runs cannot be known before it runs: its
	// name is computed ($cmd, $(…)), or it hands a computed string to a
	// shell (eval "$x", bash -c "$x"), or nesting went too deep. No rule
	// can see inside it, deny rules included.
	opaque bool
	// appended is set for a command xargs runs: xargs adds arguments read
	// from its input, so only prefix and wildcard rules can cover it.
	appended bool
	// names are the literal words that may name files: arguments
	// (brace expansions expanded) and assigned values.
	names []string
	// targets are the literal files its redirections open.
	targets []string
	// redirs are its redirections other than here-documents, each as
	// operator and target ("2>", "log"): an exact rule names them too.
	redirs []string
	// globs are the words that are patterns bash matches against the files
	// there: the decision looks at what they match (see protectedCommand).
	globs []string
	// dirs are the folders it may run in: "" for the first root, a path
	// relative to it or absolute, unknownDir after a cd the parser cannot
	// follow. A cd that may fail keeps the folder before it in the list.
	dirs []string
	// gitConfigWrite is set for a `git config` that sets something.
	gitConfigWrite bool
}

// unknownDir stands for a folder a cd leads to that the command computes.
const unknownDir = "?"

// maxShellDepth bounds how deep bash -c, sh -c and eval strings are
// parsed in turn; deeper ones are opaque.
const maxShellDepth = 4

// maxDirs bounds the folders followed through cd; past it the folder is
// unknown.
const maxDirs = 8

// parsers reuses mvdan.cc/sh parsers, which are not safe for concurrent
// use but cost allocations to make.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// parseCommand reads a Bash command as bash would, starting in the
// absolute folder dir ("" for the first root). A command bash cannot parse
// gets no parts and says why in unparsed.
func parseCommand(cmd, dir string) shellCommand {
	sc := shellCommand{whole: strings.TrimSpace(collapseSpaces(cmd))}
	w := walker{}
	if err := w.script(cmd, []string{dir}, 0); err != nil {
		sc.unparsed = err.Error()
		return sc
	}
	sc.parts = w.parts
	sc.dotGlob = w.dotGlob
	return sc
}

// walker collects the simple commands of a syntax tree.
type walker struct {
	parts []simpleCommand
	// dirs are the folders the next command may run in (see
	// simpleCommand.dirs).
	dirs []string
	// dotGlob: see shellCommand.
	dotGlob bool
}

// script parses src and walks it as commands run at depth (0 for the Bash
// call's own command).
func (w *walker) script(src string, dirs []string, depth int) error {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		return err
	}
	w.dirs = dirs
	w.stmts(f.Stmts, nil, depth)
	return nil
}

func (w *walker) stmts(list []*syntax.Stmt, redirs []*syntax.Redirect, depth int) {
	for _, s := range list {
		w.stmt(s, redirs, depth)
	}
}

// stmt walks one statement; redirs are those of the compound commands
// around it, which apply to it too.
func (w *walker) stmt(s *syntax.Stmt, outer []*syntax.Redirect, depth int) {
	redirs := outer
	if len(s.Redirs) > 0 {
		redirs = append(slices.Clip(outer), s.Redirs...)
	}
	switch c := s.Cmd.(type) {
	case nil:
		w.call(&syntax.CallExpr{}, redirs, depth)
	case *syntax.CallExpr:
		w.call(c, redirs, depth)
	case *syntax.DeclClause:
		// export, declare, local, readonly: a command whose arguments
		// are assignments.
		ce := &syntax.CallExpr{Args: []*syntax.Word{litWord(c.Variant.Value)}}
		sc := w.newPart(redirs, depth)
		w.command(&sc, ce, depth)
		for _, a := range c.Args {
			w.assign(&sc, a, true)
		}
		w.parts = append(w.parts, sc)
	case *syntax.Block:
		w.stmts(c.Stmts, redirs, depth)
	case *syntax.Subshell:
		w.stmts(c.Stmts, redirs, depth)
	case *syntax.BinaryCmd:
		w.stmt(c.X, redirs, depth)
		w.stmt(c.Y, redirs, depth)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond, redirs, depth)
			w.stmts(c.Then, redirs, depth)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, redirs, depth)
		w.stmts(c.Do, redirs, depth)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			for _, item := range wi.Items {
				w.substitutions(item, depth)
			}
		} else {
			w.unknowable(c.Loop, redirs, depth)
		}
		w.stmts(c.Do, redirs, depth)
	case *syntax.CaseClause:
		w.substitutions(c.Word, depth)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.substitutions(p, depth)
			}
			w.stmts(item.Stmts, redirs, depth)
		}
	case *syntax.FuncDecl:
		w.stmt(c.Body, redirs, depth)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt, redirs, depth)
		}
	case *syntax.TestClause:
		w.testClause(c, redirs, depth)
	default:
		// (( )), let, coproc: arithmetic evaluates the text of variables
		// as expressions, which can run commands; judged as a whole.
		w.unknowable(c, redirs, depth)
	}
}

// unknowable records a construct no rule can cover, after walking the
// commands substituted inside it.
func (w *walker) unknowable(n syntax.Node, redirs []*syntax.Redirect, depth int) {
	sc := w.newPart(redirs, depth)
	sc.static = false
	w.substitutions(n, depth)
	w.parts = append(w.parts, sc)
}

// testClause judges [[ … ]]: a test of literal words runs nothing, but
// the arithmetic operators evaluate their operands as expressions.
func (w *walker) testClause(c *syntax.TestClause, redirs []*syntax.Redirect, depth int) {
	plain := true
	syntax.Walk(c.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				plain = false
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				plain = false
			}
		case *syntax.Word:
			if _, _, ok := w.word(n, 0); !ok {
				plain = false
			}
			return false
		}
		return true
	})
	w.substitutions(c.X, depth)
	if !plain {
		w.unknowable(&syntax.Lit{}, redirs, depth)
	}
}

// newPart starts a simple command at the walker's folders, with the
// redirections that apply to it.
func (w *walker) newPart(redirs []*syntax.Redirect, depth int) simpleCommand {
	sc := simpleCommand{static: true, dirs: w.dirs}
	for _, r := range redirs {
		w.redirect(&sc, r, depth)
	}
	return sc
}

// call walks a simple command.
func (w *walker) call(ce *syntax.CallExpr, redirs []*syntax.Redirect, depth int) {
	sc := w.newPart(redirs, depth)
	for _, a := range ce.Assigns {
		w.assign(&sc, a, false)
	}
	w.command(&sc, ce, depth)
	if sc.nested(w, redirs, depth) {
		return
	}
	w.parts = append(w.parts, sc)
	w.followCd(&sc)
	if len(sc.argv) > 0 && sc.argv[0] == "shopt" || sc.opaque {
		w.dotGlob = true
	}
}

// command fills in argv from the words of ce.
func (w *walker) command(sc *simpleCommand, ce *syntax.CallExpr, depth int) {
	for i, word := range ce.Args {
		w.substitutions(word, depth)
		vals, glob, ok := w.word(word, i)
		switch {
		case !ok && i == 0:
			sc.opaque = true
			sc.static = false
			sc.argv = append(sc.argv, "")
			continue
		case !ok:
			sc.static = false
			sc.argv = append(sc.argv, "")
			continue
		case len(vals) != 1:
			// A brace expansion: bash makes several words of it.
			sc.static = false
		case glob && i == 0:
			sc.static = false
		}
		if glob {
			sc.globs = append(sc.globs, vals...)
		}
		sc.argv = append(sc.argv, vals...)
		sc.names = append(sc.names, vals...)
	}
}

// assign judges an assignment before a command (or an argument of export
// and declare): its value must be literal and its name must not change how
// commands are found or run.
func (w *walker) assign(sc *simpleCommand, a *syntax.Assign, decl bool) {
	if a.Value != nil {
		w.substitutions(a.Value, 0)
		vals, _, ok := w.word(a.Value, 1)
		if !ok || len(vals) != 1 {
			sc.static = false
		} else {
			sc.names = append(sc.names, vals[0])
			if decl && a.Naked {
				if name, _, found := strings.Cut(vals[0], "="); found && riskyVariable(name) {
					sc.static = false
				}
				sc.argv = append(sc.argv, vals[0])
				return
			}
		}
	}
	if a.Array != nil || a.Index != nil {
		w.substitutions(a, 0)
		sc.static = false
	}
	if a.Name != nil {
		if a.Name.Value == "GLOBIGNORE" {
			w.dotGlob = true
		}
		if riskyVariable(a.Name.Value) {
			sc.static = false
		}
		if decl {
			val := ""
			if a.Value != nil {
				if vals, _, ok := w.word(a.Value, 1); ok && len(vals) == 1 {
					val = vals[0]
				}
			}
			sc.argv = append(sc.argv, a.Name.Value+"="+val)
		}
	}
}

// riskyVariable reports an environment variable that changes which
// program a command runs or what it loads: an assignment to one keeps a
// prefix rule from covering the command.
func riskyVariable(name string) bool {
	switch name {
	case "PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"GLOBIGNORE", "CDPATH", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "EDITOR", "VISUAL", "PAGER",
		"LESSOPEN", "LESSCLOSE", "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP",
		"PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS",
		"MAKEFLAGS", "MAKEFILES", "TMPDIR", "GOFLAGS", "GOTOOLCHAIN", "GOENV", "RUSTC_WRAPPER", "RUSTC",
		"RUSTFLAGS", "CC", "CXX", "SHELL":
		return true
	}
	for _, prefix := range []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_", "NPM_CONFIG_", "npm_config_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return strings.HasSuffix(name, "_PAGER") || strings.HasSuffix(name, "_EDITOR")
}

// redirect records a redirection's target.
func (w *walker) redirect(sc *simpleCommand, r *syntax.Redirect, depth int) {
	if r.Hdoc != nil {
		// A here-document's body is data, but bash expands an unquoted
		// one, running the commands substituted in it.
		w.substitutions(r.Hdoc, depth)
	}
	if r.Word == nil {
		return
	}
	w.substitutions(r.Word, depth)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return
	case syntax.WordHdoc:
		if _, _, ok := w.word(r.Word, 1); !ok {
			sc.static = false
		}
		return
	}
	vals, glob, ok := w.word(r.Word, 1)
	if ok && len(vals) == 1 {
		op := r.Op.String()
		if r.N != nil {
			op = r.N.Value + op
		}
		sc.redirs = append(sc.redirs, op, vals[0])
	}
	switch {
	case !ok:
		sc.static = false
	case (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && len(vals) == 1 && (vals[0] == "-" || isDigits(vals[0])):
		// >&2, <&0, >&-: a file descriptor, not a file.
	default:
		if len(vals) != 1 {
			sc.static = false
		}
		if glob {
			sc.globs = append(sc.globs, vals...)
		}
		sc.targets = append(sc.targets, vals...)
	}
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// substitutions walks the commands substituted anywhere inside n: $(…),
// backticks, <(…) and >(…).
func (w *walker) substitutions(n syntax.Node, depth int) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.inner(n.Stmts, depth)
			return false
		case *syntax.ProcSubst:
			w.inner(n.Stmts, depth)
			return false
		}
		return true
	})
}

// inner walks commands that run in a subshell of their own: a cd there
// does not move the commands after it.
func (w *walker) inner(list []*syntax.Stmt, depth int) {
	saved := w.dirs
	w.stmts(list, nil, depth)
	w.dirs = saved
}

// word returns what bash makes of a word when it is literal after quote
// removal (several words for a brace expansion), and whether it is an
// unquoted glob. ok is false for a word bash computes: a parameter,
// substitution or arithmetic, an extended glob, a tilde naming another
// user's home. i is the word's position in its command (tilde expansion
// happens only at the start of a word).
func (w *walker) word(word *syntax.Word, i int) (vals []string, glob, ok bool) {
	simple := len(word.Parts) == 1
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\{~`) {
				simple = false
			}
			if hasGlob(p.Value) {
				glob = true
			}
		case *syntax.SglQuoted:
			simple = false
		case *syntax.DblQuoted:
			simple = false
			for _, in := range p.Parts {
				if _, lit := in.(*syntax.Lit); !lit {
					return nil, false, false
				}
			}
		default:
			return nil, false, false
		}
	}
	if lit, ok := word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		user, _, _ := strings.Cut(lit.Value[1:], "/")
		if user != "" && !strings.ContainsAny(user, ":") {
			// ~user: another user's home, known only at run time.
			return nil, false, false
		}
	}
	if simple {
		return []string{word.Parts[0].(*syntax.Lit).Value}, glob, true
	}
	split := &syntax.Word{Parts: slices.Clone(word.Parts)}
	if syntax.SplitBraces(split) && braceWords(split) > maxBraceWords {
		// {1..99999999} or {a,b}{a,b}…: too many words to look at.
		return nil, false, false
	}
	fields, err := expand.Fields(&expand.Config{}, word)
	if err != nil {
		return nil, false, false
	}
	if len(fields) == 0 {
		// An empty unquoted word (only a line continuation) is no word.
		fields = []string{""}
	}
	return fields, glob, true
}

// maxBraceWords bounds the words a brace expansion may make for the
// decision to read them; a larger one counts as computed.
const maxBraceWords = 64

// braceWords counts the words a word's brace expansions make, up to a
// little past maxBraceWords.
func braceWords(word *syntax.Word) int {
	n := 1
	for _, part := range word.Parts {
		be, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if be.Sequence {
			k = maxBraceWords + 1
			if len(be.Elems) >= 2 {
				from, to := be.Elems[0].Lit(), be.Elems[1].Lit()
				a, errA := strconv.Atoi(from)
				b, errB := strconv.Atoi(to)
				switch {
				case errA == nil && errB == nil:
					k = min(max(a-b, b-a)+1, maxBraceWords+1)
				case len(from) == 1 && len(to) == 1:
					k = max(int(from[0])-int(to[0]), int(to[0])-int(from[0])) + 1
				}
			}
		} else {
			for _, e := range be.Elems {
				k += braceWords(e)
			}
		}
		n = min(n*k, maxBraceWords+1)
	}
	return n
}

// hasGlob reports unquoted pattern characters in a literal: *, ?, or a
// bracket expression.
func hasGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	open := strings.IndexByte(s, '[')
	return open >= 0 && strings.IndexByte(s[open:], ']') > 0
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// durationWord reports timeout's duration argument.
func durationWord(s string) bool {
	s = strings.TrimRight(s, "smhd")
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// shells are the programs whose -c string is parsed as a command.
var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true}

// nested takes off the wrappers in front of sc's command. When the command
// hands a literal string to a shell (bash -c, eval, a here-doc or
// here-string fed to bash), the string's commands are walked in sc's place
// and nested reports true. An unreadable string leaves sc opaque.
func (sc *simpleCommand) nested(w *walker, redirs []*syntax.Redirect, depth int) bool {
	argv := sc.argv
	for len(argv) > 0 {
		rest, script, kind := unwrap(argv)
		switch kind {
		case wrapNone:
			if len(argv) != len(sc.argv) {
				sc.full, sc.argv = sc.argv, argv
			}
			sc.gitConfigWrite = gitConfigWrite(sc.argv)
			if shells[path.Base(argv[0])] && readsStdin(argv[1:]) {
				// A shell running what its input holds: a here-document
				// or here-string is read as commands; anything else (a
				// pipe, a file) cannot be known.
				body, ok := feedsShell(w, redirs)
				return sc.runScript(w, body, ok && len(argv) == 1, depth)
			}
			if argv[0] == "find" {
				w.findExec(sc)
			}
			return false
		case wrapArgs:
			argv = rest
		case wrapXargs:
			argv = rest
			sc.appended = true
		case wrapScript:
			return sc.runScript(w, script, rest != nil, depth)
		case wrapOpaque:
			sc.opaque, sc.static = true, false
			return false
		}
	}
	if len(argv) == 0 && len(sc.argv) > 0 {
		// A wrapper with nothing to run (time, nohup alone).
		sc.full, sc.argv = sc.argv, nil
	}
	return false
}

// findExec adds the commands find runs for -exec, -execdir, -ok and
// -okdir: find puts file names in place of {}, so, as with xargs, only a
// prefix or wildcard rule covers them.
func (w *walker) findExec(sc *simpleCommand) {
	args := sc.argv
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		end := i + 1
		for end < len(args) && args[end] != ";" && args[end] != "+" {
			end++
		}
		if end > i+1 {
			w.parts = append(w.parts, simpleCommand{argv: args[i+1 : end], static: sc.static, opaque: sc.opaque, appended: true, dirs: sc.dirs})
		}
		i = end
	}
}

// runScript walks a shell string in sc's place; known is false when the
// string is computed.
func (sc *simpleCommand) runScript(w *walker, script string, known bool, depth int) bool {
	if !known || depth+1 > maxShellDepth || !sc.static {
		sc.opaque, sc.static = true, false
		return false
	}
	dirs := w.dirs
	sub := walker{}
	if err := sub.script(script, dirs, depth+1); err != nil {
		sc.opaque, sc.static = true, false
		return false
	}
	// The shell's own redirections apply to its commands, and stay even
	// when it runs none.
	if len(sub.parts) == 0 {
		sub.parts = append(sub.parts, simpleCommand{static: true, dirs: dirs})
	}
	for i := range sub.parts {
		sub.parts[i].targets = append(slices.Clip(sub.parts[i].targets), sc.targets...)
	}
	w.parts = append(w.parts, sub.parts...)
	w.dirs = union(dirs, sub.dirs)
	w.dotGlob = w.dotGlob || sub.dotGlob
	return true
}

// readsStdin reports whether a shell with these arguments reads its
// commands from its input: options only (no -c, no script file).
func readsStdin(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") || strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			return false
		}
	}
	return true
}

// feedsShell returns the literal text a here-document or here-string
// gives a shell to run.
func feedsShell(w *walker, redirs []*syntax.Redirect) (string, bool) {
	for _, r := range redirs {
		var word *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			word = r.Hdoc
		case syntax.WordHdoc:
			word = r.Word
		default:
			continue
		}
		if word == nil {
			return "", true
		}
		if r.Op != syntax.WordHdoc {
			// A here-document's body is not subject to quote removal; an
			// unquoted one's backslashes escape $, ` and \ (bash hands
			// `\$(cmd)` to the shell as `$(cmd)`).
			for _, p := range word.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					return "", false
				}
			}
			if r.Word.Lit() == "" || strings.Contains(r.Word.Lit(), `\`) {
				// A quoted delimiter ('EOF', "EOF", \EOF): the body as written.
				var b strings.Builder
				for _, p := range word.Parts {
					b.WriteString(p.(*syntax.Lit).Value)
				}
				return b.String(), true
			}
			body, err := expand.Document(&expand.Config{}, word)
			return body, err == nil
		}
		vals, _, ok := w.word(word, 1)
		if !ok || len(vals) != 1 {
			return "", false
		}
		return vals[0], true
	}
	return "", false
}

type wrapKind int

const (
	wrapNone   wrapKind = iota // argv is the command itself
	wrapArgs                   // rest is the command the wrapper runs
	wrapXargs                  // rest is run with more arguments appended
	wrapScript                 // script is a shell string to run
	wrapOpaque                 // the wrapper runs something that cannot be known
)

// unwrap recognises a command that only runs another one: nohup, time,
// nice, timeout, command, builtin, exec, env NAME=VALUE…, xargs, a shell's
// -c string and eval. For wrapScript, rest is non-nil when the script is
// literal.
func unwrap(argv []string) (rest []string, script string, kind wrapKind) {
	name := argv[0]
	args := argv[1:]
	switch name {
	case "nohup", "builtin":
		return args, "", wrapArgs
	case "time":
		if len(args) > 0 && args[0] == "-p" {
			args = args[1:]
		}
		return args, "", wrapArgs
	case "command", "exec":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			return nil, "", wrapNone
		}
		return args, "", wrapArgs
	case "nice":
		switch {
		case len(args) > 1 && args[0] == "-n":
			args = args[2:]
		case len(args) > 0 && (strings.HasPrefix(args[0], "-n") || strings.HasPrefix(args[0], "--adjustment=") || isDigits(strings.TrimPrefix(args[0], "-"))):
			args = args[1:]
		case len(args) > 0 && strings.HasPrefix(args[0], "-"):
			return nil, "", wrapNone
		}
		return args, "", wrapArgs
	case "timeout":
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			switch a := args[0]; {
			case a == "-s" || a == "-k" || a == "--signal" || a == "--kill-after":
				if len(args) < 2 {
					return nil, "", wrapNone
				}
				args = args[2:]
			case a == "--foreground" || a == "--preserve-status" || a == "-v" || a == "--verbose" ||
				strings.HasPrefix(a, "--signal=") || strings.HasPrefix(a, "--kill-after=") ||
				strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "-k"):
				args = args[1:]
			default:
				return nil, "", wrapNone
			}
		}
		if len(args) == 0 || !durationWord(args[0]) {
			return nil, "", wrapNone
		}
		return args[1:], "", wrapArgs
	case "env":
		for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
			if riskyVariable(args[0][:strings.IndexByte(args[0], '=')]) {
				return nil, "", wrapNone
			}
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return nil, "", wrapNone
		}
		return args, "", wrapArgs
	case "xargs":
		return unwrapXargs(args)
	case "eval":
		// eval joins its arguments with spaces and runs the result.
		return args, strings.Join(args, " "), wrapScript
	case "trap":
		// trap's first argument runs later, at the signal.
		if len(args) > 1 && !strings.HasPrefix(args[0], "-") {
			return args, args[0], wrapScript
		}
		return nil, "", wrapNone
	case "alias":
		// An alias's text runs wherever its name is used (with shopt -s
		// expand_aliases): it is judged as commands here.
		var bodies []string
		for _, a := range args {
			if _, body, ok := strings.Cut(a, "="); ok {
				bodies = append(bodies, body)
			}
		}
		return args, strings.Join(bodies, "\n"), wrapScript
	}
	if shells[path.Base(name)] {
		return unwrapShell(args)
	}
	return nil, "", wrapNone
}

// unwrapShell finds the -c string of a shell started with only harmless
// options; a shell that reads startup files (-l, -i, --rcfile) or a
// script file is the command itself.
func unwrapShell(args []string) ([]string, string, wrapKind) {
	c := false
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--"; i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o":
			if i+1 >= len(args) || args[i+1] != "pipefail" && args[i+1] != "errexit" && args[i+1] != "nounset" {
				return nil, "", wrapNone
			}
			i++
		case strings.Trim(a[1:], "ceuxv") == "" && len(a) > 1:
			c = c || strings.Contains(a, "c")
		default:
			return nil, "", wrapNone
		}
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	if !c {
		return nil, "", wrapNone
	}
	if i >= len(args) {
		return nil, "", wrapOpaque
	}
	return args[i:], args[i], wrapScript
}

// unwrapXargs finds the command xargs runs (echo when none is given).
// Replacing input into the arguments (-I) makes them unknown.
func unwrapXargs(args []string) ([]string, string, wrapKind) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			if len(args) == 0 {
				return []string{"echo"}, "", wrapXargs
			}
			return args, "", wrapXargs
		case a == "-0", a == "-r", a == "-t", a == "-x", a == "--null", a == "--no-run-if-empty", a == "--verbose", a == "--exit":
			args = args[1:]
		case a == "-a" || a == "-d" || a == "-E" || a == "-L" || a == "-n" || a == "-P" || a == "-s":
			if len(args) < 2 {
				return nil, "", wrapNone
			}
			args = args[2:]
		case strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--replace"):
			return nil, "", wrapOpaque
		case len(a) > 2 && strings.ContainsAny(a[1:2], "adELnPs") && !strings.HasPrefix(a, "--"),
			strings.HasPrefix(a, "--max-args="), strings.HasPrefix(a, "--max-procs="), strings.HasPrefix(a, "--delimiter="),
			strings.HasPrefix(a, "--arg-file="), strings.HasPrefix(a, "--max-lines="), strings.HasPrefix(a, "--max-chars="):
			args = args[1:]
		default:
			return nil, "", wrapNone
		}
	}
	if len(args) == 0 {
		return []string{"echo"}, "", wrapXargs
	}
	return args, "", wrapXargs
}

// followCd records where a cd or pushd leads for the commands after it.
// The folder before stays possible: the cd may fail, and ; and || go on.
func (w *walker) followCd(sc *simpleCommand) {
	argv := sc.argv
	if len(argv) == 0 {
		return
	}
	switch argv[0] {
	case "cd", "pushd", "popd":
	default:
		return
	}
	to := ""
	known := sc.static && argv[0] != "popd"
	args := argv[1:]
	for len(args) > 0 && known {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if isDigits(a[1:]) {
			// pushd -N rotates the stack.
			known = false
		}
		args = args[1:]
	}
	switch {
	case !known || len(args) == 0 && argv[0] == "pushd":
		to = unknownDir
	case len(args) == 0:
		to = "~"
	case args[0] == "-" || strings.HasPrefix(args[0], "+"):
		to = unknownDir
	default:
		to = args[0]
	}
	next := make([]string, 0, len(w.dirs)*2)
	next = append(next, w.dirs...)
	for _, d := range w.dirs {
		switch {
		case to == unknownDir || d == unknownDir:
			next = append(next, unknownDir)
		case path.IsAbs(to) || to == "~" || strings.HasPrefix(to, "~/"):
			next = append(next, to)
		case d == "":
			next = append(next, to)
		default:
			// Not path.Join: a clean would take ".." before the kernel
			// follows the links in front of it.
			next = append(next, d+"/"+to)
		}
	}
	w.dirs = union(nil, next)
}

// union returns the folders of a and b, each once, at most maxDirs of them
// (then unknownDir stands for the rest).
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, d := range slices.Concat(a, b) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > maxDirs {
		out = append(out[:maxDirs-1], unknownDir)
	}
	return out
}

// text is the command as rules see it: its words joined by spaces.
func (sc *simpleCommand) text() string {
	return strings.Join(sc.argv, " ")
}

// shellText writes argv back as a command bash reads as the same words,
// followed by redirs (operator, target, ...), for the rules a prompt
// suggests.
func shellText(argv []string, redirs ...string) string {
	quoted := make([]string, len(argv), len(argv)+len(redirs))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = a
		}
		quoted[i] = q
	}
	for i := 0; i+1 < len(redirs); i += 2 {
		q, err := syntax.Quote(redirs[i+1], syntax.LangBash)
		if err != nil {
			q = redirs[i+1]
		}
		quoted = append(quoted, redirs[i]+" "+q)
	}
	return strings.Join(quoted, " ")
}

// commandWords reads a rule's command specifier as bash would read it as a
// command: its words after quote removal. A specifier that is not one
// literal simple command is split at spaces.
func commandWords(spec string) []string {
	sc := parseCommand(spec, "")
	if sc.unparsed == "" && len(sc.parts) == 1 && sc.parts[0].static && sc.parts[0].full == nil {
		return slices.Concat(sc.parts[0].argv, sc.parts[0].redirs)
	}
	return strings.Fields(spec)
}

// collapseSpaces turns runs of spaces and tabs into one space (quoted text
// included: it only serves exact comparisons with rules).
func collapseSpaces(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}
