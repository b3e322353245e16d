package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// namedTool is a minimal Tool for registry tests.
type namedTool struct {
	name string
	side SideEffect
}

func (t namedTool) Name() string        { return t.name }
func (t namedTool) Description() string { return t.name + " does things." }
func (t namedTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (t namedTool) SideEffect() SideEffect { return t.side }
func (t namedTool) Execute(context.Context, *Call) (*Result, error) {
	return TextResult(t.name), nil
}

func newTestRegistry() *Registry {
	r := NewRegistry()
	r.Register(CategoryCore, namedTool{"Bash", SideEffectNetwork}, namedTool{"Read", SideEffectNone},
		namedTool{"Write", SideEffectMutating}, namedTool{"Edit", SideEffectMutating},
		namedTool{"Glob", SideEffectNone}, namedTool{"Grep", SideEffectNone})
	r.Register(CategoryAgent, namedTool{"Agent", SideEffectSpawns})
	return r
}

func TestLookupCaseInsensitiveAndAliases(t *testing.T) {
	r := newTestRegistry()
	cases := []struct{ in, want string }{
		{"Read", "Read"}, {"read", "Read"}, {"READ", "Read"}, {" Read ", "Read"},
		{"FileRead", "Read"}, {"read_file", "Read"}, {"FileEdit", "Edit"}, {"edit_file", "Edit"},
		{"FileWrite", "Write"}, {"write_file", "Write"}, {"Task", "Agent"}, {"task", "Agent"},
		{"bash", "Bash"}, {"grep", "Grep"}, {"glob", "Glob"}, {"search", "Grep"},
	}
	for _, c := range cases {
		e, ok := r.Lookup(c.in)
		if !ok || e.Tool.Name() != c.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", c.in, e.Tool, ok, c.want)
		}
	}
	if _, ok := r.Lookup("Nope"); ok {
		t.Error("Lookup(Nope) found a tool")
	}
	// Claude Code's earlier task tools reach their successors.
	r.Register(CategoryTasks, namedTool{"TaskOutput", SideEffectBlocking}, namedTool{"TaskStop", SideEffectState})
	for in, want := range map[string]string{"BashOutput": "TaskOutput", "KillShell": "TaskStop", "killshell": "TaskStop"} {
		if e, ok := r.Lookup(in); !ok || e.Tool.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, e.Tool, ok, want)
		}
	}
}

func TestOrderReplaceAndRemovePrefix(t *testing.T) {
	r := newTestRegistry()
	changes := 0
	r.OnChange(func() { changes++ })
	r.Register(CategoryMCP, namedTool{"mcp__gh__issues", SideEffectNetwork}, namedTool{"mcp__gh__prs", SideEffectNetwork},
		namedTool{"mcp__fs__read", SideEffectNone})
	r.Register(CategoryCore, namedTool{"read", SideEffectNone}) // replaces Read in place
	want := []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "Agent", "mcp__gh__issues", "mcp__gh__prs", "mcp__fs__read"}
	if got := r.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	removed := r.RemovePrefix("MCP__gh__")
	if !reflect.DeepEqual(removed, []string{"mcp__gh__issues", "mcp__gh__prs"}) {
		t.Errorf("removed %v", removed)
	}
	if _, ok := r.Lookup("mcp__gh__prs"); ok {
		t.Error("removed tool still found")
	}
	if got := r.RemovePrefix("mcp__none__"); got != nil {
		t.Errorf("removing nothing returned %v", got)
	}
	if changes != 3 {
		t.Errorf("OnChange called %d times, want 3 (two registers, one removal)", changes)
	}
}

func TestSetEnabled(t *testing.T) {
	r := newTestRegistry()
	if err := r.SetEnabled([]string{"bash", "FileWrite"}, false); err != nil {
		t.Fatal(err)
	}
	if got := r.EnabledNames(); !reflect.DeepEqual(got, []string{"Read", "Edit", "Glob", "Grep", "Agent"}) {
		t.Errorf("enabled = %v", got)
	}
	if n := len(r.Entries(true)); n != 7 {
		t.Errorf("Entries(includeDisabled) has %d tools, want 7", n)
	}
	err := r.SetEnabled([]string{"Read", "Nope"}, false)
	if err == nil || err.Error() != "unknown tools: Nope (see toolhost/listTools for the names)" {
		t.Errorf("err = %v", err)
	}
	if e, _ := r.Lookup("Read"); !e.Enabled {
		t.Error("a failed SetEnabled changed Read")
	}
}

func TestSetPolicy(t *testing.T) {
	r := newTestRegistry()
	changes := 0
	r.OnChange(func() { changes++ })
	r.SetPolicy(func(name string) bool { return name != "Bash" && name != "mcp__x__run" })
	if got := r.EnabledNames(); !reflect.DeepEqual(got, []string{"Read", "Write", "Edit", "Glob", "Grep", "Agent"}) {
		t.Errorf("enabled = %v", got)
	}
	r.Register(CategoryMCP, namedTool{"mcp__x__run", SideEffectNetwork}, namedTool{"mcp__x__list", SideEffectNone})
	if e, _ := r.Lookup("mcp__x__run"); e.Enabled {
		t.Error("a tool registered after SetPolicy ignored the policy")
	}
	if e, _ := r.Lookup("mcp__x__list"); !e.Enabled {
		t.Error("mcp__x__list should be enabled")
	}
	r.SetPolicy(func(name string) bool { return name != "mcp__x__run" })
	if e, _ := r.Lookup("Bash"); !e.Enabled {
		t.Error("Bash stayed disabled after the policy stopped disabling it")
	}
	r.SetPolicy(func(name string) bool { return name != "mcp__x__run" })
	if changes != 3 {
		t.Errorf("OnChange called %d times, want 3 (policy, register, policy; an unchanged policy is silent)", changes)
	}
}

func TestSuggest(t *testing.T) {
	r := newTestRegistry()
	cases := []struct {
		in   string
		want string
	}{{"Reed", "Read"}, {"Grepp", "Grep"}, {"Edits", "Edit"}}
	for _, c := range cases {
		got := r.Suggest(c.in, 3)
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("Suggest(%q) = %v, want %s first", c.in, got, c.want)
		}
	}
	if got := r.Suggest("Kubernetes", 3); len(got) != 0 {
		t.Errorf("Suggest(Kubernetes) = %v, want none", got)
	}
}

func TestDefinitionFormats(t *testing.T) {
	tool := namedTool{"Write", SideEffectMutating}
	cases := []struct {
		format string
		want   string
	}{
		{FormatAnthropic, `{"description":"Write does things.","input_schema":{"type":"object","properties":{}},"name":"Write"}`},
		{FormatOpenAI, `{"function":{"description":"Write does things.","name":"Write","parameters":{"type":"object","properties":{}}},"type":"function"}`},
		{FormatMCP, `{"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false},"description":"Write does things.","inputSchema":{"type":"object","properties":{}},"name":"Write"}`},
	}
	for _, c := range cases {
		def, err := Definition(tool, c.format)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(def)
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.format, b, c.want)
		}
	}
	if _, err := Definition(tool, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := newTestRegistry()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				name := fmt.Sprintf("mcp__s%d__t%d", i, j)
				r.Register(CategoryMCP, namedTool{name, SideEffectNone})
				if _, ok := r.Lookup(name); !ok {
					t.Errorf("%s not found right after Register", name)
				}
				r.Entries(false)
				r.SetEnabled([]string{"Read"}, j%2 == 0)
			}
			r.RemovePrefix(fmt.Sprintf("mcp__s%d__", i))
		}(i)
	}
	wg.Wait()
	if got := len(r.Names()); got != 7 {
		t.Errorf("%d tools left, want the 7 built-ins", got)
	}
}

func TestReplacePrefix(t *testing.T) {
	r := newTestRegistry()
	r.Register(CategoryMCP, namedTool{"mcp__gh__issues", SideEffectNetwork}, namedTool{"mcp__gh__prs", SideEffectNetwork})
	if err := r.SetEnabled([]string{"mcp__gh__issues"}, false); err != nil {
		t.Fatal(err)
	}
	changes := 0
	r.OnChange(func() { changes++ })
	r.ReplacePrefix("mcp__gh__", CategoryMCP, namedTool{"mcp__gh__issues", SideEffectNone}, namedTool{"mcp__gh__repos", SideEffectNone})
	want := []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "Agent", "mcp__gh__issues", "mcp__gh__repos"}
	if got := r.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	if e, _ := r.Lookup("mcp__gh__issues"); e.Enabled || e.Tool.SideEffect() != SideEffectNone {
		t.Errorf("a kept tool lost its enabled state or kept its old definition: %+v", e)
	}
	if changes != 1 {
		t.Errorf("OnChange called %d times, want 1", changes)
	}

	// Lookups running during replacements always find a tool that stays.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, ok := r.Lookup("mcp__gh__issues"); !ok {
				t.Error("a lookup during a replacement missed the tool")
				return
			}
		}
	}()
	for range 1000 {
		r.ReplacePrefix("mcp__gh__", CategoryMCP, namedTool{"mcp__gh__issues", SideEffectNone})
	}
	close(stop)
	wg.Wait()
}

// Every listener hears a change, in the order added, and a removed one no
// more.
func TestRegistryListeners(t *testing.T) {
	tests := []struct {
		name   string
		remove []int
		want   string
	}{
		{name: "all listen", want: "abc"},
		{name: "the middle one removed", remove: []int{1}, want: "ac"},
		{name: "all removed", remove: []int{0, 1, 2}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			var heard strings.Builder
			var removes []func()
			for _, name := range []string{"a", "b", "c"} {
				removes = append(removes, r.OnChange(func() { heard.WriteString(name) }))
			}
			for _, i := range tt.remove {
				removes[i]()
			}
			r.Register(CategoryExtras, &fakeTool{name: "GetTime"})
			if got := heard.String(); got != tt.want {
				t.Errorf("heard %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRegistryGeneration: every change of the set moves the generation,
// before the first listener hears of it; what changes nothing does not.
func TestRegistryGeneration(t *testing.T) {
	r := NewRegistry()
	var atListener uint64
	r.OnChange(func() { atListener = r.Generation() })
	steps := []struct {
		name   string
		change func()
		moves  bool
	}{
		{"a tool added", func() { r.Register(CategoryExtras, &fakeTool{name: "GetTime"}) }, true},
		{"the tool disabled", func() { _ = r.SetEnabled([]string{"GetTime"}, false) }, true},
		{"a policy that changes nothing", func() { r.SetPolicy(func(string) bool { return false }) }, false},
		{"the tools removed", func() { r.RemovePrefix("Get") }, true},
		{"nothing to remove", func() { r.RemovePrefix("Get") }, false},
	}
	for _, st := range steps {
		before := r.Generation()
		st.change()
		after := r.Generation()
		if moved := after != before; moved != st.moves {
			t.Errorf("%s: generation %d -> %d, want moved=%v", st.name, before, after, st.moves)
		}
		if st.moves && atListener != after {
			t.Errorf("%s: the listener saw generation %d, want %d", st.name, atListener, after)
		}
	}
}
