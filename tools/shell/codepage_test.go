package shell

import "testing"

// Output of Windows commands in the console's code page reads as the
// text it was, on any system (the decoding needs no Windows).
func TestDecodeCodePage(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cp   uint32
		want string
	}{
		{"CP437 (OEM United States)", "Verzeichnis von C:\\B\x81cher\r\n\x82t\x82\r\n", 437, "Verzeichnis von C:\\Bücher\r\nété\r\n"},
		{"CP850 (OEM Western Europe)", "Fran\x87ais \x9c", 850, "Français £"},
		{"CP1252 (ANSI Western Europe)", "caf\xe9 \x80 \x93quoted\x94", 1252, "café € “quoted”"},
		{"CP866 (OEM Cyrillic)", "\x8f\xe0\xa8\xa2\xa5\xe2", 866, "Привет"},
		{"Shift-JIS", "\x93\xfa\x96\x7b", 932, "日本"},
		{"UTF-8 code page kept", "caf\xc3\xa9", 65001, "café"},
		{"valid UTF-8 kept under an OEM code page", "caf\xc3\xa9 \xe2\x82\xac", 437, "café €"},
		{"ASCII kept", "ok\r\n", 437, "ok\r\n"},
		{"unknown code page kept", "caf\xe9", 12345, "caf\xe9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := decodeCodePage(tc.in, tc.cp); got != tc.want {
				t.Errorf("decodeCodePage(%q, %d) = %q, want %q", tc.in, tc.cp, got, tc.want)
			}
		})
	}
}
