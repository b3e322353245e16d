package version

import (
	"runtime/debug"
	"testing"
)

func TestCompute(t *testing.T) {
	info := func(main string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: main}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name, stamped string
		read          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"stamped wins", "v1.2.3", info("v9.9.9"), "v1.2.3"},
		{"module version", "", info("v0.4.0"), "v0.4.0"},
		{"commit", "", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "0123456789ab"},
		{"dirty commit", "", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "0123456789ab-dirty"},
		{"nothing known", "", info("(devel)"), "dev"},
		{"no build info", "", none, "dev"},
	}
	for _, tt := range tests {
		if got := compute(tt.stamped, tt.read); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
