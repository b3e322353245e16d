package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/tools"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	segjson "github.com/segmentio/encoding/json"
)

// maxProblems caps how many problems one validation error lists; the model
// fixes the first few and calls again.
const maxProblems = 5

// Validator checks tool input against each tool's JSON Schema. It compiles a
// schema once and keeps it while the tool keeps that schema: an MCP server
// that re-lists a tool with another schema gets it recompiled, and schemas of
// tools no longer registered are dropped. Safe for concurrent use.
//
// Schemas are compiled with santhosh-tekuri/jsonschema: it implements every
// draft from 4 to 2020-12 (MCP servers send all of them) and reports each
// failure with its instance location and a typed kind, from which the
// messages name the field and what was expected.
//
// A tool's schema is compiled on the tool's first call, not ahead of it:
// compiling every tool's schema cost about a third of a start's CPU, and a
// session calls a handful of the tools.
type Validator struct {
	mu sync.Mutex
	// compiled maps a tool's lower-case name to its last compiled schema.
	compiled map[string]*compiledSchema
	// compile is the schema compiler (a test counts its runs).
	compile func(name string, source []byte) (*jsonschema.Schema, error)
}

// compiledSchema is a tool's schema text and what compiling it gave.
type compiledSchema struct {
	source []byte
	schema *jsonschema.Schema
	err    error
	// anyString names the top-level properties the schema only requires
	// to be strings (see anyStringProperties).
	anyString map[string]bool
}

// NewValidator returns an empty validator.
func NewValidator() *Validator {
	return &Validator{compiled: map[string]*compiledSchema{}, compile: compile}
}

// SchemaError is returned by Validate when the tool's own schema is broken:
// a fault of the tool, not of the input.
type SchemaError struct {
	Tool string
	Err  error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the input schema of %s does not compile: %v", e.Tool, e.Err)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Validate checks input against t's schema. It returns nil when the input
// is valid, a *Result with IsError naming the fields at fault when it is
// not, and a *SchemaError when the schema itself cannot be compiled.
// keep, when not nil, lists the names still registered; cached schemas of
// other tools are dropped when a new schema is compiled.
func (v *Validator) Validate(t tools.Tool, input []byte, keep func() []string) (*tools.Result, error) {
	problems, err := v.Problems(t, input, keep)
	if err != nil || len(problems) == 0 {
		return nil, err
	}
	return invalidInput("invalid input for "+t.Name(), problems), nil
}

// invalidInput is the error result listing the problems of an input.
func invalidInput(lead string, problems []string) *tools.Result {
	more := ""
	if len(problems) > maxProblems {
		more = fmt.Sprintf("; and %d more", len(problems)-maxProblems)
		problems = problems[:maxProblems]
	}
	return tools.ErrorResult("%s: %s%s. Fix the input to match the tool's input schema and call again.", lead, strings.Join(problems, "; "), more)
}

// Problems lists what is wrong with input, one line per problem naming the
// field ("limit: expected integer, got string"); none when it is valid.
// Input that is not JSON is one problem.
func (v *Validator) Problems(t tools.Tool, input []byte, keep func() []string) ([]string, error) {
	c, err := v.compiledFor(t, keep)
	if err != nil || c == nil {
		return nil, err
	}
	schema := c.schema
	doc, err := c.instance(input)
	if err != nil {
		return []string{fmt.Sprintf("the input is not valid JSON (%v); send a JSON object", err)}, nil
	}
	err = schema.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []string{err.Error()}, nil
	}
	return describe(verr), nil
}

// compiledFor returns t's compiled schema, compiling it when it is new or
// changed. A tool without a schema is not validated (nil, nil).
func (v *Validator) compiledFor(t tools.Tool, keep func() []string) (*compiledSchema, error) {
	source := t.InputSchema()
	if len(bytes.TrimSpace(source)) == 0 {
		return nil, nil
	}
	key := strings.ToLower(t.Name())
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.compiled[key]; ok && bytes.Equal(c.source, source) {
		return c, c.err
	}
	c := &compiledSchema{source: bytes.Clone(source)}
	c.schema, c.err = v.compile(t.Name(), source)
	if c.err != nil {
		c.err = &SchemaError{Tool: t.Name(), Err: c.err}
	} else {
		c.anyString = anyStringProperties(source)
	}
	if keep != nil {
		// Compiling is rare (a new tool or a changed schema): the moment to
		// drop the schemas of tools that went away.
		live := map[string]bool{key: true}
		for _, n := range keep() {
			live[strings.ToLower(n)] = true
		}
		for k := range v.compiled {
			if !live[k] {
				delete(v.compiled, k)
			}
		}
	}
	v.compiled[key] = c
	return c, c.err
}

// largeInput is the size from which an input's strings that the schema
// places no constraint on are not decoded to be validated.
const largeInput = 64 << 10

// instance decodes input for validation. A large input (a Write's content,
// an Edit's strings: megabytes) is read in one pass that skips over the
// values of properties the schema only requires to be strings: such a
// value stands in as "", which passes as the value would, so it is never
// unescaped and copied only to be checked for its type. The tool decodes
// it once, when it runs.
func (c *compiledSchema) instance(input []byte) (any, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) < largeInput || len(c.anyString) == 0 || trimmed[0] != '{' {
		return jsonschema.UnmarshalJSON(bytes.NewReader(input))
	}
	var fields map[string]json.RawMessage
	if rest, err := segjson.Parse(trimmed, &fields, segjson.ZeroCopy); err != nil || len(rest) > 0 {
		// Said as the decoder that is used for small inputs says it.
		return jsonschema.UnmarshalJSON(bytes.NewReader(input))
	}
	doc := make(map[string]any, len(fields))
	for name, raw := range fields {
		if c.anyString[name] && len(raw) > 0 && raw[0] == '"' {
			doc[name] = ""
			continue
		}
		value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		doc[name] = value
	}
	return doc, nil
}

// anyStringProperties lists the top-level properties of an object schema
// whose subschema is {"type": "string"} with annotations only, in a schema
// that has no keyword that could constrain them otherwise (allOf,
// dependentSchemas, $ref, ...). Any other schema gets none.
func anyStringProperties(source []byte) map[string]bool {
	var schema map[string]json.RawMessage
	if json.Unmarshal(source, &schema) != nil || string(schema["type"]) != `"object"` {
		return nil
	}
	for k := range schema {
		if !isPlainObjectKeyword(k) {
			return nil
		}
	}
	var props map[string]map[string]json.RawMessage
	if json.Unmarshal(schema["properties"], &props) != nil {
		return nil
	}
	out := map[string]bool{}
	for name, sub := range props {
		if string(sub["type"]) != `"string"` {
			continue
		}
		plain := true
		for k := range sub {
			plain = plain && (k == "type" || isAnnotationKeyword(k))
		}
		if plain {
			out[name] = true
		}
	}
	return out
}

// isPlainObjectKeyword reports whether k is a keyword of an object schema that constrains no
// declared property's value beyond its own subschema.
func isPlainObjectKeyword(k string) bool {
	switch k {
	case "$schema", "$id", "$comment", "type", "properties", "required",
		"additionalProperties", "title", "description", "examples", "default":
		return true
	}
	return false
}

// isAnnotationKeyword reports whether k is a keyword that never fails
// validation.
func isAnnotationKeyword(k string) bool {
	switch k {
	case "title", "description", "examples", "default", "$comment", "deprecated",
		"readOnly", "writeOnly":
		return true
	}
	return false
}

// compile compiles one schema. Remote references are not fetched (the
// compiler's default loader reads only files, and the schema is given
// in memory), so a schema cannot make the server reach the network.
func compile(name string, source []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(source))
	if err != nil {
		return nil, err
	}
	url := "mem:///tools/" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// english renders the library's messages for kinds described below only
// generically.
var english kind.English

// describe turns a validation error into one line per problem, each naming
// the field ("edits[0].old_string: missing required field"), sorted by field.
func describe(e *jsonschema.ValidationError) []string {
	var out []string
	collect(e, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i] < out[j] })
	return dedupe(out)
}

func collect(e *jsonschema.ValidationError, out *[]string) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if _, ok := k.(*kind.OneOf); ok && len(e.Causes) == 0 {
			*out = append(*out, field(e.InstanceLocation)+": "+k.LocalizedString(english))
			return
		}
		// One line for the alternatives: the first problem of each branch.
		var alts []string
		for _, c := range e.Causes {
			var sub []string
			collect(c, &sub)
			if len(sub) > 0 {
				sort.Strings(sub)
				alts = append(alts, sub[0])
			}
		}
		*out = append(*out, field(e.InstanceLocation)+": matches none of the allowed forms ("+strings.Join(dedupe(alts), " | ")+")")
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	*out = append(*out, problems(e)...)
}

// problems describes one leaf error.
func problems(e *jsonschema.ValidationError) []string {
	at := field(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []string
		for _, m := range k.Missing {
			out = append(out, field(append(append([]string(nil), e.InstanceLocation...), m))+": missing required field")
		}
		return out
	case *kind.AdditionalProperties:
		var out []string
		for _, p := range k.Properties {
			out = append(out, field(append(append([]string(nil), e.InstanceLocation...), p))+": unknown field; remove it")
		}
		return out
	case *kind.Type:
		return []string{fmt.Sprintf("%s: expected %s, got %s", at, strings.Join(k.Want, " or "), k.Got)}
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, display(w))
		}
		return []string{fmt.Sprintf("%s: expected one of %s, got %s", at, strings.Join(want, ", "), display(k.Got))}
	case *kind.Const:
		return []string{fmt.Sprintf("%s: expected %s, got %s", at, display(k.Want), display(k.Got))}
	case *kind.Minimum:
		return []string{fmt.Sprintf("%s: expected at least %s, got %s", at, number(k.Want), number(k.Got))}
	case *kind.Maximum:
		return []string{fmt.Sprintf("%s: expected at most %s, got %s", at, number(k.Want), number(k.Got))}
	case *kind.ExclusiveMinimum:
		return []string{fmt.Sprintf("%s: expected more than %s, got %s", at, number(k.Want), number(k.Got))}
	case *kind.ExclusiveMaximum:
		return []string{fmt.Sprintf("%s: expected less than %s, got %s", at, number(k.Want), number(k.Got))}
	case *kind.MinLength:
		return []string{fmt.Sprintf("%s: expected at least %d characters, got %d", at, k.Want, k.Got)}
	case *kind.MaxLength:
		return []string{fmt.Sprintf("%s: expected at most %d characters, got %d", at, k.Want, k.Got)}
	case *kind.MinItems:
		return []string{fmt.Sprintf("%s: expected at least %d items, got %d", at, k.Want, k.Got)}
	case *kind.MaxItems:
		return []string{fmt.Sprintf("%s: expected at most %d items, got %d", at, k.Want, k.Got)}
	case *kind.Pattern:
		return []string{fmt.Sprintf("%s: expected a string matching %s, got %s", at, k.Want, display(k.Got))}
	case *kind.FalseSchema:
		return []string{at + ": not allowed"}
	}
	return []string{at + ": " + e.ErrorKind.LocalizedString(english)}
}

// field turns an instance location (a JSON pointer's tokens) into a dotted
// field name: ["edits","0","old_string"] → "edits[0].old_string". The root
// is "input".
func field(loc []string) string {
	if len(loc) == 0 {
		return "input"
	}
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// display renders a JSON value in a message: strings quoted, numbers and
// the rest as JSON would write them.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// number renders a schema bound or an input number without trailing zeros.
func number(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(r.FloatString(6), "0")
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i > 0 && x == s[i-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}
