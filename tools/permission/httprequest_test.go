package permission

import (
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

func TestHTTPRequestDomainRules(t *testing.T) {
	httpTool := fakeTool{name: "HTTPRequest", effect: tools.SideEffectNetwork}
	req := func(domain string) call { return call{tool: httpTool, access: tools.Access{Domain: domain}} }
	cases := []struct {
		name, rules string
		call        call
		want        verdict
	}{
		{"no rule asks", `[]`, req("api.example.com"), asked},
		{"domain rule allows", `["HTTPRequest(domain:api.example.com)"]`, req("api.example.com"), allowed},
		{"other host asks", `["HTTPRequest(domain:api.example.com)"]`, req("evil.com"), asked},
		{"subdomain wildcard", `["HTTPRequest(domain:*.example.com)"]`, req("api.example.com"), allowed},
		{"a WebFetch rule does not cover HTTPRequest", `["WebFetch(domain:api.example.com)"]`, req("api.example.com"), asked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, `{"permissions": {"allow": `+tc.rules+`}}`)
			got, out, host := run(t, e.checker(""), tc.call)
			if got != tc.want {
				t.Errorf("got %s (%q), want %s", got, out.Message, tc.want)
			}
			if tc.want == asked && len(host.requests) > 0 {
				if s := host.requests[0].Suggestions; len(s) == 0 || s[0] != "HTTPRequest(domain:"+tc.call.access.Domain+")" {
					t.Errorf("suggestions = %v", s)
				}
			}
		})
	}
	if _, err := settings.ParseRule("HTTPRequest(api.example.com)"); err == nil {
		t.Error("an HTTPRequest rule without domain: was accepted")
	}
}
