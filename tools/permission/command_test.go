package permission

import (
	"reflect"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		cmd         string
		wantParts   []string
		wantComplex bool
	}{
		{cmd: "npm test", wantParts: []string{"npm test"}},
		{cmd: "  git   status  ", wantParts: []string{"git status"}},
		{cmd: "npm test && git push", wantParts: []string{"npm test", "git push"}},
		{cmd: "a || b; c | d |& e & f\ng", wantParts: []string{"a", "b", "c", "d", "e", "f", "g"}},
		{cmd: `echo "a && b; c | d" 'x;y'`, wantParts: []string{`echo "a && b; c | d" 'x;y'`}},
		{cmd: `echo a\;b`, wantParts: []string{`echo a\;b`}},
		{cmd: "make 2>&1 >/dev/null", wantParts: []string{"make 2>&1 >/dev/null"}},
		{cmd: "make &> log.txt", wantParts: []string{"make &> log.txt"}},
		{cmd: "echo $(rm -rf x)", wantParts: []string{"rm -rf x", "echo $(rm -rf x)"}, wantComplex: true},
		{cmd: `echo "$(whoami)"`, wantParts: []string{"whoami", `echo "$(whoami)"`}, wantComplex: true},
		{cmd: "echo `id`", wantParts: []string{"id", "echo `id`"}, wantComplex: true},
		{cmd: "diff <(ls a) <(ls b)", wantParts: []string{"ls a", "ls b", "diff <(ls a) <(ls b)"}, wantComplex: true},
		{cmd: "(cd sub && make)", wantParts: []string{"cd sub", "make"}, wantComplex: true},
		{cmd: `echo 'unterminated`, wantParts: []string{`echo 'unterminated`}, wantComplex: true},
		{cmd: "echo $(unclosed", wantParts: []string{"unclosed", "echo $(unclosed"}, wantComplex: true},
		{cmd: "timeout 60 npm test", wantParts: []string{"npm test"}},
		{cmd: "timeout -s KILL 5s nice -n 10 nohup go build", wantParts: []string{"go build"}},
		{cmd: "time make", wantParts: []string{"make"}},
		{cmd: "timeout", wantParts: []string{"timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			got := parseCommand(tc.cmd)
			if !reflect.DeepEqual(got.parts, tc.wantParts) || got.complex != tc.wantComplex {
				t.Errorf("parseCommand(%q) = %q complex=%v; want %q complex=%v", tc.cmd, got.parts, got.complex, tc.wantParts, tc.wantComplex)
			}
		})
	}
}

func TestPrefixPattern(t *testing.T) {
	tests := map[string]string{
		"npm run test -- -u":   "npm run test:*",
		"npm test":             "npm test:*",
		"ls":                   "ls:*",
		"git commit -m 'x y'":  "git commit:*",
		"go test ./...":        "go test:*",
		"./scripts/build.sh a": "./scripts/build.sh a",
		"cat secrets.txt":      "cat:*",
	}
	for in, want := range tests {
		if got := prefixPattern(in); got != want {
			t.Errorf("prefixPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
