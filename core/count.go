package core

import (
	"encoding/binary"
	"math/bits"
)

// leadBytes counts the bytes of p that start a character: every byte but
// UTF-8 continuation bytes (10xxxxxx). Summed over the chunks of a stream,
// it is the stream's character count, even where a chunk boundary splits a
// character. It looks at eight bytes at a time, since a spilling tool can
// stream gigabytes through it.
func leadBytes(p []byte) int64 {
	cont := 0
	rest := p
	for len(rest) >= 8 {
		w := binary.LittleEndian.Uint64(rest)
		// In each byte, bit 7 set and bit 6 clear; w<<1 brings bit 6 of
		// each byte under its bit 7.
		cont += bits.OnesCount64(w &^ (w << 1) & 0x8080808080808080)
		rest = rest[8:]
	}
	for _, b := range rest {
		if b&0xC0 == 0x80 {
			cont++
		}
	}
	return int64(len(p) - cont)
}
