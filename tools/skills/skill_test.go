package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// writeSkill makes a skill folder under dir.
func writeSkill(t *testing.T, dir, folder, skillMD string) {
	t.Helper()
	p := filepath.Join(dir, folder, SkillFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, tool *Tool, in map[string]any) *tools.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	res, err := tool.Execute(context.Background(), &tools.Call{Input: raw, Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSkill states Claude Code's Skill tool: the description lists the
// skills by name and description, a call returns the skill's instructions
// with its folder named and the arguments appended; a project's skills are
// offered only once its folder is trusted.
func TestSkill(t *testing.T) {
	user, root := t.TempDir(), t.TempDir()
	writeSkill(t, user, "notes", "---\nname: release-notes\ndescription: >\n  Write release notes\n  from the git log.\n---\n\n# Release notes\nRun `git log --oneline` and group by type.\n")
	writeSkill(t, user, "broken", "no front matter here\n")
	writeSkill(t, ProjectDir(root), "deploy", "---\nname: deploy\ndescription: \"Deploy the app: run scripts/deploy.sh\"\n---\nRun scripts/deploy.sh in this folder.\n")
	trusted := false
	tool := New(workspace.New(root), func() *settings.Settings {
		s := settings.Defaults()
		s.Trust.Roots = []settings.RootTrust{{Root: root, Trusted: trusted}}
		return s
	}).WithUserDirs(user)

	steps := []struct {
		name      string
		trust     bool
		input     map[string]any
		listed    []string
		notListed []string
		isError   bool
		want      []string
	}{
		{name: "a user skill is listed and loaded", input: map[string]any{"skill": "release-notes", "args": "v1.2"},
			listed: []string{"- release-notes: Write release notes from the git log."}, notListed: []string{"deploy", "broken"},
			want: []string{"Base directory for this skill: " + filepath.Join(user, "notes"), "# Release notes\nRun `git log --oneline`", "ARGUMENTS: v1.2"}},
		{name: "an untrusted folder's skill is neither listed nor loaded", input: map[string]any{"skill": "deploy"},
			notListed: []string{"deploy"}, isError: true, want: []string{`no skill "deploy"`, "release-notes"}},
		{name: "once trusted, the project's skill is listed and loaded", trust: true, input: map[string]any{"skill": "deploy"},
			listed: []string{"- deploy: Deploy the app: run scripts/deploy.sh"}, want: []string{"Run scripts/deploy.sh in this folder."}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			trusted = st.trust
			desc := tool.Description()
			for _, l := range st.listed {
				if !strings.Contains(desc, l) {
					t.Errorf("the description lacks %q:\n%s", l, desc)
				}
			}
			for _, l := range st.notListed {
				if strings.Contains(desc, l) {
					t.Errorf("the description lists %q:\n%s", l, desc)
				}
			}
			res := run(t, tool, st.input)
			if res.IsError != st.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Text())
			}
			for _, w := range st.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text())
				}
			}
		})
	}
	// The trust question names the project's skills.
	if ps := ProjectSkills(root); len(ps) != 1 || ps[0].Name != "deploy" {
		t.Errorf("ProjectSkills = %+v", ps)
	}
}

// TestSkillListIsBounded: a hundred long skills do not make the
// description, sent with every request, grow past the bound.
func TestSkillListIsBounded(t *testing.T) {
	user := t.TempDir()
	for i := range 100 {
		writeSkill(t, user, fmt.Sprintf("s%03d", i), fmt.Sprintf("---\nname: skill-%03d\ndescription: %s\n---\nbody\n", i, strings.Repeat("word ", 200)))
	}
	desc := New(nil, nil).WithUserDirs(user).Description()
	if len(desc) > maxListingChars+500 {
		t.Errorf("the description is %d characters", len(desc))
	}
	if !strings.Contains(desc, "more skills are not listed") || !strings.Contains(desc, "skill-000") {
		t.Errorf("the cut list does not say so:\n%s", desc[len(desc)-300:])
	}
}
