package fs

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"
)

// pngChunk is one chunk with its length and CRC.
func pngChunk(kind string, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, kind...)
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
}

// rawPNG is a w×h PNG of the given color type and bit depth whose
// decompressed pixel data is raw, every chunk's CRC correct: a file only
// the pixel data can make undecodable.
func rawPNG(w, h uint32, colorType, depth byte, raw []byte) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	if colorType == 3 {
		out = append(out, pngChunk("PLTE", []byte{0, 0, 0, 255, 255, 255})...)
	}
	// Two IDAT chunks, as encoders split long data.
	zb := z.Bytes()
	out = append(out, pngChunk("IDAT", zb[:len(zb)/2])...)
	out = append(out, pngChunk("IDAT", zb[len(zb)/2:])...)
	return append(out, pngChunk("IEND", nil)...)
}

// rows is h rows of rowBytes pixel bytes, each after filter type filter.
func rows(h, rowBytes int, filter byte) []byte {
	var b []byte
	for y := range h {
		b = append(b, filter)
		for x := range rowBytes {
			b = append(b, byte(x*7+y))
		}
	}
	return b
}

// pngCorpus is PNGs of every color type, a real screenshot among them.
func pngCorpus(t testing.TB) map[string][]byte {
	corpus := map[string][]byte{}
	enc := func(name string, m image.Image) {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		corpus[name] = b.Bytes()
	}
	enc("gray", image.NewGray(image.Rect(0, 0, 31, 17)))
	enc("gray16", image.NewGray16(image.Rect(0, 0, 9, 5)))
	enc("rgba", noise(40, 30))
	enc("nrgba64", image.NewNRGBA64(image.Rect(0, 0, 6, 7)))
	enc("paletted", image.NewPaletted(image.Rect(0, 0, 13, 3), color.Palette{color.Black, color.White, color.Gray{0x80}}))
	corpus["1-bit gray"] = rawPNG(13, 4, 0, 1, rows(4, 2, 0))
	if shot, err := os.ReadFile("../../docs/images/vscode-question.png"); err == nil {
		corpus["screenshot"] = shot
	}
	return corpus
}

// TestCheckPNGAgreesWithDecode: for valid PNGs and damaged ones — cut
// short, a byte flipped anywhere, pixel data that inflates short, long or
// with a bad filter type under correct CRCs — checkPNG refuses exactly
// what image.Decode refuses.
func TestCheckPNGAgreesWithDecode(t *testing.T) {
	type variant struct {
		name string
		data []byte
	}
	var variants []variant
	for name, data := range pngCorpus(t) {
		variants = append(variants, variant{name, data})
		r := rand.New(rand.NewPCG(uint64(len(data)), 7))
		for range 40 {
			cut := r.IntN(len(data))
			variants = append(variants, variant{name + " cut short", data[:cut]})
			flipped := bytes.Clone(data)
			flipped[8+r.IntN(len(data)-8)] ^= byte(1 + r.IntN(255))
			variants = append(variants, variant{name + " a byte flipped", flipped})
		}
	}
	variants = append(variants,
		variant{"pixel data a row short", rawPNG(8, 4, 2, 8, rows(3, 24, 1))},
		variant{"pixel data a row long", rawPNG(8, 4, 2, 8, rows(5, 24, 1))},
		variant{"a bad filter type", rawPNG(8, 4, 2, 8, rows(4, 24, 5))},
		variant{"an ancillary chunk with a bad CRC", withChunkAfter(rawPNG(8, 4, 2, 8, rows(4, 24, 1)), "IHDR", badCRC(pngChunk("tEXt", []byte("k\x00v"))))},
		variant{"an ancillary chunk between the IDATs", withChunkAfter(rawPNG(8, 4, 2, 8, rows(4, 24, 1)), "IDAT", pngChunk("tEXt", []byte("k\x00v")))},
		variant{"every filter type", rawPNG(8, 5, 6, 8, append(append(append(append(rows(1, 32, 0), rows(1, 32, 1)...), rows(1, 32, 2)...), rows(1, 32, 3)...), rows(1, 32, 4)...))},
	)
	for _, v := range variants {
		cfg, _, cfgErr := image.DecodeConfig(bytes.NewReader(v.data))
		if cfgErr != nil || cfg.Width*cfg.Height == 0 {
			continue // prepareImage refuses it before checkPNG
		}
		_, decodeErr := png.Decode(bytes.NewReader(v.data))
		checked, checkErr := checkPNG(v.data)
		if !checked && checkErr == nil {
			t.Errorf("%s: not checked, and not interlaced", v.name)
			continue
		}
		if (checkErr == nil) != (decodeErr == nil) {
			t.Errorf("%s: checkPNG says %v, image.Decode says %v", v.name, checkErr, decodeErr)
		}
	}
}

// badCRC is chunk with its CRC broken.
func badCRC(chunk []byte) []byte {
	chunk = bytes.Clone(chunk)
	chunk[len(chunk)-1] ^= 1
	return chunk
}

// withChunkAfter is data with extra inserted after its first chunk of
// type after.
func withChunkAfter(data []byte, after string, extra []byte) []byte {
	for at := 8; at+12 <= len(data); {
		end := at + 12 + int(binary.BigEndian.Uint32(data[at:]))
		if string(data[at+4:at+8]) == after {
			return append(append(bytes.Clone(data[:end]), extra...), data[end:]...)
		}
		at = end
	}
	return data
}
