package extras

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// FactsFile holds Memory's key/value facts, beside the notes.
const FactsFile = "facts.json"

// maxFactLength caps one fact's content; facts are short by design (a note
// holds anything longer).
const maxFactLength = 10_000

// isFactAction reports the actions that work on facts.
func isFactAction(action string) bool {
	switch action {
	case "set_fact", "get_fact", "clear_fact", "clear":
		return true
	}
	return false
}

func (m *Memory) factsPath() string { return filepath.Join(m.dir(), FactsFile) }

// facts runs one fact action.
func (m *Memory) facts(p memoryParams) (*tools.Result, error) {
	name := strings.TrimSpace(p.Name)
	if p.Action != "clear" && p.Action != "get_fact" && name == "" {
		return tools.ErrorResult("%s needs a name: the fact's key, e.g. \"test-command\".", p.Action), nil
	}
	if len(name) > maxNoteNameLength {
		return tools.ErrorResult("the fact name is longer than %d characters; use a shorter name.", maxNoteNameLength), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	facts, errRes := m.loadFacts(p.Action == "clear")
	if errRes != nil {
		return errRes, nil
	}
	switch p.Action {
	case "get_fact":
		if name == "" {
			return factList(facts), nil
		}
		v, ok := facts[name]
		if !ok {
			return missingFact(name, facts), nil
		}
		res := tools.TextResult(v)
		res.Structured = map[string]string{"name": name, "content": v}
		return res, nil
	case "set_fact":
		if p.Content == nil {
			return tools.ErrorResult("set_fact needs content: the fact's value."), nil
		}
		if len(*p.Content) > maxFactLength {
			return tools.ErrorResult("a fact holds at most %d characters; keep longer text in a note (action \"write\").", maxFactLength), nil
		}
		_, had := facts[name]
		facts[name] = *p.Content
		if err := m.saveFacts(facts); err != nil {
			return nil, err
		}
		verb := "Set"
		if had {
			verb = "Replaced"
		}
		return tools.TextResult(fmt.Sprintf("%s the fact %q (%d facts in %s/%s).", verb, name, len(facts), MemoryDir, FactsFile)), nil
	case "clear_fact":
		if _, ok := facts[name]; !ok {
			return missingFact(name, facts), nil
		}
		delete(facts, name)
		if err := m.saveFacts(facts); err != nil {
			return nil, err
		}
		return tools.TextResult(fmt.Sprintf("Cleared the fact %q (%d left).", name, len(facts))), nil
	default: // clear
		err := m.removeRel(factsRel())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("clear facts: %w", err)
		}
		return tools.TextResult(fmt.Sprintf("Cleared all facts (%d). The notes are kept.", len(facts))), nil
	}
}

// loadFacts reads the facts file. A file that is not a regular file or not
// a JSON object of strings is reported, never overwritten, unless the
// caller is about to clear it (lenient).
func (m *Memory) loadFacts(lenient bool) (map[string]string, *tools.Result) {
	path := m.factsPath()
	facts := map[string]string{}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return facts, nil
	}
	if err == nil && !st.Mode().IsRegular() {
		err = errors.New("it is not a regular file")
	}
	var data []byte
	if err == nil {
		data, err = pathutil.ReadFileIn(m.ws.Root(), factsRel(), maxNoteBytes)
	}
	if err == nil {
		err = json.Unmarshal(data, &facts)
	}
	if err != nil && !lenient {
		return nil, tools.ErrorResult("the facts file %s/%s cannot be used (%v); nothing was changed. Ask the user to fix or remove it, or call Memory with action \"clear\" to start over.", MemoryDir, FactsFile, err)
	}
	if facts == nil || err != nil {
		facts = map[string]string{}
	}
	return facts, nil
}

// saveFacts writes the facts atomically, sorted by name (encoding/json
// sorts map keys), so the file diffs well.
func (m *Memory) saveFacts(facts map[string]string) error {
	data, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		return err
	}
	if err := workspace.WriteFileIn(m.ws.Root(), factsRel(), append(data, '\n')); err != nil {
		return fmt.Errorf("write facts: %w", err)
	}
	return nil
}

// factsRel is the facts file's path relative to the workspace root (it is
// read and written through an os.Root on the root, as notes are).
func factsRel() string { return filepath.Join(filepath.FromSlash(MemoryDir), FactsFile) }

func sortedFactNames(facts map[string]string) []string {
	names := make([]string, 0, len(facts))
	for n := range facts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func missingFact(name string, facts map[string]string) *tools.Result {
	if len(facts) == 0 {
		return tools.ErrorResult("there is no fact %q, and no facts at all yet; store one with action \"set_fact\".", name)
	}
	names := sortedFactNames(facts)
	for i, n := range names {
		names[i] = visible.Name(n)
	}
	return tools.ErrorResult("there is no fact %q. The facts are: %s.", name, strings.Join(names, ", "))
}

// factList is every fact as name: content, for get_fact without a name.
func factList(facts map[string]string) *tools.Result {
	if len(facts) == 0 {
		return tools.TextResult("No facts yet. Store one with action \"set_fact\".")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d facts:\n", len(facts))
	for _, n := range sortedFactNames(facts) {
		// A facts file can come with the repository: a name holding a
		// newline must not start a line of its own.
		fmt.Fprintf(&b, "- %s: %s\n", visible.Name(n), facts[n])
	}
	res := tools.TextResult(strings.TrimSuffix(b.String(), "\n"))
	res.Structured = facts
	return res
}
