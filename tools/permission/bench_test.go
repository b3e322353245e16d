package permission

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// BenchmarkCheck measures a decision against fifty rules of each kind, for
// a compound Bash command and for an edit matched by a path rule.
func BenchmarkCheck(b *testing.B) {
	rules := func(format string) string {
		s := ""
		for i := range 50 {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`"`+format+`"`, i)
		}
		return "[" + s + "]"
	}
	e := newEnv(b, `{"permissions": {"allow": `+rules("Bash(tool%d run:*)")+`, "ask": `+rules("Bash(danger%d:*)")+`, "deny": `+rules("Edit(secret%d/**)")+`}}`)
	c := e.checker("")
	calls := map[string]tools.PermissionCall{
		"bash": {Tool: bashTool, Access: tools.Access{Command: "tool3 run a && tool49 run b | tool7 run c"}},
		"edit": {Tool: editTool, Access: tools.Access{WritePaths: []string{"src/pkg/a.go"}}},
	}
	for name, pc := range calls {
		b.Run(name, func(b *testing.B) {
			host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllow}}
			for b.Loop() {
				if out, err := c.Check(context.Background(), host, pc); err != nil || !out.Allow {
					b.Fatalf("not allowed: %+v %v", out, err)
				}
			}
		})
	}
}
