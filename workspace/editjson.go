package workspace

import (
	"maps"
	"slices"
	"strconv"

	segjson "github.com/segmentio/encoding/json"
)

// AppendJSON appends the params' JSON, the same bytes json.Marshal gives,
// to b. A Write's whole content travels in one edit's newText: encoding/json
// grows its buffer by doubling through it and then copies the result out,
// page-faulting fresh memory three times over; here the buffer is sized once
// from the texts and the strings are escaped by segmentio's word-at-a-time
// escaper.
func (p *ApplyWorkspaceEditParams) AppendJSON(b []byte) []byte {
	b = slices.Grow(b, p.JSONSize())
	b = append(b, '{')
	if p.Label != "" {
		b = appendJSONString(append(b, `"label":`...), p.Label)
		b = append(b, ',')
	}
	b = append(b, `"edit":{"documentChanges":`...)
	if p.Edit.DocumentChanges == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Edit.DocumentChanges {
			if i > 0 {
				b = append(b, ',')
			}
			b = p.Edit.DocumentChanges[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(p.Edit.ChangeAnnotations) > 0 {
		b = append(b, `,"changeAnnotations":{`...)
		for i, id := range slices.Sorted(maps.Keys(p.Edit.ChangeAnnotations)) {
			if i > 0 {
				b = append(b, ',')
			}
			a := p.Edit.ChangeAnnotations[id]
			b = appendJSONString(b, id)
			b = appendJSONString(append(b, `:{"label":`...), a.Label)
			if a.NeedsConfirmation {
				b = append(b, `,"needsConfirmation":true`...)
			}
			if a.Description != "" {
				b = appendJSONString(append(b, `,"description":`...), a.Description)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	if h := p.Toolhost; h != nil {
		b = append(b, `,"toolhost":{`...)
		if len(h.Disk) > 0 {
			b = append(b, `"disk":{`...)
			for i, uri := range slices.Sorted(maps.Keys(h.Disk)) {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(append(appendJSONString(b, uri), ':'), h.Disk[uri])
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSON writes the fields of whichever embedded change is set, in
// encoding/json's order: the TextDocumentEdit's, then the CreateFile's.
func (d *DocumentChange) appendJSON(b []byte) []byte {
	b = append(b, '{')
	n := len(b)
	if e := d.TextDocumentEdit; e != nil {
		b = appendJSONString(append(b, `"textDocument":{"uri":`...), e.TextDocument.URI)
		if v := e.TextDocument.Version; v != nil {
			b = strconv.AppendInt(append(b, `,"version":`...), int64(*v), 10)
		} else {
			b = append(b, `,"version":null`...)
		}
		b = append(b, `},"edits":`...)
		if e.Edits == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i := range e.Edits {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.Edits[i].appendJSON(b)
			}
			b = append(b, ']')
		}
	}
	if c := d.CreateFile; c != nil {
		if len(b) > n {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, `"kind":`...), c.Kind)
		b = appendJSONString(append(b, `,"uri":`...), c.URI)
		if o := c.Options; o != nil {
			b = append(b, `,"options":{`...)
			if o.Overwrite {
				b = append(b, `"overwrite":true`...)
			}
			if o.IgnoreIfExists {
				if o.Overwrite {
					b = append(b, ',')
				}
				b = append(b, `"ignoreIfExists":true`...)
			}
			b = append(b, '}')
		}
		if c.AnnotationID != "" {
			b = appendJSONString(append(b, `,"annotationId":`...), c.AnnotationID)
		}
	}
	return append(b, '}')
}

func (e *AnnotatedTextEdit) appendJSON(b []byte) []byte {
	b = append(b, `{"range":`...)
	b = e.Range.appendJSON(b)
	b = appendJSONString(append(b, `,"newText":`...), e.NewText)
	if e.AnnotationID != "" {
		b = appendJSONString(append(b, `,"annotationId":`...), e.AnnotationID)
	}
	return append(b, '}')
}

func (r Range) appendJSON(b []byte) []byte {
	b = r.Start.appendJSON(append(b, `{"start":`...))
	b = r.End.appendJSON(append(b, `,"end":`...))
	return append(b, '}')
}

func (p Position) appendJSON(b []byte) []byte {
	b = strconv.AppendUint(append(b, `{"line":`...), uint64(p.Line), 10)
	b = strconv.AppendUint(append(b, `,"character":`...), uint64(p.Character), 10)
	return append(b, '}')
}

// appendJSONString escapes s as encoding/json does by default: HTML
// characters, control characters, U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	return segjson.AppendEscape(b, s, segjson.EscapeHTML)
}

// JSONSize is about the size of the params' JSON: the texts, an eighth
// more for the escapes of their line breaks and quotes, and room for each
// edit's envelope. An underestimate costs one more growth of the buffer.
func (p *ApplyWorkspaceEditParams) JSONSize() int {
	n := 256 + len(p.Label)
	for _, d := range p.Edit.DocumentChanges {
		n += 128
		if e := d.TextDocumentEdit; e != nil {
			n += len(e.TextDocument.URI)
			for _, t := range e.Edits {
				n += 128 + len(t.NewText) + len(t.NewText)/8
			}
		}
		if c := d.CreateFile; c != nil {
			n += len(c.URI)
		}
	}
	return n
}
