package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
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

func replay(req *toolv1.CallRequest) ([]*toolv1.CallEvent, error) {
	const txt = toolv1.BlockKind_BLOCK_KIND_TEXT
	var in replayIn
	if err := json.Unmarshal(req.GetInput(), &in); err != nil {
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
	var events []*toolv1.CallEvent
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
			ch := &toolv1.Chunk{Kind: txt, FileOffset: uint64(off), FileLength: uint64(end - off)}
			if in.Way == "counted" {
				ch.FileChars = proto.Uint64(uint64(int64(utf8.RuneCount(data[off:end])) + in.Lie))
				ch.FileNewlines = proto.Uint64(uint64(bytes.Count(data[off:end], []byte{'\n'})))
			}
			events = append(events, &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: ch}})
			off = end
		}
	} else if in.Way != "streamed" {
		return nil, fmt.Errorf("nothing of %d bytes left for the spill file past %d streamed", len(data), in.Stream)
	}
	return append(events, ok), nil
}
