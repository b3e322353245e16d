package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputSchema is a tool's input schema generated from the struct its input
// decodes into, so that the schema the model sees and the fields the tool
// reads are one declaration. Generating it takes reflection and
// jsonschema-go (milliseconds for all the tools, which a server lists while
// it answers its first requests), so the schemas the generator makes are
// kept in schemas_gen.go, Go source generated from the same structs (a
// switch over the schemas' keys, which costs nothing until a schema is
// asked for): a tool's schema is looked up there and generated only when
// missing.
// TestGeneratedSchemasAreCurrent (cmd/toolhost) regenerates every schema and
// fails when the file differs; `make docs` rewrites it.
//
// The struct says it all through tags:
//   - json: the property's name; a field without omitempty (or omitzero)
//     is required;
//   - jsonschema: the property's description (jsonschema.For's own tag);
//   - schema: constraints as comma-separated key=value pairs: minimum,
//     maximum, minLength, maxLength, minItems, maxItems, format,
//     default (a JSON value), enum (values separated by |), type (one or
//     several JSON types separated by |, for a field whose Go type says
//     less, e.g. number for an int that accepts 1.0),
//     additionalProperties=true for an open object, and pattern (or
//     items.pattern for an array's items), last, whose value is the rest
//     of the tag (a pattern may hold commas).
//
// Every top-level schema names its dialect in "$schema" (draft 2020-12,
// the one the validator and Claude Code's schemas use).
//
// Nullable Go types (pointers, slices, maps) give plain types: a property
// is optional by leaving it out, as Claude Code's schemas say it. What tags
// cannot say goes in an adjust function: a tool's schema names its variant
// (SchemaVariantOf), so that it is kept in schemas_gen.go too.
type InputSchema[In any] struct {
	adjust func(*jsonschema.Schema)
	// variant names an adjusted schema kept in schemas_gen.go ("" for the
	// plain schema, or an adjusted one generated when first used).
	variant string

	once sync.Once
	raw  json.RawMessage
	err  error
}

// SchemaOf returns the schema of In, adjusted by adjust (nil for none)
// after the tags are applied. The plain schema is kept in schemas_gen.go;
// an adjusted one without a variant name (tests, the settings' schema for
// the docs) is generated when first used.
func SchemaOf[In any](adjust func(*jsonschema.Schema)) *InputSchema[In] {
	s := &InputSchema[In]{adjust: adjust}
	if adjust == nil {
		keep(s)
	}
	return s
}

// SchemaVariantOf is SchemaOf(adjust) for a tool's schema: the adjusted
// schema is kept in schemas_gen.go under In's key and the variant's name,
// so that listing the tool generates nothing. The name tells the
// variants of one In apart.
func SchemaVariantOf[In any](variant string, adjust func(*jsonschema.Schema)) *InputSchema[In] {
	s := &InputSchema[In]{adjust: adjust, variant: variant}
	keep(s)
	return s
}

// keptSchema is an InputSchema listed among the schemas schemas_gen.go
// keeps.
type keptSchema interface {
	generated() GeneratedSchema
}

// keep lists s among the schemas schemas_gen.go keeps (AllSchemas). It is
// not generic, and SchemaOf is small enough to be inlined, so that the
// package variables of every tool family list their schemas from their
// own package's initialisation, without running code of their own for
// each schema's type. The key is named when listed, not here: naming
// reads In's type (for an unnamed struct its whole literal, tags and
// all), work every start would pay.
func keep(s keptSchema) {
	allSchemasMu.Lock()
	defer allSchemasMu.Unlock()
	allSchemas = append(allSchemas, s)
}

// generated is s as schemas_gen.go keeps it.
func (s *InputSchema[In]) generated() GeneratedSchema {
	return GeneratedSchema{Key: s.key(), Generate: func() (json.RawMessage, error) { return generate[In](s.adjust) }}
}

// key is the schema's key in schemas_gen.go: In's, with the variant's name.
func (s *InputSchema[In]) key() string {
	if s.variant == "" {
		return schemaKey[In]()
	}
	return schemaKey[In]() + "#" + s.variant
}

// GeneratedSchema is one schema kept in schemas_gen.go (an unadjusted
// SchemaOf, or a SchemaVariantOf): its key there and the function that
// generates it.
type GeneratedSchema struct {
	Key      string
	Generate func() (json.RawMessage, error)
}

// allSchemasMu guards allSchemas: package variables of every tool family
// call SchemaOf as their packages initialise.
var (
	allSchemasMu sync.Mutex
	allSchemas   []keptSchema
)

// AllSchemas lists every SchemaOf of the binary, for the test that keeps
// schemas_gen.go current.
func AllSchemas() []GeneratedSchema {
	allSchemasMu.Lock()
	defer allSchemasMu.Unlock()
	out := make([]GeneratedSchema, len(allSchemas))
	for i, s := range allSchemas {
		out[i] = s.generated()
	}
	return out
}

// schemaKey names In in schemas_gen.go: its package path and name, or its
// literal for an unnamed type.
func schemaKey[In any]() string {
	t := reflect.TypeFor[In]()
	if t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// JSON is the schema's text. A struct the generator cannot describe is a
// fault of the tool: the text then refers to a definition that does not
// exist, so the validator reports the tool's schema as broken (with this
// error) and the server keeps serving the other tools.
func (s *InputSchema[In]) JSON() json.RawMessage {
	s.once.Do(func() {
		if raw, ok := storedSchema(s.key()); ok && (s.adjust == nil || s.variant != "") {
			s.raw = json.RawMessage(raw)
			return
		}
		s.raw, s.err = generate[In](s.adjust)
		if s.err != nil {
			s.raw, _ = json.Marshal(map[string]any{"type": "object", "$ref": "#/$defs/broken", "$comment": s.err.Error()})
		}
	})
	return s.raw
}

// Err is the generation's error, for tests; nil when the schema is sound.
func (s *InputSchema[In]) Err() error {
	s.JSON()
	return s.err
}

// Decode decodes a validated input into In.
func (s *InputSchema[In]) Decode(input json.RawMessage) (In, error) {
	var in In
	err := json.Unmarshal(input, &in)
	return in, err
}

// schemaDialect is the "$schema" of every generated schema.
const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// rawMessageType is described as any JSON value, not as an array of bytes.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

func generate[In any](adjust func(*jsonschema.Schema)) (json.RawMessage, error) {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{rawMessageType: {}}})
	if err != nil {
		return nil, err
	}
	if err := applyTags(reflect.TypeFor[In](), s); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", reflect.TypeFor[In](), err)
	}
	if s.Type == "object" && s.Properties == nil {
		// An input without fields still says so: {"properties": {}}, as
		// Claude Code's schemas and strict function-calling APIs have it.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.Schema = schemaDialect
	if adjust != nil {
		adjust(s)
	}
	return json.Marshal(s)
}

// applyTags makes nullable types plain and applies the schema tags of t's
// fields to s, recursively through structs, slices and maps.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(t.Elem(), s.Items)
	case reflect.Map:
		return applyTags(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
	default:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		if err := applyTags(f.Type, prop); err != nil {
			return err
		}
		if tag, ok := f.Tag.Lookup("schema"); ok {
			if err := applyTag(prop, tag); err != nil {
				return fmt.Errorf("field %s: %w", name, err)
			}
		}
	}
	return nil
}

// applyTag applies one field's schema tag.
func applyTag(s *jsonschema.Schema, tag string) error {
	// A pattern may hold commas, so it is the last pair and takes the rest
	// of the tag; items.pattern constrains the items of an array.
	if i := strings.Index(tag, "pattern="); i >= 0 {
		start := strings.LastIndex(tag[:i], ",") + 1
		target := s
		switch key := tag[start : i+len("pattern")]; key {
		case "pattern":
		case "items.pattern":
			if target = s.Items; target == nil {
				return fmt.Errorf("schema tag items.pattern on a field that is not an array")
			}
		default:
			return fmt.Errorf("schema tag has an unknown key %q", key)
		}
		target.Pattern = tag[i+len("pattern="):]
		if tag = strings.TrimSuffix(tag[:start], ","); tag == "" {
			return nil
		}
	}
	for _, pair := range strings.Split(tag, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return fmt.Errorf("schema tag %q: want key=value", pair)
		}
		switch key {
		case "minimum", "maximum", "exclusiveMinimum":
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("schema tag %s=%q: %w", key, value, err)
			}
			switch key {
			case "minimum":
				s.Minimum = &f
			case "maximum":
				s.Maximum = &f
			default:
				s.ExclusiveMinimum = &f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("schema tag %s=%q: %w", key, value, err)
			}
			switch key {
			case "minLength":
				s.MinLength = &n
			case "maxLength":
				s.MaxLength = &n
			case "minItems":
				s.MinItems = &n
			default:
				s.MaxItems = &n
			}
		case "format":
			s.Format = value
		case "default":
			if !json.Valid([]byte(value)) {
				return fmt.Errorf("schema tag default=%q is not a JSON value", value)
			}
			s.Default = json.RawMessage(value)
		case "enum":
			s.Enum = nil
			for _, v := range strings.Split(value, "|") {
				s.Enum = append(s.Enum, v)
			}
		case "type":
			if types := strings.Split(value, "|"); len(types) > 1 {
				s.Type, s.Types = "", types
			} else {
				s.Type, s.Types = value, nil
			}
		case "additionalProperties":
			open, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("schema tag additionalProperties=%q: %w", value, err)
			}
			if open {
				s.AdditionalProperties = &jsonschema.Schema{} // marshals as true
			} else {
				s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
			}
		default:
			return fmt.Errorf("schema tag has an unknown key %q", key)
		}
	}
	return nil
}

// Omit is an adjust function for SchemaOf that leaves out properties: a
// variant of a tool's schema without the fields a setting adds.
func Omit(names ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, n := range names {
			delete(s.Properties, n)
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == n })
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(r string) bool { return r == n })
		}
	}
}
