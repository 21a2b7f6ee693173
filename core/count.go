package core

import (
	"encoding/binary"
	"math/bits"
)

// leadBytes counts the bytes of p that start a character: every byte but
// UTF-8 continuation bytes (10xxxxxx). Summed over the chunks of a stream,
// it is the stream's character count, even where a chunk boundary splits a
// character. It looks at 32 bytes at a time, skipping ASCII whole, since a spilling tool can
// stream gigabytes through it.
func leadBytes(p []byte) int64 {
	const high = 0x8080808080808080
	cont := 0
	rest := p
	for len(rest) >= 32 {
		w0 := binary.LittleEndian.Uint64(rest)
		w1 := binary.LittleEndian.Uint64(rest[8:])
		w2 := binary.LittleEndian.Uint64(rest[16:])
		w3 := binary.LittleEndian.Uint64(rest[24:])
		// ASCII, most of what tools print, has no continuation byte.
		if (w0|w1|w2|w3)&high != 0 {
			cont += bits.OnesCount64(w0&^(w0<<1)&high) + bits.OnesCount64(w1&^(w1<<1)&high) +
				bits.OnesCount64(w2&^(w2<<1)&high) + bits.OnesCount64(w3&^(w3<<1)&high)
		}
		rest = rest[32:]
	}
	for len(rest) >= 8 {
		w := binary.LittleEndian.Uint64(rest)
		// In each byte, bit 7 set and bit 6 clear; w<<1 brings bit 6 of
		// each byte under its bit 7.
		cont += bits.OnesCount64(w &^ (w << 1) & high)
		rest = rest[8:]
	}
	for _, b := range rest {
		if b&0xC0 == 0x80 {
			cont++
		}
	}
	return int64(len(p) - cont)
}
