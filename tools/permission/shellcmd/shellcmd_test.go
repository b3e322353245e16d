package shellcmd

import (
	"reflect"
	"testing"
)

// TestParseCommand checks the simple commands found in a command: their
// words after quote removal, whether a prefix rule may cover them
// (static), and whether they can be seen into at all (opaque).
func TestParseCommand(t *testing.T) {
	type part struct {
		argv           []string
		static, opaque bool
	}
	lit := func(words ...string) part { return part{argv: words, static: true} }
	dyn := func(words ...string) part { return part{argv: words} }
	tests := []struct {
		cmd      string
		want     []part
		unparsed bool
	}{
		{cmd: "npm test", want: []part{lit("npm", "test")}},
		{cmd: "  git   status  ", want: []part{lit("git", "status")}},
		{cmd: "npm test && git push", want: []part{lit("npm", "test"), lit("git", "push")}},
		{cmd: "a || b; c | d |& e & f\ng", want: []part{lit("a"), lit("b"), lit("c"), lit("d"), lit("e"), lit("f"), lit("g")}},
		{cmd: `echo "a && b; c | d" 'x;y'`, want: []part{lit("echo", "a && b; c | d", "x;y")}},
		{cmd: `echo a\;b`, want: []part{lit("echo", "a;b")}},
		{cmd: `'rm' f; \rm g; r''m h; "r"m i`, want: []part{lit("rm", "f"), lit("rm", "g"), lit("rm", "h"), lit("rm", "i")}},
		{cmd: "git status # '\ntouch X\n#'", want: []part{lit("git", "status"), lit("touch", "X")}},
		{cmd: `git status $'\'';touch X;#'`, want: []part{lit("git", "status", "'"), lit("touch", "X")}},
		{cmd: "cat <<'EOF'\nit's\nEOF\ntouch X", want: []part{lit("cat"), lit("touch", "X")}},
		{cmd: "make 2>&1 >/dev/null", want: []part{lit("make")}},
		{cmd: "echo $(rm -rf x)", want: []part{lit("rm", "-rf", "x"), dyn("echo", "")}},
		{cmd: "echo `id`", want: []part{lit("id"), dyn("echo", "")}},
		{cmd: "diff <(ls a) <(ls b)", want: []part{lit("ls", "a"), lit("ls", "b"), dyn("diff", "", "")}},
		{cmd: "(cd sub && make)", want: []part{lit("cd", "sub"), lit("make")}},
		{cmd: "$CMD x", want: []part{{argv: []string{"", "x"}, opaque: true}}},
		{cmd: `eval "$X"`, want: []part{{argv: []string{"eval", ""}, opaque: true}}},
		{cmd: `bash -c 'git status; rm -rf x'`, want: []part{lit("git", "status"), lit("rm", "-rf", "x")}},
		{cmd: `eval 'touch X'`, want: []part{lit("touch", "X")}},
		{cmd: "bash <<'EOF'\ntouch X\nEOF", want: []part{lit("touch", "X")}},
		{cmd: "timeout 60 npm test", want: []part{lit("npm", "test")}},
		{cmd: "timeout -s KILL 5s nice -n 10 nohup go build", want: []part{lit("go", "build")}},
		{cmd: "FOO=1 make", want: []part{lit("make")}},
		{cmd: "PATH=/tmp make", want: []part{dyn("make")}},
		{cmd: "ls *.go", want: []part{lit("ls", "*.go")}},
		{cmd: "ls .m*", want: []part{lit("ls", ".m*")}},
		{cmd: "*.sh x", want: []part{dyn("*.sh", "x")}},
		{cmd: "echo x > .mc{p,q}.json", want: []part{dyn("echo", "x")}},
		{cmd: "f() { rm -rf x; }; f", want: []part{lit("rm", "-rf", "x"), lit("f")}},
		{cmd: "for f in *.go; do gofmt -l $f; done", want: []part{dyn("gofmt", "-l", "")}},
		{cmd: `echo 'unterminated`, unparsed: true},
		{cmd: "echo $(unclosed", unparsed: true},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			got := Parse(tc.cmd, "")
			if (got.Unparsed != "") != tc.unparsed {
				t.Fatalf("unparsed = %q, want %v", got.Unparsed, tc.unparsed)
			}
			var parts []part
			for _, p := range got.Parts {
				parts = append(parts, part{argv: p.Argv, static: p.Static, opaque: p.Opaque})
			}
			for i := range tc.want {
				if tc.want[i].argv == nil {
					tc.want[i].argv = []string(nil)
				}
			}
			if !reflect.DeepEqual(parts, tc.want) {
				t.Errorf("parts = %+v\nwant    %+v", parts, tc.want)
			}
		})
	}
}
