package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/settings"
	toolmcp "github.com/toolhost/toolhost/tools/mcp"
	"github.com/toolhost/toolhost/tools/skills"
)

// settingsPollInterval is how often a session looks at its settings files
// and the trust file, so that `toolhost trust` in a shell, or a settings
// file saved in an editor that sends no workspace/didChangeConfiguration,
// reloads a running session's settings. A handful of stats per second.
const settingsPollInterval = time.Second

// TrustState is the trust part of toolhost/status.
type TrustState struct {
	// Roots says, per workspace root, whether its project layers apply.
	Roots []settings.RootTrust `json:"roots"`
	// Ignored is everything the untrusted roots asked for and did not get:
	// settings keys and .mcp.json servers.
	Ignored []settings.Ignored `json:"ignored"`
	// Declined is set once the user answered "Don't trust" in this session.
	Declined bool `json:"declined"`
	// TrustFile is where trusted folders are remembered.
	TrustFile string `json:"trustFile"`
}

// Trust returns each root's trust and what the untrusted ones ask for.
func (s *Session) Trust() TrustState {
	st := s.Settings.Current()
	out := TrustState{Roots: st.Trust.Roots, TrustFile: s.Settings.TrustFilePath()}
	for _, r := range st.Trust.Roots {
		if !r.Trusted {
			out.Ignored = append(out.Ignored, s.UntrustedItems(r.Root)...)
		}
	}
	if out.Roots == nil {
		out.Roots = []settings.RootTrust{}
	}
	if out.Ignored == nil {
		out.Ignored = []settings.Ignored{}
	}
	s.trustMu.Lock()
	out.Declined = s.trustDeclined
	s.trustMu.Unlock()
	return out
}

// UntrustedItems lists what root asks for while it is untrusted: the
// ignored settings of its project files and, for the first root (the one
// whose .mcp.json is read), each .mcp.json server. A trusted root asks for
// nothing.
func (s *Session) UntrustedItems(root string) []settings.Ignored {
	st := s.Settings.Current()
	if st.Trust.Trusted(root) {
		return nil
	}
	items := st.Trust.IgnoredIn(root)
	// A project skill is instructions from the repository, offered to the
	// model only once the folder is trusted.
	for _, sk := range skills.ProjectSkills(root) {
		items = append(items, settings.Ignored{File: sk.Path, Key: "skills", What: "skill " + sk.Name + ": " + sk.Description, Why: "gives the agent instructions"})
	}
	if root == s.Workspace.Root() {
		servers, err := toolmcp.LoadProjectConfig(root)
		if err == nil {
			file := filepath.Join(root, toolmcp.ProjectConfigFile)
			names := make([]string, 0, len(servers))
			for name := range servers {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				items = append(items, settings.Ignored{File: file, Key: "mcpServers", What: describeServer(name, servers[name]), Why: "runs a command"})
			}
		}
	}
	return items
}

// TrustQuestion returns the untrusted roots that ask for something and
// were not returned before, so the caller asks the user once per folder and
// session: the folders open at the start, then each folder added later.
// Folders that ask for nothing are never returned.
func (s *Session) TrustQuestion() []string {
	var candidates []string
	for _, r := range s.Settings.Current().Trust.Roots {
		if !r.Trusted && len(s.UntrustedItems(r.Root)) > 0 {
			candidates = append(candidates, r.Root)
		}
	}
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	if s.trustAsked == nil {
		s.trustAsked = map[string]bool{}
	}
	var roots []string
	for _, root := range candidates {
		if !s.trustAsked[root] {
			s.trustAsked[root] = true
			roots = append(roots, root)
		}
	}
	return roots
}

// TrustFolder remembers root as trusted in the user's trust file and
// reloads the settings, so the folder's settings and MCP servers apply.
func (s *Session) TrustFolder(root string) error {
	if _, err := (settings.TrustFile{Path: s.Settings.TrustFilePath()}).Trust(root); err != nil {
		return err
	}
	s.Settings.Reload()
	// The settings listener reloads the MCP servers in the background; doing
	// it here too means the folder's servers are configured (and shown in
	// status) by the time this returns.
	if s.MCP != nil {
		if err := s.MCP.Reload(); err != nil {
			s.Log.Warn("the MCP servers could not be reloaded", "err", err)
		}
	}
	return nil
}

// DeclineTrust records the user's "Don't trust" for this session: the
// folder stays untrusted and is not asked about again.
func (s *Session) DeclineTrust() {
	s.trustMu.Lock()
	s.trustDeclined = true
	s.trustMu.Unlock()
}

// logIgnored names each ignored item once in the log, with how to trust the
// folder.
func (s *Session) logIgnored(st *settings.Settings) {
	for _, r := range st.Trust.Roots {
		if r.Trusted {
			continue
		}
		for _, i := range s.UntrustedItems(r.Root) {
			key := i.File + "\x00" + i.What
			s.trustMu.Lock()
			seen := s.trustLogged[key]
			if s.trustLogged == nil {
				s.trustLogged = map[string]bool{}
			}
			s.trustLogged[key] = true
			s.trustMu.Unlock()
			if !seen {
				s.Log.Warn("ignored because the folder is not trusted", "file", i.File, "item", i.What, "why", i.Why, "toTrust", TrustCommand(r.Root))
			}
		}
	}
}

// TrustCommand is the shell command that trusts root.
func TrustCommand(root string) string {
	return "toolhost trust " + shellQuote(root)
}

func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}

// watchSettingsFiles reloads the settings when one of the files they are
// read from changes from what last recorded: a `toolhost trust` or
// `--revoke` from a shell, or a settings file saved in any editor or by a
// command. Until ctx ends.
func (s *Session) watchSettingsFiles(ctx context.Context, last map[string]stamp, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// The list is read each time: the workspace folders may change.
		now := stampsOf(s.Settings.Files())
		if !maps.Equal(now, last) {
			last = now
			s.Settings.Reload()
		}
	}
}

// stampsOf stamps each of files.
func stampsOf(files []string) map[string]stamp {
	out := make(map[string]stamp, len(files))
	for _, f := range files {
		out[f] = fileStamp(f)
	}
	return out
}

// stamp identifies a version of a file well enough to notice a rewrite
// (the trust file is replaced by a rename, so its inode changes too).
type stamp struct {
	exists bool
	mod    time.Time
	size   int64
	inode  uint64
}

func fileStamp(path string) stamp {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, mod: st.ModTime(), size: st.Size(), inode: inodeOf(st)}
}

// TrustNotice is, for a terminal, what each untrusted root asked for and
// did not get, with the command that trusts it; empty when nothing was
// ignored.
func (s *Session) TrustNotice() string {
	var b strings.Builder
	for _, r := range s.Settings.Current().Trust.Roots {
		items := s.UntrustedItems(r.Root)
		if r.Trusted || len(items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "toolhost: %s is not a trusted folder; its settings may only restrict, so this was ignored:\n", r.Root)
		for _, i := range items {
			fmt.Fprintf(&b, "  - %s (%s)\n", i.What, i.File)
		}
		fmt.Fprintf(&b, "toolhost: if you trust whoever wrote that folder, run: %s\n", TrustCommand(r.Root))
	}
	return b.String()
}

// TrustQuestionText is the trust question in words: the folder and each
// thing it would enable, for the editor's dialog or an MCP client's form.
func TrustQuestionText(root string, items []settings.Ignored) string {
	// What would run the moment the folder is trusted (hooks, MCP servers,
	// environment) comes first: it is what the user must read.
	var runs, rest []settings.Ignored
	for _, i := range items {
		if i.Why == settings.WhyRunsCommand {
			runs = append(runs, i)
		} else {
			rest = append(rest, i)
		}
	}
	line := func(b *strings.Builder, i settings.Ignored) {
		file := i.File
		if rel, ok := strings.CutPrefix(file, root+"/"); ok {
			file = rel
		}
		fmt.Fprintf(b, "- %s (%s)\n", i.What, file)
	}
	var b strings.Builder
	if len(runs) > 0 {
		fmt.Fprintf(&b, "Do you trust the folder %s? Trusting it runs its commands at once; until you do, toolhost ignores them. Runs at once when trusted:\n", root)
		for _, i := range runs {
			line(&b, i)
		}
		if len(rest) > 0 {
			b.WriteString("Also grants:\n")
		}
	} else {
		fmt.Fprintf(&b, "Do you trust the folder %s? Until you do, toolhost ignores what its settings ask for:\n", root)
	}
	for _, i := range rest {
		line(&b, i)
	}
	b.WriteString("Trust it only if you trust whoever wrote it: trusting runs these commands and grants these permissions. `toolhost trust --revoke` undoes it.")
	return b.String()
}

// projectMCPServerCommand spells out what the .mcp.json server name runs
// or connects to, for its approval prompt; empty when it cannot be read.
func (s *Session) projectMCPServerCommand(name string) string {
	servers, err := toolmcp.LoadProjectConfig(s.mcpRoot)
	if err != nil {
		return ""
	}
	srv, ok := servers[name]
	if !ok {
		return ""
	}
	return describeServer(name, srv)
}

// describeServer is settings.DescribeMCPServer for a decoded server entry.
func describeServer(name string, srv settings.MCPServer) string {
	var v any
	b, _ := json.Marshal(srv)
	_ = json.Unmarshal(b, &v)
	return settings.DescribeMCPServer(name, v)
}
