package read

import (
	"bytes"
	"encoding/binary"
	"image"
	_ "image/gif" // DecodeConfig for the dimensions in the image note
	_ "image/jpeg"
	_ "image/png"
)

// maxImageBytes is the largest image Read passes on: 3.75 MiB raw is
// 5 MiB in base64, the Anthropic API's limit for one image.
const maxImageBytes = 3_932_160

// maxImageText is maxImageBytes as the messages show it.
const maxImageText = "3.75 MiB"

// imageKind is a recognised image format.
type imageKind struct {
	mediaType string
	name      string
}

// sniffImage recognises PNG, JPEG, GIF and WebP by their signatures, not by
// the file's extension: a .png that is text is read as text, and an image
// without an extension is still an image.
func sniffImage(head []byte) (imageKind, bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return imageKind{"image/png", "PNG"}, true
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return imageKind{"image/jpeg", "JPEG"}, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return imageKind{"image/gif", "GIF"}, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return imageKind{"image/webp", "WebP"}, true
	}
	return imageKind{}, false
}

// imageSize returns an image's dimensions, or ok false if its header does
// not say. It is only for the note beside the image.
func imageSize(kind imageKind, data []byte) (width, height int, ok bool) {
	if kind.mediaType == "image/webp" {
		return webpSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// webpSize reads the canvas size from a WebP header: the standard library
// has no WebP decoder, and the three layouts are a few bytes each.
func webpSize(b []byte) (width, height int, ok bool) {
	if len(b) < 30 {
		return 0, 0, false
	}
	le24 := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 }
	switch string(b[12:16]) {
	case "VP8X": // extended: 24-bit canvas width-1 and height-1
		return le24(b[24:]) + 1, le24(b[27:]) + 1, true
	case "VP8 ": // lossy: a key frame's start code, then 14-bit sizes
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff), true
	case "VP8L": // lossless: a signature byte, then 14-bit width-1 and height-1
		if b[20] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(b[21:])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	}
	return 0, 0, false
}

// ext is the usual file extension of the format.
func (k imageKind) ext() string {
	switch k.mediaType {
	case "image/jpeg":
		return "jpg"
	case "image/gif":
		return "gif"
	case "image/webp":
		return "webp"
	}
	return "png"
}
