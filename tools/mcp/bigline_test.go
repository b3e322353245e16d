package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// bigListServer is an MCP server (bash) whose tools/list answer is one
// line longer than the client's line cap; otherwise it answers the
// handshake and keeps running.
const bigListServer = `while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}}\n' "$id";;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","description":"' "$id"; head -c 17000000 /dev/zero | tr '\0' x; printf '","inputSchema":{"type":"object"}}]}}\n';;
    *'"id":'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}\n' "$id";;
  esac
done
`

// A server that sends a message longer than the client takes is reported
// as that, with the process still running, and is not restarted in a loop.
func TestServerFailureNamesItsCause(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "big.sh")
	if err := os.WriteFile(script, []byte(bigListServer), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	_, _, log := startManagerIn(t, reg, dir, map[string]settings.MCPServer{"big": {Command: "bash", Args: []string{script}}}, func(o *Options) {
		o.RestartBackoff = 10 * time.Millisecond
	})
	failed, _ := log.waitFor(t, 0, "failed", func(st ServerStatus) bool { return st.State == StateFailed })
	if strings.Contains(failed.LastError, "exited") || !strings.Contains(failed.LastError, "longer than") {
		t.Errorf("last error %q; want the real cause (a message over the line cap), not an exit", failed.LastError)
	}
	final, _ := log.waitFor(t, 0, "given up without restarts", func(st ServerStatus) bool {
		return st.State == StateFailed && strings.Contains(st.LastError, "not restarted")
	})
	if final.Restarts != 0 {
		t.Errorf("restarted %d times for a failure that repeats", final.Restarts)
	}
}
