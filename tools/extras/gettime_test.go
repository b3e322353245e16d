package extras

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tools"
)

func TestGetTime(t *testing.T) {
	// A fixed instant: 2026-03-29 00:30 UTC is just before the switch to
	// summer time in Europe, so the zones' offsets differ visibly.
	instant := time.Date(2026, 3, 29, 0, 30, 15, 0, time.UTC)
	tests := []struct {
		name      string
		input     string
		wantError string
		wantLines []string
		wantUnix  int64
	}{
		{
			name:      "Berlin in winter time",
			input:     `{"timezone":"Europe/Berlin"}`,
			wantLines: []string{"2026-03-29T01:30:15+01:00", "Sunday, 29 March 2026, 01:30:15 CET (UTC+01:00, Europe/Berlin)", "Unix time: 1774744215"},
		},
		{
			name:      "New York",
			input:     `{"timezone":"America/New_York"}`,
			wantLines: []string{"2026-03-28T20:30:15-04:00", "Saturday, 28 March 2026, 20:30:15 EDT (UTC-04:00, America/New_York)"},
		},
		{
			name:      "UTC",
			input:     `{"timezone":"UTC"}`,
			wantLines: []string{"2026-03-29T00:30:15Z", "UTC (UTC+00:00, UTC)"},
		},
		{
			name:      "unknown zone",
			input:     `{"timezone":"Mars/Olympus_Mons"}`,
			wantError: `unknown time zone "Mars/Olympus_Mons"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := NewGetTime(func() time.Time { return instant }).Execute(t.Context(), &tools.Call{Input: json.RawMessage(tc.input)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantError != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantError) {
					t.Fatalf("result %q, want an error with %q", res.Text(), tc.wantError)
				}
				return
			}
			for _, want := range tc.wantLines {
				if !strings.Contains(res.Text(), want) {
					t.Errorf("text %q lacks %q", res.Text(), want)
				}
			}
			out := res.Structured.(GetTimeOutput)
			parsed, err := time.Parse(time.RFC3339, out.RFC3339)
			if err != nil || !parsed.Equal(instant) || out.Unix != instant.Unix() {
				t.Errorf("structured %+v does not name the instant %v", out, instant)
			}
		})
	}
}

func TestGetTimeDefaultsToLocal(t *testing.T) {
	instant := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	res, err := NewGetTime(func() time.Time { return instant }).Execute(t.Context(), &tools.Call{Input: json.RawMessage(`{}`)})
	if err != nil || res.IsError {
		t.Fatalf("err %v, result %q", err, res.Text())
	}
	if want := instant.In(time.Local).Format(time.RFC3339); !strings.HasPrefix(res.Text(), want) {
		t.Errorf("text %q does not start with the local time %s", res.Text(), want)
	}
}
