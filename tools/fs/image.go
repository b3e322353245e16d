package fs

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // image.Decode of WebP
)

// Images as the Messages API accepts them. The API refuses a block whose
// media type differs from its bytes, a side over 8000 pixels, a side over
// 2000 pixels once a request holds more than 20 images, and more than 5 MB
// of base64 per image; and since a refused tool result stays in the
// conversation, every later request fails too. So Read takes the type from
// the bytes, never from the name, scales to Claude Code's 2000-pixel long
// side (which meets the many-image limit as well), and re-encodes until the
// image fits.
const (
	// maxImageSide is the longest side an image goes out with.
	maxImageSide = 2000
	// maxImageFileBytes is the largest image file Read loads to scale down.
	maxImageFileBytes = 64 << 20
	// maxImagePixels bounds the pixels decoded to scale an image (4 bytes
	// each in memory): a 1920×30000 page screenshot fits, a decompression
	// bomb does not.
	maxImagePixels = 64 << 20
)

// imageMIME reports whether k is a media type the Messages API takes, as
// http.DetectContentType names it.
func imageMIME(k string) bool {
	switch k {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// preparedImage is an image ready to send.
type preparedImage struct {
	data []byte
	// mime is the type of data, fileMIME the file's (they differ when the
	// image was re-encoded).
	mime, fileMIME string
	// width and height are the original size, shownWidth and shownHeight
	// the size sent.
	width, height           int
	shownWidth, shownHeight int
	// reencoded says the bytes sent are not the file's.
	reencoded bool
}

// imageError is an image Read cannot send, with what to do instead.
type imageError struct{ msg string }

func (e *imageError) Error() string { return e.msg }

// sniffImage returns the image type of data from its bytes, "" when it is
// none of the types the API takes.
func sniffImage(data []byte) string {
	if mime := http.DetectContentType(data); imageMIME(mime) {
		return mime
	}
	return ""
}

// prepareImage makes the image in data fit what the API accepts: its real
// type, at most maxImageSide pixels on its long side (aspect ratio kept),
// at most maxImageBytes.
func prepareImage(data []byte) (*preparedImage, error) {
	if len(data) == 0 {
		return nil, &imageError{"the image file is empty (0 bytes): there is no image to show"}
	}
	mime := sniffImage(data)
	if mime == "" {
		return nil, &imageError{fmt.Sprintf("the file does not hold a PNG, JPEG, GIF or WebP image (its bytes look like %s), whatever its name says. Check what it is with Bash (file), or Read it as text if it is text", http.DetectContentType(data))}
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, &imageError{fmt.Sprintf("the %s image cannot be decoded (%v): it may be damaged or cut short", mime, err)}
	}
	img := &preparedImage{data: data, mime: mime, fileMIME: mime, width: cfg.Width, height: cfg.Height, shownWidth: cfg.Width, shownHeight: cfg.Height}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, &imageError{fmt.Sprintf("the %s image has no pixels (%dx%d)", mime, cfg.Width, cfg.Height)}
	}
	if cfg.Width*cfg.Height > maxImagePixels || cfg.Width > maxImagePixels || cfg.Height > maxImagePixels {
		return nil, &imageError{fmt.Sprintf("the %s image is %dx%d pixels, too many to scale down here. Make a smaller copy (for example with ImageMagick: convert in.png -resize 2000x2000 out.png) and Read that", mime, cfg.Width, cfg.Height)}
	}
	// Checked whole even when it is sent as it is: a header that reads
	// over damaged pixel data would otherwise go out, and the API's
	// refusal of it would stay in the conversation. A PNG that fits (the
	// common case: a screenshot) is checked without building the image;
	// anything else is decoded, which scaling needs anyway.
	fits := max(cfg.Width, cfg.Height) <= maxImageSide && len(data) <= maxImageBytes
	if fits && mime == "image/png" {
		checked, err := checkPNG(data)
		if err != nil {
			return nil, &imageError{fmt.Sprintf("the %s image cannot be decoded (%v): it may be damaged or cut short", mime, err)}
		}
		if checked {
			return img, nil
		}
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, &imageError{fmt.Sprintf("the %s image cannot be decoded (%v): it may be damaged or cut short", mime, err)}
	}
	if fits {
		return img, nil
	}
	// Scale to the long side, then, while the encoding is still too large,
	// lower the JPEG quality and then the size.
	side := min(maxImageSide, max(cfg.Width, cfg.Height))
	for side >= 16 {
		scaled := scaleImage(src, side)
		// Unscaled, a lossless encoding is no smaller than the file was.
		lossless := scaled != src
		for _, enc := range imageEncodings(mime, lossless) {
			out, outMIME, err := enc(scaled)
			if err != nil {
				return nil, fmt.Errorf("encoding the scaled image: %w", err)
			}
			if len(out) <= maxImageBytes {
				b := scaled.Bounds()
				img.data, img.mime, img.shownWidth, img.shownHeight, img.reencoded = out, outMIME, b.Dx(), b.Dy(), true
				return img, nil
			}
		}
		side = side * 3 / 4
	}
	return nil, errors.New("the image does not fit the size limit even scaled down")
}

// scaleImage returns src scaled so that its long side is at most side
// pixels, keeping its aspect ratio (each side at least one pixel); src
// itself when it is small enough already.
func scaleImage(src image.Image, side int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= side {
		return src
	}
	if w >= h {
		w, h = side, max(1, int(int64(h)*int64(side)/int64(w)))
	} else {
		w, h = max(1, int(int64(w)*int64(side)/int64(h))), side
	}
	// BiLinear (a kernel widened to the scale, so text in a screenshot does
	// not alias as ApproxBiLinear's four samples do) from RGBA, its fast
	// path: about 0.3 s for a 3000×1500 photo where CatmullRom takes 1.3 s
	// and from the decoder's YCbCr it takes 1 s.
	rgba, ok := src.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), src, b.Min, draw.Src)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), rgba, rgba.Bounds(), draw.Src, nil)
	return dst
}

// imageEncoder encodes an image, returning its bytes and media type.
type imageEncoder func(image.Image) ([]byte, string, error)

// imageEncodings are the encodings tried for an image of type mime, best
// first: lossless (PNG) for PNG, GIF and WebP (WebP has no encoder here)
// when lossless is set, then JPEG of falling quality, which any image fits
// in sooner or later.
func imageEncodings(mime string, lossless bool) []imageEncoder {
	var encs []imageEncoder
	if mime != "image/jpeg" && lossless {
		encs = append(encs, func(m image.Image) ([]byte, string, error) {
			var b bytes.Buffer
			err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, m)
			return b.Bytes(), "image/png", err
		})
	}
	for _, q := range []int{85, 70, 50} {
		encs = append(encs, func(m image.Image) ([]byte, string, error) {
			var b bytes.Buffer
			err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q})
			return b.Bytes(), "image/jpeg", err
		})
	}
	return encs
}
