package fs

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolhost/toolhost/workspace"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// The encoding seam of Write and Edit. Both plan on UTF-8 text; at the file
// boundary the file's bytes are decoded (fileEncoding) and the new text is
// encoded back the same way (encode), so that, as in Claude Code, a UTF-16
// file stays UTF-16 and a byte-order mark stays. What cannot be decoded and
// encoded back to the very same bytes (Latin-1 or other legacy encodings,
// UTF-16 with broken surrogates, binary) is refused rather than rewritten
// as something else.

// textEncoding is how a text file is stored.
type textEncoding struct {
	// name is for the model ("UTF-8 with BOM"); "" for plain UTF-8.
	name string
	// bom is the byte-order mark the file starts with.
	bom []byte
	// utf16 is the x/text codec of a UTF-16 file, nil for UTF-8.
	utf16 *unicode.Endianness
}

var (
	littleEndian = unicode.LittleEndian
	bigEndian    = unicode.BigEndian

	plainUTF8 = textEncoding{}
	utf8BOM   = textEncoding{name: "UTF-8 with BOM", bom: bomUTF8}
	utf16LE   = textEncoding{name: "UTF-16LE with BOM", bom: bomUTF16LE, utf16: &littleEndian}
	utf16BE   = textEncoding{name: "UTF-16BE with BOM", bom: bomUTF16BE, utf16: &bigEndian}
)

// encodingError is a file whose encoding Write and Edit cannot keep.
type encodingError struct {
	path string
	why  string
}

func (e *encodingError) Error() string {
	return fmt.Sprintf("%s %s, and changing it here would rewrite it in another encoding. Convert it to UTF-8 first with Bash (for example iconv -f latin1 -t utf-8 file > file.utf8 && mv file.utf8 file), then Read it and make the change; or change it with a command that keeps its bytes", e.path, e.why)
}

// fileEncoding returns how the file at path with content data is stored
// and its text as UTF-8 without the byte-order mark. nil data (a file to
// be created) is plain UTF-8. For UTF-8 the text shares data's bytes.
func fileEncoding(path string, data []byte) (textEncoding, []byte, error) {
	enc := plainUTF8
	switch {
	case bytes.HasPrefix(data, bomUTF16LE):
		enc = utf16LE
	case bytes.HasPrefix(data, bomUTF16BE):
		enc = utf16BE
	case bytes.HasPrefix(data, bomUTF8):
		enc = utf8BOM
	}
	body := data[len(enc.bom):]
	if enc.utf16 == nil {
		if !utf8.Valid(body) {
			return enc, nil, &encodingError{path: path, why: "is not valid UTF-8 (Latin-1 or another legacy encoding, or binary)"}
		}
		return enc, body, nil
	}
	text, _, err := transform.Bytes(enc.codec().NewDecoder(), body)
	if err == nil && !bytes.Equal(enc.encode(string(text)), data) {
		err = fmt.Errorf("it does not decode and encode back to the same bytes")
	}
	if err != nil {
		return enc, nil, &encodingError{path: path, why: "is " + enc.name + " text that cannot be kept exactly (" + err.Error() + ")"}
	}
	return enc, text, nil
}

// codec is the x/text codec of a UTF-16 encoding (without the BOM, which
// encode and fileEncoding handle).
func (e textEncoding) codec() encoding.Encoding {
	return unicode.UTF16(*e.utf16, unicode.IgnoreBOM)
}

// encode returns text (UTF-8) as the file stores it. A byte-order mark the
// text itself starts with is not doubled.
func (e textEncoding) encode(text string) []byte {
	if len(e.bom) > 0 {
		text = strings.TrimPrefix(text, "\uFEFF")
	}
	if e.utf16 == nil && len(e.bom) == 0 {
		// The content as given: shared, not copied (nothing writes into
		// a change's new content).
		return workspace.ReadOnlyBytes(text)
	}
	if e.utf16 == nil {
		return append(append(make([]byte, 0, len(e.bom)+len(text)), e.bom...), text...)
	}
	// Valid UTF-8 always encodes; invalid bytes become U+FFFD, and text
	// that reaches here came from a JSON string, which is valid UTF-8.
	out, _, _ := transform.Bytes(e.codec().NewEncoder(), []byte(text))
	return append(append(make([]byte, 0, len(e.bom)+len(out)), e.bom...), out...)
}

// keptNote is the sentence a result adds when the file's encoding was kept;
// "" for plain UTF-8.
func (e textEncoding) keptNote() string {
	if e.name == "" {
		return ""
	}
	return " The file's encoding (" + e.name + ") was kept."
}

// decodedChange returns done with Old and New as UTF-8 text when the file
// is UTF-16, for the result's diff and echoes; done itself otherwise.
func decodedChange(done workspace.Modified) workspace.Modified {
	enc, old, err := fileEncoding("", done.Old)
	if err != nil || enc.utf16 == nil {
		return done
	}
	_, next, err := fileEncoding("", done.New)
	if err != nil {
		return done
	}
	done.Old, done.New, done.Changes = old, next, nil
	return done
}
