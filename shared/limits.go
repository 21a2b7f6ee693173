package shared

// ChunkSize is the largest data payload of one Chunk event. Content of any
// size is streamed as a sequence of chunks, so no message approaches gRPC's
// default 4 MiB limit.
const ChunkSize = 1 << 20

// MaxMessageSize is the receive limit both sides set, raised above gRPC's
// default so that a large input or manifest is never refused.
const MaxMessageSize = 64 << 20

// StreamWindow and ConnWindow are the host's HTTP/2 flow-control windows
// for what plugins send it: at most StreamWindow in flight per call and
// ConnWindow per plugin, whatever the plugin streams.
const (
	StreamWindow = 1 << 20
	ConnWindow   = 4 << 20
)
