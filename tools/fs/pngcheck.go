package fs

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// checkPNG verifies a PNG that is sent as it is, as strictly as decoding it
// would and at a fraction of the cost: every chunk's CRC, the chunk order,
// and the pixel data inflated (zlib's Adler-32 included) to exactly the
// bytes its header promises, each row starting with a valid filter type.
// Any such pixel data decodes, so what passes is what image.Decode accepts,
// without building the image (BenchmarkPrepareImage). checked is false for
// an interlaced PNG, whose seven passes it does not count: the caller
// decodes that one. The header's sizes and types were checked by
// image.DecodeConfig before.
func checkPNG(data []byte) (checked bool, err error) {
	const signature = "\x89PNG\r\n\x1a\n"
	rest, ok := bytes.CutPrefix(data, []byte(signature))
	if !ok {
		return false, errors.New("no PNG signature")
	}
	var (
		width, height   uint32
		bitDepth, color byte
		pixels          []io.Reader
		// pixelsDone: a chunk other than IDAT came after the IDATs.
		pixelsDone, ended bool
	)
	for first := true; !ended; first = false {
		if len(rest) < 12 {
			return false, errors.New("the file ends before its IEND chunk: it is cut short")
		}
		length := binary.BigEndian.Uint32(rest[:4])
		if uint64(length) > uint64(len(rest)-12) {
			return false, errors.New("a chunk runs past the end of the file: it is cut short")
		}
		kind, body := string(rest[4:8]), rest[8:8+length]
		if crc32.ChecksumIEEE(rest[4:8+length]) != binary.BigEndian.Uint32(rest[8+length:12+length]) {
			return false, fmt.Errorf("the %q chunk fails its checksum", kind)
		}
		rest = rest[12+length:]
		switch {
		case first != (kind == "IHDR"):
			return false, errors.New("IHDR is not the first chunk")
		case kind == "IHDR":
			if length != 13 {
				return false, errors.New("a malformed IHDR chunk")
			}
			width, height = binary.BigEndian.Uint32(body[0:4]), binary.BigEndian.Uint32(body[4:8])
			bitDepth, color = body[8], body[9]
			if body[12] != 0 {
				return false, nil
			}
		case kind == "IDAT":
			if pixelsDone {
				return false, errors.New("the IDAT chunks are not consecutive")
			}
			pixels = append(pixels, bytes.NewReader(body))
		case kind == "IEND":
			ended = true
		default:
			pixelsDone = len(pixels) > 0
		}
	}
	if len(pixels) == 0 {
		return false, errors.New("no pixel data (IDAT)")
	}
	channels := map[byte]uint64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
	row := (uint64(width)*channels*uint64(bitDepth) + 7) / 8
	rows := &filterCheck{rowSize: 1 + row, want: uint64(height) * (1 + row)}
	z, err := zlib.NewReader(io.MultiReader(pixels...))
	if err != nil {
		return false, fmt.Errorf("the pixel data: %w", err)
	}
	// Copy reads to zlib's EOF, which checks the Adler-32; filterCheck
	// stops at the first byte past the promised size.
	if _, err := io.Copy(rows, z); err != nil {
		return false, fmt.Errorf("the pixel data: %w", err)
	}
	if rows.seen != rows.want {
		return false, fmt.Errorf("the pixel data holds %d bytes where the header promises %d", rows.seen, rows.want)
	}
	return true, nil
}

// filterCheck counts inflated PNG pixel data, checking the filter type at
// the start of every row.
type filterCheck struct {
	rowSize, want, seen uint64
}

func (f *filterCheck) Write(p []byte) (int, error) {
	if f.seen+uint64(len(p)) > f.want {
		return 0, errors.New("more pixel data than the header promises")
	}
	// The first row start at or after seen.
	for i := (f.rowSize - f.seen%f.rowSize) % f.rowSize; i < uint64(len(p)); i += f.rowSize {
		if p[i] > 4 {
			return 0, fmt.Errorf("row %d has filter type %d", (f.seen+i)/f.rowSize, p[i])
		}
	}
	f.seen += uint64(len(p))
	return len(p), nil
}
