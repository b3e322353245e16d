package fs

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// decodedText is a file's bytes as text for display.
type decodedText struct {
	text string
	// note says how the bytes were decoded when not plain UTF-8.
	note string
}

// decodeForDisplay turns file bytes into text Read can show: UTF-8 (a BOM
// dropped), UTF-16 with a BOM decoded, anything else with invalid bytes
// shown as U+FFFD and a note. data must not change afterwards: valid UTF-8
// text shares its bytes.
func decodeForDisplay(data []byte) decodedText {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data = data[len(bomUTF8):]
	case bytes.HasPrefix(data, bomUTF16LE), bytes.HasPrefix(data, bomUTF16BE):
		return decodedText{text: decodeUTF16(data), note: "The file is UTF-16 text, shown decoded; Edit and Write keep its encoding."}
	}
	if utf8.Valid(data) && len(data) > 0 {
		// The text shares data's bytes instead of copying them (a 400 KB file
		// would otherwise cost a second 400 KB): callers hand over data and
		// never change it afterwards.
		return decodedText{text: unsafe.String(&data[0], len(data))}
	}
	return decodedText{
		text: strings.ToValidUTF8(string(data), "\uFFFD"),
		note: "The file is not valid UTF-8; undecodable bytes are shown as \uFFFD. Edit and Write refuse to change it rather than rewrite it in another encoding: convert it to UTF-8 first (iconv) to change it.",
	}
}

// decodeUTF16 decodes UTF-16 with a leading BOM.
func decodeUTF16(data []byte) string {
	le := bytes.HasPrefix(data, bomUTF16LE)
	data = data[2:]
	units := make([]uint16, 0, len(data)/2)
	for i := 0; i+1 < len(data); i += 2 {
		if le {
			units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
		} else {
			units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
		}
	}
	return string(utf16.Decode(units))
}

// looksBinary reports whether data is not text, judged on its first 8 KiB.
// A NUL byte alone does not make a file binary: a text file with a stray
// NUL (a log, a fixture) is shown, as Claude Code shows it. It is binary
// when, besides a NUL, the bytes are not UTF-8, hold other control bytes no
// text has, or are NUL for more than a tenth of them (UTF-16 without a BOM,
// zero-filled images). UTF-16 with a BOM is text.
func looksBinary(data []byte) bool {
	if bytes.HasPrefix(data, bomUTF16LE) || bytes.HasPrefix(data, bomUTF16BE) {
		return false
	}
	head := data[:min(len(data), binarySniffBytes)]
	nuls := bytes.Count(head, []byte{0})
	if nuls == 0 {
		return false
	}
	if nuls*10 > len(head) {
		return true
	}
	// A rune cut at the end of the head is not a sign of binary content.
	valid := head
	for i := 0; i < utf8.UTFMax && len(valid) > 0 && !utf8.Valid(valid); i++ {
		valid = valid[:len(valid)-1]
	}
	if !utf8.Valid(valid) {
		return true
	}
	for _, c := range head {
		if c < 0x20 && c != 0 && !textControl[c] {
			return true
		}
	}
	return false
}

// binarySniffBytes is how much of a file looksBinary looks at.
const binarySniffBytes = 8 << 10

// textControl holds the control bytes text uses: tab, line and page breaks,
// backspace and escape (coloured logs).
var textControl = [0x20]bool{'\t': true, '\n': true, '\r': true, '\f': true, '\v': true, '\b': true, 0x1b: true}

// binaryExtension reports whether k is the extension of a file type that
// is never text, refused by Read without reading it.
func binaryExtension(k string) bool {
	switch k {
	case ".7z", ".a", ".avi", ".bin", ".bmp", ".bz2", ".class", ".db", ".dll", ".dmg",
		".doc", ".docx", ".dylib", ".exe", ".flac", ".gz", ".ico", ".iso", ".jar", ".mkv",
		".mov", ".mp3", ".mp4", ".o", ".ogg", ".otf", ".ppt", ".pptx", ".psd", ".pyc", ".rar",
		".so", ".sqlite", ".tar", ".tgz", ".tif", ".tiff", ".ttf", ".wasm", ".wav", ".woff",
		".woff2", ".xls", ".xlsx", ".xz", ".zip", ".zst":
		return true
	}
	return false
}

// lineEnding is a file's dominant line terminator.
type lineEnding string

const (
	lf   lineEnding = "\n"
	crlf lineEnding = "\r\n"
)

// detectLineEnding returns CRLF when most of the text's line breaks are CRLF.
func detectLineEnding(text string) lineEnding {
	n := strings.Count(text, "\n")
	if n > 0 && strings.Count(text, "\r\n")*2 > n {
		return crlf
	}
	return lf
}

// withLineEnding rewrites every line break of s as le.
func withLineEnding(s string, le lineEnding) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if le == crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}
