// Package shellcmd reads a Bash command as bash itself reads it, on
// mvdan.cc/sh's syntax tree, into the simple commands bash would run: their
// words after quote removal, the files their redirections open, the folders
// a cd before them leads to, and whether each is literal (Static) or
// computed at run time (Opaque). The strings given to bash -c, sh -c, eval,
// trap and alias, here-documents fed to a shell, and find -exec are read in
// turn. It knows bash, not rules: the permission checker matches its rules
// against what Parse returns, so quoting, comments, here-docs and $'…'
// cannot make a rule see something other than what bash runs.
package shellcmd

import (
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Command is a Bash command as bash itself reads it: the simple commands
// it runs, found on mvdan.cc/sh's syntax tree.
type Command struct {
	// Whole is the command with runs of spaces and tabs collapsed, for
	// rules that name the whole command and for messages.
	Whole string
	// Parts are the simple commands bash would run, those inside
	// substitutions, subshells, functions, loops, and strings given to
	// bash -c, sh -c and eval included.
	Parts []Simple
	// DotGlob is set when the command may make globs match dot files
	// (shopt, GLOBIGNORE).
	DotGlob bool
	// Unparsed holds bash's complaint when the command does not parse.
	Unparsed string
}

// Simple is one command bash would run.
type Simple struct {
	// Argv are its words after quote removal, with the wrappers that only
	// run another command (timeout, env NAME=VALUE, xargs, ...) taken off:
	// what rules are matched against. Full is Argv with its wrappers.
	Argv, Full []string
	// Static: every word, assignment and redirection target is literal
	// after quote removal (no parameter, substitution or brace expansion,
	// no glob as the command's name) and no assignment changes how the
	// command is found or run (PATH, LD_PRELOAD, ...): only then can a
	// prefix rule cover it.
	Static bool
	// Opaque: what it runs cannot be known before it runs (a computed name,
	// a computed string handed to a shell, nesting too deep). No rule can
	// see inside it, deny rules included.
	Opaque bool
	// Appended: xargs or find -exec adds words to it, so only prefix and
	// wildcard rules cover it.
	Appended bool
	// Names are the literal words that may name files (arguments, brace
	// expansions expanded, and assigned values); Targets the files its
	// redirections open; Redirs its redirections other than here-documents
	// as operator and target ("2>", "log"), which an exact rule names too;
	// Globs the words bash matches against the files there.
	Names, Targets, Redirs, Globs []string
	// Dirs are the folders it may run in: "" for the first root, a path
	// relative to it or absolute, UnknownDir after a cd the parser cannot
	// follow. A cd that may fail keeps the folder before it in the list.
	Dirs []string
}

// UnknownDir stands for a folder a cd leads to that the command computes.
const UnknownDir = "?"

// Bounds on the reading: bash -c and eval strings parsed in turn (deeper
// ones are opaque), folders followed through cd (past it the folder is
// unknown), words a brace expansion may make (a larger one counts as
// computed: {1..99999999}).
const (
	maxShellDepth = 4
	maxDirs       = 8
	maxBraceWords = 64
)

// parsers reuses mvdan.cc/sh parsers, which are not safe for concurrent
// use but cost allocations to make.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Parse reads a Bash command as bash would, starting in the
// absolute folder dir ("" for the first root).
func Parse(cmd, dir string) Command {
	sc := Command{Whole: strings.TrimSpace(CollapseSpaces(cmd))}
	w := walker{dirs: []string{dir}, frames: make([]frame, 0, 16)}
	if err := w.script(cmd); err != nil {
		sc.Unparsed = err.Error()
		return sc
	}
	sc.Parts, sc.DotGlob = w.parts, w.dotGlob
	return sc
}

// walker collects the simple commands of a syntax tree in the order bash
// runs them: what a command substitutes before the command.
type walker struct {
	parts []Simple
	// dirs are the folders the next command may run in.
	dirs    []string
	dotGlob bool
	depth   int
	// redirs are those of the statements around the node walked, which
	// apply to the commands inside; frames the nodes entered.
	redirs []*syntax.Redirect
	frames []frame
}

// frame is a node the walk entered, with what to restore when it leaves.
type frame struct {
	node   syntax.Node
	redirs []*syntax.Redirect
	dirs   []string
}

// script parses src and walks it.
func (w *walker) script(src string) error {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err == nil {
		syntax.Walk(f, w.visit)
	}
	return err
}

// visit is syntax.Walk's callback: a node on the way down, nil on the way
// back up from the last node entered.
func (w *walker) visit(n syntax.Node) bool {
	if n == nil {
		fr := w.frames[len(w.frames)-1]
		w.frames = w.frames[:len(w.frames)-1]
		w.redirs = fr.redirs
		switch c := fr.node.(type) {
		case *syntax.CallExpr:
			w.call(c.Assigns, c.Args, "")
		case *syntax.DeclClause:
			w.call(c.Args, nil, c.Variant.Value)
		case *syntax.CmdSubst, *syntax.ProcSubst:
			// It ran in a subshell: a cd there moves nothing after it.
			w.dirs = fr.dirs
		}
		return true
	}
	w.frames = append(w.frames, frame{node: n, redirs: w.redirs, dirs: w.dirs})
	switch c := n.(type) {
	case *syntax.Stmt:
		if len(c.Redirs) > 0 {
			w.redirs = append(slices.Clip(w.redirs), c.Redirs...)
		}
		if c.Cmd == nil {
			// Redirections alone (> file): no command a rule names.
			w.parts = append(w.parts, w.newPart())
		}
	case *syntax.CmdSubst, *syntax.ProcSubst:
		w.redirs = nil
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.CoprocClause, *syntax.CStyleLoop:
		// Arithmetic evaluates the text of variables as expressions, which
		// can run commands: no rule covers it.
		w.unknowable()
	case *syntax.TestClause:
		if !w.plainTest(c) {
			w.unknowable()
		}
	}
	return true
}

// unknowable records a construct no rule can cover.
func (w *walker) unknowable() {
	w.parts = append(w.parts, w.newPart())
	w.parts[len(w.parts)-1].Static = false
}

// plainTest reports a [[ … ]] of literal words without the operators that
// evaluate their operands as arithmetic.
func (w *walker) plainTest(c *syntax.TestClause) bool {
	plain := true
	syntax.Walk(c.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			plain = plain && (n.Op < syntax.TsEql || n.Op > syntax.TsGtr)
		case *syntax.UnaryTest:
			plain = plain && n.Op != syntax.TsVarSet && n.Op != syntax.TsRefVar
		case *syntax.Word:
			_, _, ok := literal(n, 0)
			plain = plain && ok
			return false
		}
		return true
	})
	return plain
}

// newPart starts a simple command at the walker's folders, with the
// redirections that apply to it.
func (w *walker) newPart() Simple {
	sc := Simple{Static: true, Dirs: w.dirs}
	for _, r := range w.redirs {
		sc.redirect(r)
	}
	return sc
}

// call records a simple command: assignments and words, or for export,
// declare, local and readonly (decl) the assignments that are its
// arguments.
func (w *walker) call(assigns []*syntax.Assign, args []*syntax.Word, decl string) {
	sc := w.newPart()
	if decl != "" {
		sc.Argv = []string{decl}
	}
	for _, a := range assigns {
		sc.assign(w, a, decl != "")
	}
	for i, word := range args {
		vals, glob, ok := literal(word, i)
		switch {
		case !ok:
			sc.Static, sc.Opaque = false, sc.Opaque || i == 0
			vals = []string{""}
		case len(vals) != 1 || glob && i == 0:
			// A brace expansion makes several words; a glob names a
			// program by the files there.
			sc.Static = false
		}
		if glob {
			sc.Globs = append(sc.Globs, vals...)
		}
		sc.Argv = append(sc.Argv, vals...)
		if ok {
			sc.Names = append(sc.Names, vals...)
		}
	}
	if w.unwrap(&sc) {
		return
	}
	w.parts = append(w.parts, sc)
	w.followCd(&sc)
	if len(sc.Argv) > 0 && sc.Argv[0] == "shopt" || sc.Opaque {
		w.dotGlob = true
	}
}

// assign judges an assignment before a command (or an argument of
// export and declare, decl): its value must be literal and its name must
// not change how commands are found or run.
func (sc *Simple) assign(w *walker, a *syntax.Assign, decl bool) {
	val, known := "", a.Value == nil
	if a.Value != nil {
		if vals, _, ok := literal(a.Value, 1); ok && len(vals) == 1 {
			val, known = vals[0], true
			sc.Names = append(sc.Names, val)
		}
	}
	name := ""
	if a.Name != nil {
		name = a.Name.Value
	}
	naked := decl && a.Naked && a.Value != nil
	if naked {
		// declare "$x" or declare 'PATH=/tmp': the word is the assignment.
		name, _, _ = strings.Cut(val, "=")
	}
	if !known || a.Array != nil || a.Index != nil || riskyVariable(name) {
		sc.Static = false
	}
	if name == "GLOBIGNORE" {
		w.dotGlob = true
	}
	if naked {
		sc.Argv = append(sc.Argv, val)
	} else if decl {
		sc.Argv = append(sc.Argv, name+"="+val)
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

// redirect records a redirection's target. A here-document's body is
// data (the commands bash substitutes in an unquoted one are walked as
// any substitution).
func (sc *Simple) redirect(r *syntax.Redirect) {
	if r.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
		return
	}
	vals, glob, ok := literal(r.Word, 1)
	op := r.Op.String()
	if r.N != nil {
		op = r.N.Value + op
	}
	switch {
	case !ok:
		sc.Static = false
		return
	case r.Op == syntax.WordHdoc:
		return
	case len(vals) != 1:
		sc.Static = false
	case (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && (vals[0] == "-" || isDigits(vals[0])):
		// >&2, <&0, >&-: a file descriptor, not a file.
		sc.Redirs = append(sc.Redirs, op, vals[0])
		return
	default:
		sc.Redirs = append(sc.Redirs, op, vals[0])
	}
	if glob {
		sc.Globs = append(sc.Globs, vals...)
	}
	sc.Targets = append(sc.Targets, vals...)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// literal returns what bash makes of a word when it is literal after
// quote removal (several words for a brace expansion), and whether it
// holds an unquoted glob. ok is false for a word bash computes: a
// parameter, substitution or arithmetic, an extended glob, another user's
// home (~user), a brace expansion of more than maxBraceWords words. i is
// the word's position in its command (~ expands only at a word's start).
func literal(word *syntax.Word, i int) (vals []string, glob, ok bool) {
	if len(word.Parts) == 1 {
		if lit, isLit := word.Parts[0].(*syntax.Lit); isLit && !strings.ContainsAny(lit.Value, `\{~`) {
			return []string{lit.Value}, hasGlob(lit.Value), true
		}
	}
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			glob = glob || hasGlob(p.Value)
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				if _, isLit := in.(*syntax.Lit); !isLit {
					return nil, false, false
				}
			}
		case *syntax.SglQuoted:
		default:
			return nil, false, false
		}
	}
	if lit, isLit := word.Parts[0].(*syntax.Lit); isLit && strings.HasPrefix(lit.Value, "~") {
		if user, _, _ := strings.Cut(lit.Value[1:], "/"); user != "" && !strings.Contains(user, ":") {
			return nil, false, false
		}
	}
	for field, err := range expand.FieldsSeq(&expand.Config{}, word) {
		if err != nil || len(vals) == maxBraceWords {
			return nil, false, false
		}
		vals = append(vals, field)
	}
	if len(vals) == 0 {
		// An empty unquoted word (only a line continuation) is no word.
		vals = []string{""}
	}
	return vals, glob, true
}

// hasGlob reports unquoted pattern characters in a literal: *, ?, or a
// bracket expression.
func hasGlob(s string) bool {
	open := strings.IndexByte(s, '[')
	return strings.ContainsAny(s, "*?") || open >= 0 && strings.IndexByte(s[open:], ']') > 0
}

// wrapper describes a command that only runs the command after its
// options: those without a value (flags), those with one (valued), and
// what else comes before the command.
type wrapper struct {
	flags, valued string
	// opaque options make the command unknowable (xargs -I puts input in
	// its words).
	opaque string
	// assigns: NAME=VALUE words (env); duration: a duration (timeout);
	// digits: an option that is a number (nice -5).
	assigns, duration, digits bool
	// appends: it adds words read from its input (xargs; echo when no
	// command is given).
	appends bool
}

// wrappers are the commands unwrap takes off. Any other option makes the
// wrapper the command itself, which only a rule naming it covers.
var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"nohup": {}, "builtin": {}, "command": {}, "exec": {},
		"time":    {flags: "-p"},
		"nice":    {valued: "-n --adjustment", digits: true},
		"timeout": {flags: "--foreground --preserve-status -v --verbose", valued: "-s -k --signal --kill-after", duration: true},
		"env":     {assigns: true},
		"xargs": {flags: "-0 -r -t -x --null --no-run-if-empty --verbose --exit", appends: true, opaque: "-I -i --replace",
			valued: "-a -d -E -L -n -P -s --max-args --max-procs --delimiter --arg-file --max-lines --max-chars"},
	}
})

// rest returns the command the wrapper runs, given its arguments; ok is
// false when args are not only what the wrapper takes before a command.
func (wr wrapper) rest(args []string) (cmd []string, opaque, ok bool) {
options:
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		name, _, attached := strings.Cut(a, "=")
		short := a[:2]
		switch {
		case a == "--":
			args = args[1:]
			break options
		case has(wr.opaque, name) || has(wr.opaque, short):
			return nil, true, true
		case has(wr.flags, a), has(wr.valued, name) && attached, wr.digits && isDigits(a[1:]),
			a[1] != '-' && len(a) > 2 && has(wr.valued, short):
			args = args[1:]
		case has(wr.valued, a) && len(args) > 1:
			args = args[2:]
		default:
			return nil, false, false
		}
	}
	for wr.assigns && len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
		if name, _, _ := strings.Cut(args[0], "="); riskyVariable(name) {
			return nil, false, false
		}
		args = args[1:]
	}
	if wr.duration {
		if len(args) == 0 || !durationWord(args[0]) {
			return nil, false, false
		}
		args = args[1:]
	}
	if wr.appends && len(args) == 0 {
		return []string{"echo"}, false, true
	}
	if wr.assigns && (len(args) == 0 || strings.HasPrefix(args[0], "-")) {
		return nil, false, false
	}
	return args, false, true
}

// has reports whether word is one of the space-separated words of list.
func has(list, word string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == word {
			return true
		}
	}
	return false
}

// durationWord reports timeout's duration argument.
func durationWord(s string) bool {
	s = strings.TrimRight(s, "smhd")
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// isShell reports whether k is a program whose -c string is parsed as a
// command.
func isShell(k string) bool {
	switch k {
	case "bash", "sh", "dash", "zsh", "ksh":
		return true
	}
	return false
}

// unwrap takes the wrappers off sc's command. When the command hands a
// literal string to a shell (bash -c, eval, trap, alias, a here-doc or
// here-string fed to bash), the string's commands are walked in sc's
// place and unwrap reports true.
func (w *walker) unwrap(sc *Simple) bool {
	argv := sc.Argv
	for len(argv) > 0 {
		name, args := argv[0], argv[1:]
		script, known := "", true
		switch {
		case name == "eval":
			// eval joins its arguments with spaces and runs the result.
			script = strings.Join(args, " ")
		case name == "trap" && len(args) > 1 && !strings.HasPrefix(args[0], "-"):
			// trap's first argument runs later, at the signal.
			script = args[0]
		case name == "alias":
			// An alias's text runs where its name is used.
			for _, a := range args {
				if _, body, ok := strings.Cut(a, "="); ok {
					script += body + "\n"
				}
			}
		case isShell(path.Base(name)):
			c, stdin, ok := shellScript(args)
			switch {
			case stdin:
				// A shell running what its input holds: a here-document or
				// here-string is read as commands; a pipe or a file cannot be.
				script, known = w.fedScript()
				known = known && len(args) == 0
			case !ok:
				w.done(sc, argv)
				return false
			default:
				script, known = c, c != "\x00"
			}
		default:
			wr, isWrapper := wrappers()[name]
			if !isWrapper {
				w.done(sc, argv)
				return false
			}
			cmd, opaque, ok := wr.rest(args)
			switch {
			case opaque:
				sc.Opaque, sc.Static = true, false
				return false
			case !ok:
				w.done(sc, argv)
				return false
			}
			sc.Appended = sc.Appended || wr.appends
			argv = cmd
			continue
		}
		return w.runScript(sc, script, known)
	}
	// A wrapper with nothing to run (time, nohup alone).
	sc.Full, sc.Argv = sc.Argv, nil
	return false
}

// done settles sc's command as argv, sc's words without the wrappers in
// front of it, and adds the commands find runs.
func (w *walker) done(sc *Simple, argv []string) {
	if len(argv) != len(sc.Argv) {
		sc.Full, sc.Argv = sc.Argv, argv
	}
	if argv[0] != "find" {
		return
	}
	// find -exec, -execdir, -ok and -okdir put file names in place of {}:
	// as with xargs, only a prefix or wildcard rule covers them.
	for i := 0; i < len(argv); i++ {
		if !has("-exec -execdir -ok -okdir", argv[i]) {
			continue
		}
		end := i + 1
		for end < len(argv) && argv[end] != ";" && argv[end] != "+" {
			end++
		}
		if end > i+1 {
			w.parts = append(w.parts, Simple{Argv: argv[i+1 : end], Static: sc.Static, Opaque: sc.Opaque, Appended: true, Dirs: sc.Dirs})
		}
		i = end
	}
}

// runScript walks a shell string in sc's place; known is false when the
// string is computed. The shell's own redirections apply to its commands,
// and stay even when it runs none.
func (w *walker) runScript(sc *Simple, script string, known bool) bool {
	sub := walker{dirs: w.dirs, depth: w.depth + 1}
	if !known || sub.depth > maxShellDepth || !sc.Static || sub.script(script) != nil {
		sc.Opaque, sc.Static = true, false
		return false
	}
	if len(sub.parts) == 0 {
		sub.parts = append(sub.parts, Simple{Static: true, Dirs: w.dirs})
	}
	for i := range sub.parts {
		sub.parts[i].Targets = append(slices.Clip(sub.parts[i].Targets), sc.Targets...)
	}
	w.parts = append(w.parts, sub.parts...)
	w.dirs = union(w.dirs, sub.dirs)
	w.dotGlob = w.dotGlob || sub.dotGlob
	return true
}

// shellScript reads a shell's arguments: stdin when it reads its commands
// from its input (options only: no -c, no script file); else the -c string
// of a shell started with only harmless options, "\x00" when there is -c but
// no string. ok is false for a shell that reads startup files (-l, -i,
// --rcfile) or a script file, which is the command itself.
func shellScript(args []string) (script string, stdin, ok bool) {
	if !slices.ContainsFunc(args, func(a string) bool {
		return !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") || strings.Contains(a, "c") && !strings.HasPrefix(a, "--")
	}) {
		return "", true, true
	}
	c := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		switch {
		case a == "--":
		case a == "-o" || a == "+o":
			if len(args) < 2 || !has("pipefail errexit nounset", args[1]) {
				return "", false, false
			}
			args = args[1:]
		case strings.Trim(a[1:], "ceuxv") == "":
			c = c || strings.Contains(a, "c")
		default:
			return "", false, false
		}
		args = args[1:]
		if a == "--" {
			break
		}
	}
	switch {
	case !c:
		return "", false, false
	case len(args) == 0:
		return "\x00", false, true
	}
	return args[0], false, true
}

// fedScript returns the literal text a here-document or here-string of
// the statement gives a shell to run.
func (w *walker) fedScript() (string, bool) {
	for _, r := range w.redirs {
		switch {
		case r.Op == syntax.WordHdoc:
			vals, _, ok := literal(r.Word, 1)
			return strings.Join(vals, " "), ok && len(vals) == 1
		case r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc:
			continue
		case r.Hdoc == nil:
			return "", true
		case len(r.Hdoc.Parts) > 0 && r.Hdoc.Lit() == "":
			// A substitution in the body: the text is computed.
			return "", false
		case r.Word.Lit() == "" || strings.Contains(r.Word.Lit(), `\`):
			// A quoted delimiter ('EOF', "EOF", \EOF): the body as written.
			return r.Hdoc.Lit(), true
		}
		// An unquoted body is not subject to quote removal, but its
		// backslashes escape $, ` and \ (bash hands `\$(cmd)` to the shell
		// as `$(cmd)`).
		doc, err := expand.Document(&expand.Config{}, r.Hdoc)
		return doc, err == nil
	}
	return "", false
}

// followCd records where a cd or pushd leads for the commands after it.
// The folder before stays possible: the cd may fail, and ; and || go on.
func (w *walker) followCd(sc *Simple) {
	if len(sc.Argv) == 0 || !has("cd pushd popd", sc.Argv[0]) {
		return
	}
	known := sc.Static && sc.Argv[0] != "popd"
	args := sc.Argv[1:]
	for known && len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		// pushd -N rotates the stack.
		known = !isDigits(a[1:])
	}
	to := UnknownDir
	switch {
	case !known || len(args) == 0 && sc.Argv[0] == "pushd":
	case len(args) == 0:
		to = "~"
	case args[0] != "-" && !strings.HasPrefix(args[0], "+"):
		to = args[0]
	}
	next := slices.Clone(w.dirs)
	for _, d := range w.dirs {
		switch {
		case to == UnknownDir || d == UnknownDir:
			next = append(next, UnknownDir)
		case d == "" || path.IsAbs(to) || to == "~" || strings.HasPrefix(to, "~/"):
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
// (then UnknownDir stands for the rest).
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, d := range slices.Concat(a, b) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > maxDirs {
		out = append(out[:maxDirs-1], UnknownDir)
	}
	return out
}

// Forms yields the words of a command in every form it runs in, for
// deny and ask rules and bash.blockedCommands: with its wrappers taken
// off, as written, and named by its base name (/bin/rm as rm). An
// iterator, not a slice: it runs for every rule of every call.
func (sc *Simple) Forms(yield func([]string) bool) {
	if len(sc.Argv) > 0 {
		if !yield(sc.Argv) {
			return
		}
		if strings.Contains(sc.Argv[0], "/") && !yield(append([]string{path.Base(sc.Argv[0])}, sc.Argv[1:]...)) {
			return
		}
	}
	if sc.Full != nil {
		yield(sc.Full)
	}
}

// Quote writes argv back as a command bash reads as the same words,
// followed by redirs (operator, target, ...), for the rules a prompt
// suggests.
func Quote(argv []string, redirs ...string) string {
	quote := func(s string) string {
		if q, err := syntax.Quote(s, syntax.LangBash); err == nil {
			return q
		}
		return s
	}
	out := make([]string, 0, len(argv)+len(redirs)/2)
	for _, a := range argv {
		out = append(out, quote(a))
	}
	for i := 0; i+1 < len(redirs); i += 2 {
		out = append(out, redirs[i]+" "+quote(redirs[i+1]))
	}
	return strings.Join(out, " ")
}

// Words reads a rule's command specifier as bash would read it as a
// command: its words after quote removal. A specifier that is not one
// literal simple command is split at spaces.
func Words(spec string) []string {
	sc := Parse(spec, "")
	if sc.Unparsed == "" && len(sc.Parts) == 1 && sc.Parts[0].Static && sc.Parts[0].Full == nil {
		return slices.Concat(sc.Parts[0].Argv, sc.Parts[0].Redirs)
	}
	return strings.Fields(spec)
}

// CollapseSpaces turns runs of spaces and tabs into one space (quoted text
// included: it only serves exact comparisons with rules).
func CollapseSpaces(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}
