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

// codePages are the Windows code pages that console programs write in,
// OEM (a console's default) and ANSI, by number.
var codePages = map[uint32]encoding.Encoding{
	437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852,
	855: charmap.CodePage855, 858: charmap.CodePage858, 860: charmap.CodePage860,
	862: charmap.CodePage862, 863: charmap.CodePage863, 865: charmap.CodePage865,
	866: charmap.CodePage866, 874: charmap.Windows874,
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
	1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258,
	932: japanese.ShiftJIS, 936: simplifiedchinese.GBK, 949: korean.EUCKR, 950: traditionalchinese.Big5,
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
	enc, ok := codePages[cp]
	if !ok {
		return out
	}
	s, err := enc.NewDecoder().String(out)
	if err != nil {
		return out
	}
	return s
}
