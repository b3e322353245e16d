// Package skills is the Skill tool: skills are folders holding a SKILL.md
// (YAML front matter with name and description, then instructions, maybe
// files beside it), read from the user's ~/.claude/skills and toolhost's
// own user config folder always, and from a workspace folder's
// .claude/skills only once the folder is trusted: a project skill is
// instructions from the repository, so it is listed in the trust question
// (ProjectSkills) and offered to the model only after the user agreed.
package skills

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
	"go.yaml.in/yaml/v3"
)

//go:embed skill.md
var skillDescription string

// Bounds on what skills may cost the model.
const (
	// maxListedSkills and maxListingChars bound the skill list in the
	// tool's description, which goes with every request.
	maxListedSkills = 50
	maxListingChars = 8000
	// maxDescriptionChars cuts one skill's description in the list.
	maxDescriptionChars = 250
	// maxSkillBytes is the largest SKILL.md loaded.
	maxSkillBytes = 256 << 10
	// maxSkillDirs bounds the folders scanned in one skills folder.
	maxSkillDirs = 500
)

// SkillFile is the file that makes a folder a skill.
const SkillFile = "SKILL.md"

// Skill is one skill found on disk.
type Skill struct {
	Name        string
	Description string
	// Dir is the skill's folder, Path its SKILL.md.
	Dir, Path string
	// Source is "user" or "project".
	Source string
}

// frontMatter is the YAML header of a SKILL.md.
type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// parse splits a SKILL.md into its front matter and its body.
func parse(data []byte) (frontMatter, string, error) {
	var fm frontMatter
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\uFEFF")
	if !strings.HasPrefix(text, "---\n") {
		return fm, text, errors.New("it does not start with a --- front matter block holding name and description")
	}
	head, body, ok := strings.Cut(text[4:], "\n---")
	if !ok {
		return fm, text, errors.New("its front matter has no closing --- line")
	}
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return fm, text, fmt.Errorf("its front matter is not valid YAML: %v", err)
	}
	_, body, _ = strings.Cut(body, "\n")
	return fm, strings.TrimLeft(body, "\n"), nil
}

// scan lists the skills in a skills folder: each subfolder with a
// SKILL.md. A skill without a name is named by its folder.
func scan(dir, source string) []Skill {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Skill
	for i, e := range entries {
		if i == maxSkillDirs {
			break
		}
		if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name(), SkillFile)
		data, err := readSkillFile(path)
		if err != nil {
			continue
		}
		fm, _, err := parse(data)
		if err != nil {
			continue
		}
		name := strings.TrimSpace(fm.Name)
		if name == "" {
			name = e.Name()
		}
		out = append(out, Skill{Name: name, Description: strings.Join(strings.Fields(fm.Description), " "), Dir: filepath.Join(dir, e.Name()), Path: path, Source: source})
	}
	return out
}

// readSkillFile reads a SKILL.md of at most maxSkillBytes.
func readSkillFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxSkillBytes {
		return nil, fmt.Errorf("%s is not a regular file of at most %d KB", path, maxSkillBytes>>10)
	}
	return os.ReadFile(path)
}

// UserDirs are the user's skills folders: Claude Code's ~/.claude/skills,
// then skills beside toolhost's user settings.
func UserDirs() []string {
	var dirs []string
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".claude", "skills"))
	}
	if conf := settings.DefaultUserConfigPath(); conf != "" {
		dirs = append(dirs, filepath.Join(filepath.Dir(conf), "skills"))
	}
	return dirs
}

// ProjectDir is a workspace folder's skills folder.
func ProjectDir(root string) string { return filepath.Join(root, ".claude", "skills") }

// ProjectSkills lists the skills a workspace folder ships, trusted or not:
// what the trust question names.
func ProjectSkills(root string) []Skill { return scan(ProjectDir(root), "project") }

// Tool is the Skill tool.
type Tool struct {
	ws       *workspace.Workspace
	settings func() *settings.Settings
	// userDirs are the user's skills folders (UserDirs; tests set others).
	userDirs []string
}

// New returns the Skill tool over ws's folders; settings says which of them
// are trusted (nil: none).
func New(ws *workspace.Workspace, settings func() *settings.Settings) *Tool {
	return &Tool{ws: ws, settings: settings, userDirs: UserDirs()}
}

// WithUserDirs replaces the user's skills folders (for tests).
func (t *Tool) WithUserDirs(dirs ...string) *Tool { t.userDirs = dirs; return t }

// skills lists the skills offered: the user's, then each trusted workspace
// folder's; of two with one name the first found wins.
func (t *Tool) skills() []Skill {
	var all []Skill
	for _, d := range t.userDirs {
		all = append(all, scan(d, "user")...)
	}
	if t.settings != nil && t.ws != nil {
		st := t.settings()
		for _, root := range t.ws.Roots() {
			if st.Trust.Trusted(root) {
				all = append(all, ProjectSkills(root)...)
			}
		}
	}
	seen := map[string]bool{}
	out := all[:0]
	for _, s := range all {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	return out
}

func (*Tool) Name() string                 { return "Skill" }
func (*Tool) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Description lists the skills offered, bounded in count and size.
func (t *Tool) Description() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(skillDescription))
	b.WriteString("\n\n<available_skills>\n")
	ss := t.skills()
	listed := 0
	for _, s := range ss {
		desc := s.Description
		if utf8.RuneCountInString(desc) > maxDescriptionChars {
			desc = string([]rune(desc)[:maxDescriptionChars]) + "…"
		}
		line := fmt.Sprintf("- %s: %s\n", s.Name, desc)
		if listed == maxListedSkills || b.Len()+len(line) > maxListingChars {
			break
		}
		b.WriteString(line)
		listed++
	}
	if listed < len(ss) {
		fmt.Fprintf(&b, "(%d more skills are not listed here to keep this list short; call Skill with a name to load one.)\n", len(ss)-listed)
	}
	if len(ss) == 0 {
		b.WriteString("(none installed)\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

var schema = tools.SchemaOf[input](nil)

func (*Tool) InputSchema() json.RawMessage { return schema.JSON() }

type input struct {
	Skill string `json:"skill" jsonschema:"The name of the skill to load, as the list in this tool's description gives it."`
	Args  string `json:"args,omitempty" jsonschema:"Optional arguments for the skill."`
}

// Docs implements tools.Documented: the description without the machine's
// own skill list.
func (*Tool) Docs() tools.Docs {
	return tools.Docs{
		Short: "Load a skill (a folder with a SKILL.md) from the user's or a trusted project's skills folder.",
		Long: "Claude Code's Skill tool. Skills are folders holding a SKILL.md: YAML front matter with name and description, " +
			"then the instructions, and maybe scripts and files beside it. They are read from ~/.claude/skills and " +
			"toolhost's own user config folder (~/.config/toolhost/skills) always, and from a workspace folder's " +
			".claude/skills only once the folder is trusted: a project skill is instructions from the repository, so the " +
			"trust question lists it. The tool's description lists the skills (at most 50, 8,000 characters); the result is " +
			"the skill's instructions with its folder named, and args appended. Enabled and disabled like any tool.",
		Examples: []tools.Example{
			{Title: "Load a skill", Input: json.RawMessage(`{"skill":"release-notes"}`)},
			{Title: "Load a skill with arguments", Input: json.RawMessage(`{"skill":"pdf","args":"extract the tables of report.pdf"}`)},
		},
	}
}

// Execute loads the skill.
func (t *Tool) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var in input
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of Skill is not valid: %v. Send {\"skill\": \"name\"}.", err), nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	ss := t.skills()
	i := slices.IndexFunc(ss, func(s Skill) bool { return s.Name == name })
	if i < 0 {
		names := make([]string, 0, len(ss))
		for _, s := range ss {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return tools.ErrorResult("there is no skill %q: no skills are installed. Do the task without one.", name), nil
		}
		return tools.ErrorResult("there is no skill %q. The skills are: %s.", name, strings.Join(names, ", ")), nil
	}
	s := ss[i]
	data, err := readSkillFile(s.Path)
	if err != nil {
		return tools.ErrorResult("the skill %s cannot be read: %v.", s.Name, err), nil
	}
	_, body, err := parse(data)
	if err != nil {
		return tools.ErrorResult("the skill %s cannot be loaded: %s %v.", s.Name, s.Path, err), nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Base directory for this skill: %s\n\n%s", s.Dir, strings.TrimRight(body, "\n"))
	if strings.TrimSpace(in.Args) != "" {
		fmt.Fprintf(&b, "\n\nARGUMENTS: %s", in.Args)
	}
	res := tools.TextResult(b.String() + "\n")
	res.Structured = map[string]any{"success": true, "commandName": s.Name}
	return res, nil
}
