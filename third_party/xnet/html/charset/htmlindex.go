// Copyright 2015 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package charset

// toolhost: the index of golang.org/x/text/encoding/htmlindex v0.44.0
// (tables.go and map.go, as generated there), which Lookup used: its labels
// are a sorted table searched by binary search instead of a map literal,
// and its encodings are gathered on the first lookup, so that the package
// builds nothing at program start; and nothing of x/text's language
// package, which htmlindex imports for LanguageDefault, is linked (see
// PATCHES.md).

import (
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

type htmlIndex byte

const (
	utf8Enc htmlIndex = iota
	ibm866
	iso8859_2
	iso8859_3
	iso8859_4
	iso8859_5
	iso8859_6
	iso8859_7
	iso8859_8
	iso8859_8I
	iso8859_10
	iso8859_13
	iso8859_14
	iso8859_15
	iso8859_16
	koi8r
	koi8u
	macintosh
	windows874
	windows1250
	windows1251
	windows1252
	windows1253
	windows1254
	windows1255
	windows1256
	windows1257
	windows1258
	macintoshCyrillic
	gbk
	gb18030
	big5
	eucjp
	iso2022jp
	shiftJIS
	euckr
	replacement
	utf16be
	utf16le
	xUserDefined
	numEncodings
)

var canonical = [numEncodings]string{
	"utf-8",
	"ibm866",
	"iso-8859-2",
	"iso-8859-3",
	"iso-8859-4",
	"iso-8859-5",
	"iso-8859-6",
	"iso-8859-7",
	"iso-8859-8",
	"iso-8859-8-i",
	"iso-8859-10",
	"iso-8859-13",
	"iso-8859-14",
	"iso-8859-15",
	"iso-8859-16",
	"koi8-r",
	"koi8-u",
	"macintosh",
	"windows-874",
	"windows-1250",
	"windows-1251",
	"windows-1252",
	"windows-1253",
	"windows-1254",
	"windows-1255",
	"windows-1256",
	"windows-1257",
	"windows-1258",
	"x-mac-cyrillic",
	"gbk",
	"gb18030",
	"big5",
	"euc-jp",
	"iso-2022-jp",
	"shift_jis",
	"euc-kr",
	"replacement",
	"utf-16be",
	"utf-16le",
	"x-user-defined",
}

// labelIndex is a label and its encoding.
type labelIndex struct {
	label string
	enc   htmlIndex
}

// labels maps every label of the WHATWG Encoding Standard to its
// encoding, sorted by label.
var labels = []labelIndex{
	{"866", ibm866},
	{"ansi_x3.4-1968", windows1252},
	{"arabic", iso8859_6},
	{"ascii", windows1252},
	{"asmo-708", iso8859_6},
	{"big5", big5},
	{"big5-hkscs", big5},
	{"chinese", gbk},
	{"cn-big5", big5},
	{"cp1250", windows1250},
	{"cp1251", windows1251},
	{"cp1252", windows1252},
	{"cp1253", windows1253},
	{"cp1254", windows1254},
	{"cp1255", windows1255},
	{"cp1256", windows1256},
	{"cp1257", windows1257},
	{"cp1258", windows1258},
	{"cp819", windows1252},
	{"cp866", ibm866},
	{"csbig5", big5},
	{"cseuckr", euckr},
	{"cseucpkdfmtjapanese", eucjp},
	{"csgb2312", gbk},
	{"csibm866", ibm866},
	{"csiso2022jp", iso2022jp},
	{"csiso2022kr", replacement},
	{"csiso58gb231280", gbk},
	{"csiso88596e", iso8859_6},
	{"csiso88596i", iso8859_6},
	{"csiso88598e", iso8859_8},
	{"csiso88598i", iso8859_8I},
	{"csisolatin1", windows1252},
	{"csisolatin2", iso8859_2},
	{"csisolatin3", iso8859_3},
	{"csisolatin4", iso8859_4},
	{"csisolatin5", windows1254},
	{"csisolatin6", iso8859_10},
	{"csisolatin9", iso8859_15},
	{"csisolatinarabic", iso8859_6},
	{"csisolatincyrillic", iso8859_5},
	{"csisolatingreek", iso8859_7},
	{"csisolatinhebrew", iso8859_8},
	{"cskoi8r", koi8r},
	{"csksc56011987", euckr},
	{"csmacintosh", macintosh},
	{"csshiftjis", shiftJIS},
	{"csunicode", utf16le},
	{"cyrillic", iso8859_5},
	{"dos-874", windows874},
	{"ecma-114", iso8859_6},
	{"ecma-118", iso8859_7},
	{"elot_928", iso8859_7},
	{"euc-jp", eucjp},
	{"euc-kr", euckr},
	{"gb18030", gb18030},
	{"gb2312", gbk},
	{"gb_2312", gbk},
	{"gb_2312-80", gbk},
	{"gbk", gbk},
	{"greek", iso8859_7},
	{"greek8", iso8859_7},
	{"hebrew", iso8859_8},
	{"hz-gb-2312", replacement},
	{"ibm819", windows1252},
	{"ibm866", ibm866},
	{"iso-10646-ucs-2", utf16le},
	{"iso-2022-cn", replacement},
	{"iso-2022-cn-ext", replacement},
	{"iso-2022-jp", iso2022jp},
	{"iso-2022-kr", replacement},
	{"iso-8859-1", windows1252},
	{"iso-8859-10", iso8859_10},
	{"iso-8859-11", windows874},
	{"iso-8859-13", iso8859_13},
	{"iso-8859-14", iso8859_14},
	{"iso-8859-15", iso8859_15},
	{"iso-8859-16", iso8859_16},
	{"iso-8859-2", iso8859_2},
	{"iso-8859-3", iso8859_3},
	{"iso-8859-4", iso8859_4},
	{"iso-8859-5", iso8859_5},
	{"iso-8859-6", iso8859_6},
	{"iso-8859-6-e", iso8859_6},
	{"iso-8859-6-i", iso8859_6},
	{"iso-8859-7", iso8859_7},
	{"iso-8859-8", iso8859_8},
	{"iso-8859-8-e", iso8859_8},
	{"iso-8859-8-i", iso8859_8I},
	{"iso-8859-9", windows1254},
	{"iso-ir-100", windows1252},
	{"iso-ir-101", iso8859_2},
	{"iso-ir-109", iso8859_3},
	{"iso-ir-110", iso8859_4},
	{"iso-ir-126", iso8859_7},
	{"iso-ir-127", iso8859_6},
	{"iso-ir-138", iso8859_8},
	{"iso-ir-144", iso8859_5},
	{"iso-ir-148", windows1254},
	{"iso-ir-149", euckr},
	{"iso-ir-157", iso8859_10},
	{"iso-ir-58", gbk},
	{"iso8859-1", windows1252},
	{"iso8859-10", iso8859_10},
	{"iso8859-11", windows874},
	{"iso8859-13", iso8859_13},
	{"iso8859-14", iso8859_14},
	{"iso8859-15", iso8859_15},
	{"iso8859-2", iso8859_2},
	{"iso8859-3", iso8859_3},
	{"iso8859-4", iso8859_4},
	{"iso8859-5", iso8859_5},
	{"iso8859-6", iso8859_6},
	{"iso8859-7", iso8859_7},
	{"iso8859-8", iso8859_8},
	{"iso8859-9", windows1254},
	{"iso88591", windows1252},
	{"iso885910", iso8859_10},
	{"iso885911", windows874},
	{"iso885913", iso8859_13},
	{"iso885914", iso8859_14},
	{"iso885915", iso8859_15},
	{"iso88592", iso8859_2},
	{"iso88593", iso8859_3},
	{"iso88594", iso8859_4},
	{"iso88595", iso8859_5},
	{"iso88596", iso8859_6},
	{"iso88597", iso8859_7},
	{"iso88598", iso8859_8},
	{"iso88599", windows1254},
	{"iso_8859-1", windows1252},
	{"iso_8859-15", iso8859_15},
	{"iso_8859-1:1987", windows1252},
	{"iso_8859-2", iso8859_2},
	{"iso_8859-2:1987", iso8859_2},
	{"iso_8859-3", iso8859_3},
	{"iso_8859-3:1988", iso8859_3},
	{"iso_8859-4", iso8859_4},
	{"iso_8859-4:1988", iso8859_4},
	{"iso_8859-5", iso8859_5},
	{"iso_8859-5:1988", iso8859_5},
	{"iso_8859-6", iso8859_6},
	{"iso_8859-6:1987", iso8859_6},
	{"iso_8859-7", iso8859_7},
	{"iso_8859-7:1987", iso8859_7},
	{"iso_8859-8", iso8859_8},
	{"iso_8859-8:1988", iso8859_8},
	{"iso_8859-9", windows1254},
	{"iso_8859-9:1989", windows1254},
	{"koi", koi8r},
	{"koi8", koi8r},
	{"koi8-r", koi8r},
	{"koi8-ru", koi8u},
	{"koi8-u", koi8u},
	{"koi8_r", koi8r},
	{"korean", euckr},
	{"ks_c_5601-1987", euckr},
	{"ks_c_5601-1989", euckr},
	{"ksc5601", euckr},
	{"ksc_5601", euckr},
	{"l1", windows1252},
	{"l2", iso8859_2},
	{"l3", iso8859_3},
	{"l4", iso8859_4},
	{"l5", windows1254},
	{"l6", iso8859_10},
	{"l9", iso8859_15},
	{"latin1", windows1252},
	{"latin2", iso8859_2},
	{"latin3", iso8859_3},
	{"latin4", iso8859_4},
	{"latin5", windows1254},
	{"latin6", iso8859_10},
	{"logical", iso8859_8I},
	{"mac", macintosh},
	{"macintosh", macintosh},
	{"ms932", shiftJIS},
	{"ms_kanji", shiftJIS},
	{"replacement", replacement},
	{"shift-jis", shiftJIS},
	{"shift_jis", shiftJIS},
	{"sjis", shiftJIS},
	{"sun_eu_greek", iso8859_7},
	{"tis-620", windows874},
	{"ucs-2", utf16le},
	{"unicode", utf16le},
	{"unicode-1-1-utf-8", utf8Enc},
	{"unicode11utf8", utf8Enc},
	{"unicode20utf8", utf8Enc},
	{"unicodefeff", utf16le},
	{"unicodefffe", utf16be},
	{"us-ascii", windows1252},
	{"utf-16", utf16le},
	{"utf-16be", utf16be},
	{"utf-16le", utf16le},
	{"utf-8", utf8Enc},
	{"utf8Enc", utf8Enc},
	{"visual", iso8859_8},
	{"windows-1250", windows1250},
	{"windows-1251", windows1251},
	{"windows-1252", windows1252},
	{"windows-1253", windows1253},
	{"windows-1254", windows1254},
	{"windows-1255", windows1255},
	{"windows-1256", windows1256},
	{"windows-1257", windows1257},
	{"windows-1258", windows1258},
	{"windows-31j", shiftJIS},
	{"windows-874", windows874},
	{"windows-949", euckr},
	{"x-cp1250", windows1250},
	{"x-cp1251", windows1251},
	{"x-cp1252", windows1252},
	{"x-cp1253", windows1253},
	{"x-cp1254", windows1254},
	{"x-cp1255", windows1255},
	{"x-cp1256", windows1256},
	{"x-cp1257", windows1257},
	{"x-cp1258", windows1258},
	{"x-euc-jp", eucjp},
	{"x-gbk", gbk},
	{"x-mac-cyrillic", macintoshCyrillic},
	{"x-mac-roman", macintosh},
	{"x-mac-ukrainian", macintoshCyrillic},
	{"x-sjis", shiftJIS},
	{"x-unicode20utf8", utf8Enc},
	{"x-user-defined", xUserDefined},
	{"x-x-big5", big5},
}

// encodings gives the Encoding of each index.
var encodings = sync.OnceValue(func() [numEncodings]encoding.Encoding {
	return [numEncodings]encoding.Encoding{
		utf8Enc:           unicode.UTF8,
		ibm866:            charmap.CodePage866,
		iso8859_2:         charmap.ISO8859_2,
		iso8859_3:         charmap.ISO8859_3,
		iso8859_4:         charmap.ISO8859_4,
		iso8859_5:         charmap.ISO8859_5,
		iso8859_6:         charmap.ISO8859_6,
		iso8859_7:         charmap.ISO8859_7,
		iso8859_8:         charmap.ISO8859_8,
		iso8859_8I:        charmap.ISO8859_8I,
		iso8859_10:        charmap.ISO8859_10,
		iso8859_13:        charmap.ISO8859_13,
		iso8859_14:        charmap.ISO8859_14,
		iso8859_15:        charmap.ISO8859_15,
		iso8859_16:        charmap.ISO8859_16,
		koi8r:             charmap.KOI8R,
		koi8u:             charmap.KOI8U,
		macintosh:         charmap.Macintosh,
		windows874:        charmap.Windows874,
		windows1250:       charmap.Windows1250,
		windows1251:       charmap.Windows1251,
		windows1252:       charmap.Windows1252,
		windows1253:       charmap.Windows1253,
		windows1254:       charmap.Windows1254,
		windows1255:       charmap.Windows1255,
		windows1256:       charmap.Windows1256,
		windows1257:       charmap.Windows1257,
		windows1258:       charmap.Windows1258,
		macintoshCyrillic: charmap.MacintoshCyrillic,
		gbk:               simplifiedchinese.GBK,
		gb18030:           simplifiedchinese.GB18030,
		big5:              traditionalchinese.Big5,
		eucjp:             japanese.EUCJP,
		iso2022jp:         japanese.ISO2022JP,
		shiftJIS:          japanese.ShiftJIS,
		euckr:             korean.EUCKR,
		replacement:       encoding.Replacement,
		utf16be:           unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
		utf16le:           unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
		xUserDefined:      charmap.XUserDefined,
	}
})

// lookupLabel returns the encoding of label and its canonical name;
// matching is case-insensitive and ignores leading and trailing space.
func lookupLabel(label string) (encoding.Encoding, string, bool) {
	label = strings.ToLower(strings.TrimSpace(label))
	i, found := slices.BinarySearchFunc(labels, label, func(l labelIndex, target string) int {
		return strings.Compare(l.label, target)
	})
	if !found {
		return nil, "", false
	}
	x := labels[i].enc
	return encodings()[x], canonical[x], true
}
