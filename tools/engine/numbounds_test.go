package engine

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestNumberBounds: integer instances take the int64 comparison of the
// patched validator (third_party/jsonschema/PATCHES.md), everything else
// the big.Rat one; both must answer as the bounds say, at and around each
// bound.
func TestNumberBounds(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"offset":{"type":"integer","maximum":9007199254740991},
		"limit":{"type":"integer","exclusiveMinimum":0,"maximum":9007199254740991},
		"ratio":{"type":"number","minimum":0.5,"exclusiveMaximum":2},
		"at":{"type":"number","minimum":-3,"maximum":3}}}`
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("bounds.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("bounds.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		input string
		ok    bool
	}{
		{`{"offset":9007199254740991}`, true},
		{`{"offset":9007199254740992}`, false},
		{`{"offset":-9007199254740993}`, true},
		{`{"offset":99999999999999999999999}`, false}, // past int64: the big.Rat path
		{`{"offset":9.007199254740992e15}`, false},    // an exponent: the big.Rat path
		{`{"limit":0}`, false},
		{`{"limit":1}`, true},
		{`{"limit":-1}`, false},
		{`{"ratio":0.5}`, true},
		{`{"ratio":0.49}`, false},
		{`{"ratio":1}`, true}, // an integer against fractional and integer bounds
		{`{"ratio":2}`, false},
		{`{"ratio":1.99}`, true},
		{`{"at":-3}`, true},
		{`{"at":-4}`, false},
		{`{"at":3}`, true},
		{`{"at":4}`, false},
		{`{"at":3.0001}`, false},
	}
	for _, tc := range cases {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.input))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != tc.ok {
			t.Errorf("%s: valid = %v, want %v (%v)", tc.input, err == nil, tc.ok, err)
		}
	}
}
