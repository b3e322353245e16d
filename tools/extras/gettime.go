package extras

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	// The zone database is embedded so that named zones work on machines
	// without /usr/share/zoneinfo (minimal containers, Windows).
	_ "time/tzdata"

	"github.com/toolhost/toolhost/tools"
)

//go:embed gettime.md
var getTimeDescription string

var getTimeSchema = tools.SchemaOf[getTimeParams](nil)

type getTimeParams struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"An IANA time zone such as \"Europe/Berlin\" or \"America/New_York\", or \"UTC\". Defaults to the machine's local zone."`
}

// GetTimeOutput is the structured result of GetTime.
type GetTimeOutput struct {
	RFC3339  string `json:"rfc3339"`
	Timezone string `json:"timezone"`
	Unix     int64  `json:"unix"`
}

// GetTime tells the current date and time.
type GetTime struct {
	now func() time.Time
}

// NewGetTime returns the GetTime tool reading the clock now (time.Now when nil).
func NewGetTime(now func() time.Time) *GetTime {
	if now == nil {
		now = time.Now
	}
	return &GetTime{now: now}
}

func (*GetTime) Name() string                 { return "GetTime" }
func (*GetTime) Description() string          { return getTimeDescription }
func (*GetTime) InputSchema() json.RawMessage { return getTimeSchema.JSON() }
func (*GetTime) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*GetTime) Docs() tools.Docs {
	return tools.Docs{
		Short: "The current date and time, in RFC 3339 and in words, in any IANA time zone.",
		Long: "Without a timezone the machine's local zone is used. The zone database is built into " +
			"the binary, so named zones work everywhere.",
		Examples: []tools.Example{
			{Title: "Local time", Input: json.RawMessage(`{}`)},
			{Title: "Time in Tokyo", Input: json.RawMessage(`{"timezone":"Asia/Tokyo"}`)},
		},
	}
}

// Execute reads the clock and formats it in the asked zone.
func (t *GetTime) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var p getTimeParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid GetTime input (%v); send {} or {\"timezone\": \"Europe/Paris\"}.", err), nil
	}
	loc := time.Local
	if name := strings.TrimSpace(p.Timezone); name != "" {
		l, err := time.LoadLocation(name)
		if err != nil {
			return tools.ErrorResult("unknown time zone %q; use an IANA name such as \"Europe/Berlin\", \"America/Los_Angeles\" or \"UTC\", or leave timezone out for local time.", name), nil
		}
		loc = l
	}
	now := t.now().In(loc)
	zoneName := loc.String()
	if zoneName == "Local" {
		zoneName = "local time"
	}
	abbrev, _ := now.Zone()
	text := fmt.Sprintf("%s\n%s %s (UTC%s, %s)\nUnix time: %d",
		now.Format(time.RFC3339),
		now.Format("Monday, 2 January 2006, 15:04:05"), abbrev, now.Format("-07:00"), zoneName,
		now.Unix())
	res := tools.TextResult(text)
	res.Structured = GetTimeOutput{RFC3339: now.Format(time.RFC3339), Timezone: zoneName, Unix: now.Unix()}
	return res, nil
}
