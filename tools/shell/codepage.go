package shell

import (
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// utf8CodePage is Windows' number for UTF-8 as a code page.
const utf8CodePage = 65001

// codePage is the decoder of a Windows code page that console programs
// write in, OEM (a console's default) or ANSI, by number; ok is false for
// one without a decoder here.
func codePage(cp uint32) (enc encoding.Encoding, ok bool) {
	switch cp {
	case 437:
		return charmap.CodePage437, true
	case 850:
		return charmap.CodePage850, true
	case 852:
		return charmap.CodePage852, true
	case 855:
		return charmap.CodePage855, true
	case 858:
		return charmap.CodePage858, true
	case 860:
		return charmap.CodePage860, true
	case 862:
		return charmap.CodePage862, true
	case 863:
		return charmap.CodePage863, true
	case 865:
		return charmap.CodePage865, true
	case 866:
		return charmap.CodePage866, true
	case 874:
		return charmap.Windows874, true
	case 1250:
		return charmap.Windows1250, true
	case 1251:
		return charmap.Windows1251, true
	case 1252:
		return charmap.Windows1252, true
	case 1253:
		return charmap.Windows1253, true
	case 1254:
		return charmap.Windows1254, true
	case 1255:
		return charmap.Windows1255, true
	case 1256:
		return charmap.Windows1256, true
	case 1257:
		return charmap.Windows1257, true
	case 1258:
		return charmap.Windows1258, true
	case 932:
		return japanese.ShiftJIS, true
	case 936:
		return simplifiedchinese.GBK, true
	case 949:
		return korean.EUCKR, true
	case 950:
		return traditionalchinese.Big5, true
	}
	return nil, false
}

// decodeCodePage turns a command's output, written in the code page cp,
// into UTF-8. Output that is valid UTF-8 already is kept as it is: many
// programs (git, node, PowerShell 7 with UTF-8 set, anything in Git Bash)
// write UTF-8 whatever the console's code page, and text in a single-byte
// code page with any byte above 127 is almost never valid UTF-8. Output in
// a code page without a decoder here is kept as it came.
func decodeCodePage(out string, cp uint32) string {
	if cp == utf8CodePage || utf8.ValidString(out) {
		return out
	}
	enc, ok := codePage(cp)
	if !ok {
		return out
	}
	s, err := enc.NewDecoder().String(out)
	if err != nil {
		return out
	}
	return s
}
