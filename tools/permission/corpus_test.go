package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// corpusGroup is a set of rules and the decisions they give on commands.
type corpusGroup struct {
	name string
	// settings is the project's settings file.
	settings string
	mode     string
	cases    []corpusCase
}

type corpusCase struct {
	cmd  string
	want verdict
}

// shellCorpus is what docs/settings.md promises about Bash rules, one
// command at a time: the attacks of quoting, comments, here-docs and
// wrappers (which a word splitter that reads quotes where bash does not
// let through), and the everyday forms that must keep working.
var shellCorpus = []corpusGroup{
	{
		name:     "a narrow prefix rule",
		settings: `{"permissions": {"allow": ["Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(grep:*)"]}}`,
		cases: []corpusCase{
			{"git status", allowed},
			{"git status --short", allowed},
			{"git  status   -s", allowed},
			{"git status && git diff", allowed},
			{"git status; git diff --stat", allowed},
			{"git log | grep x", allowed},
			{"git log --oneline | grep -i 'fix bug'", allowed},
			{"git status || git diff", allowed},
			{"git status # just a comment", allowed},
			{"git status\n\ngit diff\n", allowed},
			{`git log --format="%h %s"`, allowed},
			{`git "status"`, allowed},
			{`git 'status'`, allowed},
			{`g\it status`, allowed},
			{"git log 2>&1 | grep x", allowed},
			{"git diff > /dev/null", allowed},
			{"git status >/dev/null 2>&1 && git diff", allowed},
			// Comments end at the line: a quote inside one is no quote.
			{"git status # '\ntouch X\n#'", asked},
			{"git status # \"\ntouch X\n#\"", asked},
			{"git status #`\ntouch X", asked},
			// $'…' holds an escaped quote.
			{`git status $'\'';touch X;#'`, asked},
			{`git status $'\'' ; touch X ; #'`, asked},
			// A here-doc's body is data: a quote in it opens nothing.
			{"git log <<'EOF'\nit's\nEOF\ntouch X", asked},
			{"git log <<EOF\n\"\nEOF\ntouch X #\"", asked},
			{"git status <<EOF\n$(touch X)\nEOF", asked},
			{"git status <<'EOF'\n$(touch X)\nEOF", allowed},
			// Backslashes and quotes as bash reads them.
			{`git status \'; touch X; echo \'`, asked},
			{`git status "\"; touch X; echo \""`, allowed},
			{`git status "\"" ; touch X`, asked},
			{"git status \\\n; touch X", asked},
			{"git status & touch X", asked},
			{"git status | sh", asked},
			{"git status\ntouch X", asked},
			{"git status\r\ntouch X", asked},
			{"git statusx", asked},
			{"git-status", asked},
			{"git status $(touch X)", asked},
			{"git status `touch X`", asked},
			{"git status <(touch X)", asked},
			{"git status >(touch X)", asked},
			{"git status ${X:-$(touch X)}", asked},
			{"git status $X", asked},
			{"git status > $OUT", asked},
			{"git status > $(echo out)", asked},
			{"$GIT status", asked},
			{"${GIT} status", asked},
			{"\"$(echo git)\" status", asked},
			{"git $(echo status)", asked},
			{"PATH=/tmp/evil git status", asked},
			{"LD_PRELOAD=/tmp/x.so git status", asked},
			{"GIT_EXTERNAL_DIFF=/tmp/x git diff", asked},
			{"BASH_ENV=/tmp/x git status", asked},
			{"PATH=/tmp; git status", asked},
			{"export PATH=/tmp; git status", asked},
			{"(git status; touch X)", asked},
			{"{ git status; touch X; }", asked},
			{"if git status; then touch X; fi", asked},
			{"if git status; then git diff; fi", allowed},
			{"while git status; do git diff; done", allowed},
			{"for i in 1 2; do git status; done", allowed},
			{"for i in 1 2; do touch $i; done", asked},
			{"case x in x) touch X;; esac", asked},
			{"case x in x) git status;; esac", allowed},
			{"f() { touch X; }; git status", asked},
			{"git() { touch X; }; git status", asked},
			{"(( x = 1 )) && git status", asked},
			{"let x=1; git status", asked},
			{"[[ x -eq 1 ]] && git status", asked},
			{"[[ -n x ]] && git status", allowed},
			{"git status && bash -c 'touch X'", asked},
			{"git status && sh -c \"touch X\"", asked},
			{"git status && eval 'touch X'", asked},
			{"eval 'git status'", allowed},
			{"bash -c 'git status && git diff'", allowed},
			{"sh -c 'git status; touch X'", asked},
			{"bash -c \"bash -c 'git status'\"", allowed},
			{"bash -c \"bash -c 'touch X'\"", asked},
			{"bash -lc 'git status'", asked},
			{"bash <<'EOF'\ngit status\nEOF", allowed},
			{"bash <<'EOF'\ntouch X\nEOF", asked},
			{"bash <<< 'touch X'", asked},
			{"bash <<EOF\ngit status \\$(touch X)\nEOF", asked},
			{"bash <<EOF\ngit status \\$HOME\nEOF", asked},
			{"bash <<'EOF'\ngit status \\$HOME\nEOF", allowed},
			{"bash <<\"EOF\"\ngit status \\$HOME\nEOF", allowed},
			{"bash <<\\EOF\ngit status \\$HOME\nEOF", allowed},
			{"echo touch X | bash", asked},
			{"git status | xargs touch", asked},
			{"git status | xargs -0 sh -c 'touch X'", asked},
			{"git status | xargs grep foo", allowed},
			{"git status | xargs -I{} grep {} file", asked},
			{"timeout 10 git status", allowed},
			{"nohup git status", allowed},
			{"command git status", allowed},
			{"builtin cd . && git status", asked},
			{"env FOO=1 git status", allowed},
			{"env PATH=/tmp git status", asked},
			{"exec git status", allowed},
			{"time git status", allowed},
			{"nice -n 5 git log", allowed},
			{"timeout 5 touch X", asked},
			{"git status\\\n; touch X", asked},
			{"git status; echo x > out.txt", asked},
			{"git status > out.txt", allowed},
			{"> out.txt", asked},
			{"git status 'unterminated", asked},
			{"git status )", asked},
			{"git status &&", asked},
			{"", asked},
			{"# only a comment", asked},
			{"FOO=1", asked},
			{"/usr/bin/git status", asked},
			{"git -c core.pager=evil status", asked},
			{"git status --porcelain | grep -c '^??'", allowed},
			{"grep -rn 'TODO' src", allowed},
			{"grep -e 'a;b' -e \"c|d\" src", allowed},
			{"grep x *.go", allowed},
			{"grep x .mcp*", asked},
			{"grep x {a,b}.go", asked},
			{"grep x {1..99999999999}{a,b}{c,d}", asked},
			{"grep x " + strings.Repeat("{a,b}", 300), asked},
			{"grep x ~/notes.txt", allowed},
			{"grep x ~root/notes.txt", asked},
		},
	},
	{
		name:     "everyday commands",
		settings: `{"permissions": {"allow": ["Bash(npm run test:*)", "Bash(make:*)", "Bash(cd:*)", "Bash(cat:*)", "Bash(go test:*)", "Bash(echo:*)", "Bash(ls:*)", "Bash(find:*)", "Bash(xargs:*)", "Bash(wc:*)"]}}`,
		cases: []corpusCase{
			{"npm run test -- --watch=false", allowed},
			{"npm run test", allowed},
			{"npm run testx", asked},
			{"npm run lint", asked},
			{"cd sub && make", allowed},
			{"cd sub; make -j4 all", allowed},
			{"(cd sub && make)", allowed},
			{"FOO=1 make", allowed},
			{"FOO=1 BAR='a b' make install", allowed},
			{"CGO_ENABLED=0 go test ./...", allowed},
			{"cat <<'EOF'\nhello 'world\nEOF", allowed},
			{"cat <<EOF > notes.txt\nsome text\nEOF", allowed},
			{"cat <<EOF\n$(rm -rf x)\nEOF", asked},
			{"cat <<-EOF\n\tit's fine\n\tEOF", allowed},
			{`echo "hello world" 'and more'`, allowed},
			{"echo 'a && rm -rf x'", allowed},
			{`echo "a; rm -rf x"`, allowed},
			{`echo a\;rm -rf x`, allowed},
			{"echo done; rm -rf x", asked},
			{"ls -la | wc -l", allowed},
			{"ls src/*.go | wc -l", allowed},
			{"find . -name '*.o' | xargs wc -c", allowed},
			{"find . -name '*.o' | xargs rm", asked},
			{"find . -name '*.go' -exec wc -l {} +", allowed},
			{"find . -name '*.go' -exec rm {} \\;", asked},
			{"find . -type f -ok cat {} \\;", allowed},
			{"go test ./... 2>&1 | cat", allowed},
			{"go test -run 'TestA|TestB' ./pkg", allowed},
			{"make && echo ok || echo failed", allowed},
			{"make > build.log 2>&1", allowed},
			{"make &> build.log", allowed},
			{"timeout 600 make test", allowed},
			{"cd sub && rm -rf build", asked},
			{"cd \"$HOME\" && make", asked},
			{"cd /tmp && make", allowed},
			{"make MAKEFLAGS=-j4", allowed},
			{"MAKEFLAGS=--eval=x make", asked},
			{"NODE_OPTIONS=--require=./x.js npm run test", asked},
			{"echo $HOME", asked},
			{"echo \"${PWD}\"", asked},
			{"echo $((1+2))", asked},
		},
	},
	{
		name:     "Bash(*) and files that decide what runs",
		settings: `{"permissions": {"allow": ["Bash(*)"]}}`,
		cases: []corpusCase{
			{"echo anything at all", allowed},
			{"echo $HOME; ls *", allowed},
			{"echo x > notes.txt", allowed},
			{"echo x > .mcp.json", asked},
			{"echo x > .mc'p'.json", asked},
			{`echo x > ".mcp".json`, asked},
			{`echo x > \.mcp.json`, asked},
			{"'{}'>.mcp.json", asked},
			{"echo '{}'>.mcp.json", asked},
			{"echo x >| .mcp.json", asked},
			{"echo x &> .mcp.json", asked},
			{"echo x 2> .mcp.json", asked},
			{"echo x >> .git/\"config\"", asked},
			{"echo x >> .git/con\\fig", asked},
			{"echo x > .git/hook's'/pre-commit", asked},
			{"echo x > $'.git/hooks/pre-commit'", asked},
			{"echo x > .toolhost/settings.json", asked},
			{"echo x > ./.toolhost/settings.local.json", asked},
			{"echo x > src/../.mcp.json", asked},
			{"echo x > .vscode/tasks.json", asked},
			{"echo x > .nvim.lua", asked},
			{"git con'fig' core.hooksPath /tmp", asked},
			{"git \"config\" core.fsmonitor x", asked},
			{"\\git config core.hooksPath /tmp", asked},
			{"find . -maxdepth 0 -exec git config core.hooksPath /tmp \\;", asked},
			{"git config --get user.name", allowed},
			{"cd -- .git && echo >> config", asked},
			{"cd .git && echo >> config", asked},
			{"cd .git; echo >> config", asked},
			{"builtin cd .git; echo >> config", asked},
			{"command cd .git; echo >> config", asked},
			{"pushd .git && echo >> config", asked},
			{"pushd .git >/dev/null; echo x > hooks/pre-commit", asked},
			{"cd -P .git && echo >> config", asked},
			{"cd '.git' && echo >> config", asked},
			{"(cd .git && echo >> config)", asked},
			{"cd .git\necho >> config", asked},
			{"cd src; cd ../.git; echo >> config", asked},
			{"cd nowhere; echo {} > .mcp.json", asked},
			{"cd $D && echo >> config", asked},
			{"cd src && echo x >> config", allowed},
			{"bash -c 'echo x > .mcp.json'", asked},
			{"sh -c \"cd .git && echo >> config\"", asked},
			{"eval 'echo x > .mcp.json'", asked},
			{"{ echo x; } > .mcp.json", asked},
			{"(echo x) > .mcp.json", asked},
			{"tee .mcp.json < x", asked},
			{"cp x .mc\"p.j\"son", asked},
			{"echo x > .mcp.jso{n,}", asked},
			{"cp x .mcp.*", asked},
			{"cat README.md", allowed},
			{"echo note > .toolhost/memory/n.md", allowed},
		},
	},
	{
		name:     "deny rules in bypassPermissions",
		settings: `{"permissions": {"deny": ["Bash(rm:*)", "Bash(git push:*)"]}}`,
		mode:     tools.ModeBypassPermissions,
		cases: []corpusCase{
			{"rm f", denied},
			{"'rm' f", denied},
			{`\rm f`, denied},
			{"r''m f", denied},
			{`"r"m f`, denied},
			{"$'rm' f", denied},
			{"/bin/rm f", denied},
			{"command rm f", denied},
			{"builtin rm f", denied},
			{"exec rm f", denied},
			{"nohup rm f", denied},
			{"timeout 5 rm f", denied},
			{"env X=1 rm f", denied},
			{"FOO=1 rm f", denied},
			{"echo x; rm f", denied},
			{"echo x && rm -rf f", denied},
			{"echo $(rm f)", denied},
			{"(rm f)", denied},
			{"bash -c 'rm f'", denied},
			{"sh -c \"r'm' f\"", denied},
			{"eval rm f", denied},
			{"eval 'rm f'", denied},
			{"find . | xargs rm", denied},
			{"find . -name '*.o' -exec rm {} +", denied},
			{"find . -execdir /bin/rm -f {} \\;", denied},
			{"trap 'rm f' EXIT", denied},
			{"alias x='rm f'", denied},
			{"bash <<'EOF'\nrm f\nEOF", denied},
			{"f() { rm f; }", denied},
			{"git push origin main", denied},
			{"git 'push' origin", denied},
			{"$CMD f", denied},
			{`"$(echo rm)" f`, denied},
			{"`echo rm` f", denied},
			{"eval \"$X\"", denied},
			{"bash -c \"$X\"", denied},
			{"echo rm | bash", denied},
			{"rm f 'unterminated", denied},
			{"echo rm f", allowed},
			{"x=$(ls); echo $x", allowed},
			{"echo 'rm f'", allowed},
			{"git status", allowed},
			{"ls -la", allowed},
		},
	},
	{
		name:     "ask rules",
		settings: `{"permissions": {"allow": ["Bash"], "ask": ["Bash(git push:*)", "Bash(git fetch)"]}}`,
		cases: []corpusCase{
			{"git fetch", asked},
			{"git fetch > log.txt 2>&1", asked},
			{"git fetch --all", allowed},
			{"git push", asked},
			{"git 'push' origin", asked},
			{"git status && git push", asked},
			{"bash -c 'git push'", asked},
			{"$GIT push", asked},
			{"git status", allowed},
			{"echo git push", allowed},
		},
	},
	{
		name:     "exact rules",
		settings: `{"permissions": {"allow": ["Bash(git status)", "Bash(git commit -m 'a b')", "Bash(echo $(date))", "Bash(git diff > d.txt 2>&1)"]}}`,
		cases: []corpusCase{
			{"git status", allowed},
			{"git   status", allowed},
			{"'git' status", allowed},
			{"git status --short", asked},
			{"git status; git status", allowed},
			{"git commit -m 'a b'", allowed},
			{`git commit -m "a b"`, allowed},
			{"git commit -m a b", asked},
			{"echo $(date)", allowed},
			{"echo $(date); touch X", asked},
			{"git status > out.txt", asked},
			{"git diff >d.txt 2>&1", allowed},
			{"git diff > e.txt 2>&1", asked},
		},
	},
}

// TestShellCorpus runs shellCorpus: each command, under its group's rules
// and mode, comes to the decision written next to it.
func TestShellCorpus(t *testing.T) {
	n := 0
	for _, g := range shellCorpus {
		e := newEnv(t, g.settings)
		for _, dir := range []string{".git/hooks", ".vscode"} {
			if err := os.MkdirAll(filepath.Join(e.root, dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{".git/config", ".mcp.json"} {
			if err := os.WriteFile(filepath.Join(e.root, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := e.checker(g.mode)
		for _, tc := range g.cases {
			n++
			t.Run(g.name+"/"+strings.ReplaceAll(tc.cmd, "\n", `\n`), func(t *testing.T) {
				got, out, _ := run(t, c, bash(tc.cmd))
				if got != tc.want {
					t.Errorf("%q: got %s (%s), want %s", tc.cmd, got, out.Message, tc.want)
				}
			})
		}
	}
	if n < 200 {
		t.Errorf("the corpus holds %d commands; keep at least 200", n)
	}
}

// TestBlockedCommandsPerSimpleCommand: bash.blockedCommands patterns are
// matched against each simple command as bash reads it, not only the
// whole line, in every mode.
func TestBlockedCommandsPerSimpleCommand(t *testing.T) {
	e := newEnv(t, `{"permissions": {"allow": ["Bash"]}, "bash": {"blockedCommands": ["^rm\\s+-rf", "^curl\\b"]}}`)
	tests := []struct {
		cmd  string
		want verdict
	}{
		{"rm -rf build", denied},
		{"echo x; rm -rf build", denied},
		{"echo x && 'rm' -rf build", denied},
		{`\rm -rf build`, denied},
		{"timeout 5 rm -rf build", denied},
		{"/bin/rm -rf build", denied},
		{"bash -c 'rm -rf build'", denied},
		{"echo $(curl x)", denied},
		{"$CMD -rf build", denied},
		{"echo curl", allowed},
		{"rm build", allowed},
		{"ls", allowed},
	}
	for _, mode := range []string{tools.ModeDefault, tools.ModeBypassPermissions} {
		c := e.checker(mode)
		for _, tc := range tests {
			t.Run(mode+"/"+tc.cmd, func(t *testing.T) {
				got, out, _ := run(t, c, bash(tc.cmd))
				if got != tc.want {
					t.Errorf("got %s (%s), want %s", got, out.Message, tc.want)
				}
				if got == denied && !strings.Contains(out.Message, "bash.blockedCommands") {
					t.Errorf("the denial does not name the setting: %s", out.Message)
				}
			})
		}
	}
}
