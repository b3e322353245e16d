package fs

import (
	"bytes"
	"cmp"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// The notebook code looks into a JSON document by byte ranges: a notebook of
// a hundred megabytes is indexed cell by cell, not decoded into maps. The
// walking is jsontext's, the Go team's prototype of encoding/json/v2: its Decoder
// reads a bytes.Buffer in place (no copy of the file), validates as it goes,
// and returns each value as a slice of its input without decoding it, so a
// value's range is the decoder's offset less the value's length.

// scanOptions read a document as encoding/json reads it: a repeated member
// name is allowed (the caller keeps the last, as a decoder does) and invalid
// UTF-8 in a string stands for U+FFFD.
var scanOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// errNotObject and errNotArray say a well-formed value is not of the kind
// a walk expects.
var (
	errNotObject = errors.New("the value is not a JSON object")
	errNotArray  = errors.New("the value is not a JSON array")
)

// scanner finds the ranges of values in data. It holds one decoder, so the
// callback of one of its walks must not start another walk on it.
type scanner struct {
	data []byte
	dec  jsontext.Decoder
	// base is where the decoder's input starts in data.
	base int
	// name is the current member's name, unquoted, reused from member to
	// member.
	name []byte
}

// newScanner returns a scanner over data.
func newScanner(data []byte) *scanner { return &scanner{data: data} }

// start points the decoder at the value at sp.
func (s *scanner) start(sp span) {
	s.base = sp.start
	s.dec.Reset(bytes.NewBuffer(s.data[sp.start:sp.end]), scanOptions...)
}

// value reads the next value and returns its range in data.
func (s *scanner) value() (span, error) {
	v, err := s.dec.ReadValue()
	if err != nil {
		return span{}, err
	}
	end := s.base + int(s.dec.InputOffset())
	return span{end - len(v), end}, nil
}

// document checks that data is one well-formed JSON object and calls fn
// with the name and value range of each of its members, in order. A syntax
// error anywhere in the file is returned (fn may have been called for the
// members before it); a well-formed value of another kind is errNotObject.
func (s *scanner) document(fn func(name []byte, val span)) error {
	s.start(span{0, len(s.data)})
	var err error
	if s.dec.PeekKind() == '{' {
		// Every member is read, so the whole file is checked.
		err = s.object(func(name []byte, val span) bool { fn(name, val); return true })
	} else {
		_, err = s.dec.ReadValue()
		if err == nil {
			err = errNotObject
		}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // an empty file
	}
	if err != nil && err != errNotObject {
		return err
	}
	// The file holds one value: anything after it but space is an error.
	switch _, next := s.dec.ReadToken(); next {
	case io.EOF:
		return err
	case nil:
		return errors.New("the file holds more than one JSON value")
	default:
		return next
	}
}

// members calls fn with the name and the value range of each member of the
// object at sp, in order, until fn returns false. name is valid only
// during the call.
func (s *scanner) members(sp span, fn func(name []byte, val span) bool) error {
	s.start(sp)
	return s.object(fn)
}

// object walks the object the decoder is at, through its closing brace
// (unless fn stops it).
func (s *scanner) object(fn func(name []byte, val span) bool) error {
	if tok, err := s.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return cmp.Or(err, errNotObject)
	}
	for s.dec.PeekKind() == '"' {
		quoted, err := s.dec.ReadValue()
		if err != nil {
			return err
		}
		// The decoder has checked the name; an error left here only says
		// invalid UTF-8 was replaced, as jsonString says.
		s.name, _ = jsontext.AppendUnquote(s.name[:0], quoted)
		val, err := s.value()
		if err != nil {
			return err
		}
		if !fn(s.name, val) {
			return nil
		}
	}
	_, err := s.dec.ReadToken() // the closing brace, or what stands there instead
	return err
}

// elements calls fn with the range of each element of the array at sp, in
// order, until fn returns false.
func (s *scanner) elements(sp span, fn func(i int, val span) bool) error {
	s.start(sp)
	if tok, err := s.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return cmp.Or(err, errNotArray)
	}
	for n := 0; ; n++ {
		switch s.dec.PeekKind() {
		case ']':
			_, err := s.dec.ReadToken()
			return err
		case jsontext.KindInvalid:
			_, err := s.dec.ReadToken() // the error PeekKind met
			return err
		}
		val, err := s.value()
		if err != nil {
			return err
		}
		if !fn(n, val) {
			return nil
		}
	}
}

// jsonString decodes the value at sp of data when it is a string.
func jsonString(data []byte, sp span) (string, bool) {
	if sp.start >= sp.end || jsontext.Value(data[sp.start:sp.end]).Kind() != '"' {
		return "", false
	}
	// The scanner has checked the string: an error left here only says
	// invalid UTF-8 or a lone surrogate became U+FFFD, as encoding/json
	// decodes them.
	s, _ := jsontext.AppendUnquote(nil, data[sp.start:sp.end])
	return string(s), true
}
