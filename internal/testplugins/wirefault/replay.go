package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/riot-tools/riot/shared"
)

// replayIn is Replay's input: the text in the file From (valid UTF-8), sent
// one Way. "streamed" sends it all over the stream, as a plugin that cannot
// write the spill file does; "uncounted" streams its first Stream bytes and
// writes the rest to the spill file in announcements of about Announce
// bytes without counts, as an SDK older than the counts does; "counted"
// does the same with the counts, adding Lie to each announcement's
// character count.
type replayIn struct {
	From     string `json:"from"`
	Way      string `json:"way"`
	Stream   int    `json:"stream"`
	Announce int    `json:"announce"`
	Lie      int64  `json:"lie"`
}

const replaySchema = `{"type":"object","additionalProperties":false,"required":["from","way"],"properties":{
"from":{"type":"string"},"way":{"enum":["streamed","uncounted","counted"]},"stream":{"type":"integer"},"announce":{"type":"integer"},"lie":{"type":"integer"}}}`

func replay(req *shared.CallRequest) ([]shared.CallEvent, error) {
	const txt = shared.BlockText
	var in replayIn
	if err := json.Unmarshal(req.Input, &in); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(in.From)
	if err != nil {
		return nil, err
	}
	if in.Way == "streamed" {
		in.Stream = len(data)
	}
	in.Stream = min(in.Stream, len(data))
	var events []shared.CallEvent
	// Streamed chunks are cut anywhere, characters among them: the host
	// joins them.
	for rest := data[:in.Stream]; len(rest) > 0; {
		n := min(len(rest), shared.ChunkSize)
		events = append(events, text(0, txt, rest[:n]))
		rest = rest[n:]
	}
	if file := data[in.Stream:]; len(file) > 0 {
		if err := writeSpill(req, file, int64(in.Stream)); err != nil {
			return nil, err
		}
		// Announced stretches hold whole characters.
		for off := in.Stream; off < len(data); {
			end := min(len(data), off+max(1, in.Announce))
			for end < len(data) && !utf8.RuneStart(data[end]) {
				end++
			}
			ch := &shared.Chunk{Kind: txt, FileOffset: uint64(off), FileLength: uint64(end - off)}
			if in.Way == "counted" {
				chars := uint64(int64(utf8.RuneCount(data[off:end])) + in.Lie)
				newlines := uint64(bytes.Count(data[off:end], []byte{'\n'}))
				ch.FileChars, ch.FileNewlines = &chars, &newlines
			}
			events = append(events, shared.CallEvent{Chunk: ch})
			off = end
		}
	} else if in.Way != "streamed" {
		return nil, fmt.Errorf("nothing of %d bytes left for the spill file past %d streamed", len(data), in.Stream)
	}
	return append(events, ok), nil
}
