package shell

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// progressRecorder records progress reports.
type progressRecorder struct {
	mu      sync.Mutex
	reports []string
}

func (p *progressRecorder) Report(m string) {
	p.mu.Lock()
	p.reports = append(p.reports, m)
	p.mu.Unlock()
}

func (p *progressRecorder) has(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.reports {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// exec runs a tool with ctx and a progress recorder.
func execTool(ctx context.Context, tool tools.Tool, input any, p tools.Progress) (*tools.Result, error) {
	raw, _ := json.Marshal(input)
	if p == nil {
		p = tools.NoProgress{}
	}
	return tool.Execute(ctx, &tools.Call{Input: raw, Host: tools.NoHost{}, Progress: p})
}

// with returns a settings function with changes applied to the defaults.
func with(change func(*settings.Settings)) func() *settings.Settings {
	s := settings.Defaults()
	change(s)
	return func() *settings.Settings { return s }
}
