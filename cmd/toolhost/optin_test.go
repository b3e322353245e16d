package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToolsEnableAnOptInTool(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "tools", "list")
	if code != 0 || !strings.Contains(out, "QueryJSON") {
		t.Fatalf("list: code %d, %s %s", code, out, errOut)
	}
	if code, out, _ = runCLI(t, "", "call", "--root", dir, "QueryJSON", `{"json":"[1,2]","query":"add"}`); code != 1 || !strings.Contains(out, "off by default") {
		t.Fatalf("QueryJSON before enable: code %d, %q", code, out)
	}
	if code, out, errOut = runCLI(t, "", "tools", "enable", "--root", dir, "queryjson"); code != 0 || !strings.Contains(out, "not a trusted folder") {
		t.Fatalf("enable: code %d, %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".toolhost", "settings.local.json"))
	var doc struct {
		Tools struct {
			OptIn   []string `json:"optIn"`
			Enabled []string `json:"enabled"`
		} `json:"tools"`
	}
	if err != nil || json.Unmarshal(b, &doc) != nil || strings.Join(doc.Tools.OptIn, ",") != "QueryJSON" || len(doc.Tools.Enabled) != 0 {
		t.Fatalf("settings after enable: %s (%v)", b, err)
	}
	// The folder's own settings may turn tools on only once it is trusted.
	if code, out, _ = runCLI(t, "", "call", "--root", dir, "QueryJSON", `{"json":"[1,2]","query":"add"}`); code != 1 {
		t.Fatalf("QueryJSON after enable in an untrusted folder: code %d, %q", code, out)
	}
	if code, out, errOut = runCLI(t, "", "trust", dir); code != 0 {
		t.Fatalf("trust: code %d, %s %s", code, out, errOut)
	}
	if code, out, _ = runCLI(t, "", "call", "--root", dir, "QueryJSON", `{"json":"[1,2]","query":"add"}`); code != 0 || strings.TrimSpace(out) != "3" {
		t.Fatalf("QueryJSON after enable: code %d, %q", code, out)
	}
	if code, _, errOut = runCLI(t, "", "tools", "disable", "--root", dir, "QueryJSON"); code != 0 {
		t.Fatalf("disable: %s", errOut)
	}
	if code, out, _ = runCLI(t, "", "call", "--root", dir, "QueryJSON", `{"json":"[1,2]","query":"add"}`); code != 1 {
		t.Fatalf("QueryJSON after disable: code %d, %q", code, out)
	}
}
