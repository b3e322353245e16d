package fs

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
)

// The Messages API's documented image limits, which every image block Read
// sends must meet: a refused block stays in the conversation and fails
// every later request.
const (
	apiMaxBase64Bytes = 5 << 20
	apiMaxSide        = 8000
	// apiManyImagesSide is the limit once a request holds over 20 images;
	// Claude Code scales every image to it.
	apiManyImagesSide = 2000
)

// tinyWebP is a 1×1 lossless WebP.
const tinyWebP = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

func encodePNG(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// noise is a w×h image of random pixels, which no encoding compresses.
func noise(w, h int) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range m.Pix {
		m.Pix[i] = byte(r.Uint32())
	}
	return m
}

// TestReadImageLimits states Claude Code's handling of images: the type is
// taken from the bytes, the long side is scaled to 2000 pixels keeping the
// aspect ratio, an image over the size limit is re-encoded, and an empty or
// undecodable file is an error, never an image block the API refuses.
func TestReadImageLimits(t *testing.T) {
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	tests := []struct {
		name string
		file string
		data func(t *testing.T) []byte
		// mime, width and height are what is sent; "" mime means an error
		// holding wantErr.
		mime          string
		width, height int
		wantErr       string
	}{
		{name: "PNG bytes named .jpg go out as PNG", file: "shot.jpg",
			data: func(t *testing.T) []byte { return encodePNG(t, image.NewGray(image.Rect(0, 0, 7, 3))) },
			mime: "image/png", width: 7, height: 3},
		{name: "JPEG bytes named .png go out as JPEG", file: "photo.png",
			data: func(t *testing.T) []byte { return encodeJPEG(t, image.NewGray(image.Rect(0, 0, 5, 4))) },
			mime: "image/jpeg", width: 5, height: 4},
		{name: "WebP", file: "a.webp", data: func(*testing.T) []byte { return webp },
			mime: "image/webp", width: 1, height: 1},
		{name: "GIF bytes named .png go out as GIF", file: "anim.png",
			data: func(t *testing.T) []byte {
				var b bytes.Buffer
				if err := gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 6, 4), color.Palette{color.Black, color.White}), nil); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			},
			mime: "image/gif", width: 6, height: 4},
		// The API takes PNG, JPEG, GIF and WebP only.
		{name: "BMP bytes named .png are refused", file: "old.png",
			data:    func(*testing.T) []byte { return append([]byte("BM"), make([]byte, 60)...) },
			wantErr: "does not hold a PNG, JPEG, GIF or WebP image"},
		{name: "a 1x9000 strip is scaled to 1x2000", file: "strip.png",
			data: func(t *testing.T) []byte { return encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 9000))) },
			mime: "image/png", width: 1, height: 2000},
		{name: "a 2400x1200 photo is scaled to 2000x1000", file: "wide.jpg",
			data: func(t *testing.T) []byte { return encodeJPEG(t, image.NewRGBA(image.Rect(0, 0, 2400, 1200))) },
			mime: "image/jpeg", width: 2000, height: 1000},
		{name: "a PNG over the size limit is re-encoded as JPEG", file: "noise.png",
			data: func(t *testing.T) []byte { return encodePNG(t, noise(1100, 1000)) },
			mime: "image/jpeg", width: 1100, height: 1000},
		{name: "an empty file is refused", file: "empty.png", data: func(*testing.T) []byte { return nil },
			wantErr: "empty"},
		{name: "text named .png is refused", file: "notes.png", data: func(*testing.T) []byte { return []byte("just text\n") },
			wantErr: "does not hold a PNG, JPEG, GIF or WebP image"},
		{name: "a cut-short PNG is refused", file: "cut.png",
			data:    func(t *testing.T) []byte { return encodePNG(t, noise(40, 40))[:30] },
			wantErr: "cannot be decoded"},
		// The header reads (so its size is known) but the pixels do not:
		// Claude Code sends it and the API refuses the block.
		{name: "a PNG with damaged pixel data is refused", file: "damaged.png",
			data: func(t *testing.T) []byte {
				b := encodePNG(t, noise(40, 40))
				return append(b[:40:40], bytes.Repeat([]byte{0x55}, 64)...)
			},
			wantErr: "cannot be decoded"},
		// Every checksum is right, but the pixel data inflates a row short:
		// only reading all of it finds that.
		{name: "a PNG with correct checksums over too little pixel data is refused", file: "short.png",
			data:    func(*testing.T) []byte { return rawPNG(8, 4, 2, 8, rows(3, 24, 1)) },
			wantErr: "cannot be decoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			data := tt.data(t)
			p := e.write(tt.file, string(data), 0o644)
			res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
			if tt.mime == "" {
				wantResult(t, res, true, tt.wantErr)
				for _, c := range res.Content {
					if c.Type == "image" {
						t.Error("an error result carries an image block")
					}
				}
				return
			}
			wantResult(t, res, false)
			// The text names the file's own type, also when it went out
			// re-encoded in another.
			if fileType := http.DetectContentType(data); !strings.Contains(res.Text(), "("+fileType+", ") {
				t.Errorf("the text does not name the file's type %s: %q", fileType, res.Text())
			}
			var blocks int
			for _, c := range res.Content {
				if c.Type != "image" {
					continue
				}
				blocks++
				if len(c.Data) > apiMaxBase64Bytes {
					t.Errorf("the image is %d bytes of base64, over the API's %d", len(c.Data), apiMaxBase64Bytes)
				}
				raw, err := base64.StdEncoding.DecodeString(c.Data)
				if err != nil {
					t.Fatal(err)
				}
				if got := http.DetectContentType(raw); got != c.MimeType || c.MimeType != tt.mime {
					t.Errorf("block says %s, bytes are %s, want %s", c.MimeType, got, tt.mime)
				}
				cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("the image sent does not decode: %v", err)
				}
				if cfg.Width != tt.width || cfg.Height != tt.height {
					t.Errorf("sent %dx%d, want %dx%d", cfg.Width, cfg.Height, tt.width, tt.height)
				}
				if max(cfg.Width, cfg.Height) > apiManyImagesSide || max(cfg.Width, cfg.Height) > apiMaxSide {
					t.Errorf("a side of %dx%d is over the API's limits", cfg.Width, cfg.Height)
				}
				file := res.Structured.(map[string]any)["file"].(map[string]any)
				if file["base64"] != c.Data || file["type"] != tt.mime || file["originalSize"] != len(data) {
					t.Errorf("structured file = type %v originalSize %v, base64 same as the block: %v", file["type"], file["originalSize"], file["base64"] == c.Data)
				}
				dims := file["dimensions"].(map[string]any)
				if dims["displayWidth"] != tt.width || dims["displayHeight"] != tt.height {
					t.Errorf("dimensions = %v", dims)
				}
			}
			if blocks != 1 {
				t.Errorf("%d image blocks, want 1", blocks)
			}
		})
	}
}

// TestScaleImageKeepsAspect checks the scaled sizes of extreme shapes.
func TestScaleImageKeepsAspect(t *testing.T) {
	tests := []struct{ w, h, side, wantW, wantH int }{
		{400, 300, 200, 200, 150},
		{300, 400, 200, 150, 200},
		{9000, 1, 2000, 2000, 1},
		{100, 50, 2000, 100, 50},
	}
	for _, tt := range tests {
		m := scaleImage(image.NewGray(image.Rect(0, 0, tt.w, tt.h)), tt.side)
		if b := m.Bounds(); b.Dx() != tt.wantW || b.Dy() != tt.wantH {
			t.Errorf("%dx%d scaled to %d: got %dx%d, want %dx%d", tt.w, tt.h, tt.side, b.Dx(), b.Dy(), tt.wantW, tt.wantH)
		}
	}
}

// BenchmarkPrepareImage is the cost of readying an image that needs no
// scaling (the common case): a PNG the size of a 1920×1080 screen, a real
// screenshot (1400×860, from the docs) and a 1920×1080 JPEG. A PNG
// is checked without decoding it (checkPNG); a JPEG is decoded whole.
func BenchmarkPrepareImage(b *testing.B) {
	screen := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for i := range screen.Pix {
		screen.Pix[i] = byte(i / 4096)
	}
	var synthetic, photo bytes.Buffer
	if err := png.Encode(&synthetic, screen); err != nil {
		b.Fatal(err)
	}
	if err := jpeg.Encode(&photo, screen, nil); err != nil {
		b.Fatal(err)
	}
	shot, err := os.ReadFile("../../docs/images/vscode-review-changes.png")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		data []byte
	}{
		{"png 1920x1080", synthetic.Bytes()},
		{"screenshot png 1400x860", shot},
		{"jpeg 1920x1080", photo.Bytes()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := prepareImage(bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
