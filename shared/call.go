package shared

import toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"

// CallRequest runs one call (the Call RPC).
type CallRequest struct {
	Tool    string
	CallID  string
	Input   []byte
	Context CallContext
	// Unprepared: no Prepare was sent (ToolSpec.DefaultPrepare); the plugin
	// prepares the call itself and sends its answer first (CallEvent.Prepared).
	Unprepared bool
	// Expect, when set, is the answer the host judged the call by; the plugin
	// runs the call only if its own answer is the same (SameAnswer).
	Expect *PrepareAnswer
}

// CallEvent is one event of a call's stream; exactly one field is set.
type CallEvent struct {
	Progress *Progress
	Chunk    *Chunk
	Final    *Final
	Prepared *PrepareAnswer
}

// Progress is a status line for the UI.
type Progress struct {
	Message string
}

// Chunk is a piece of one content block of a result. A chunk of a spilled
// result names a range of the spill file instead of carrying data.
type Chunk struct {
	Block      uint32
	Kind       BlockKind
	MediaType  string
	Data       []byte
	FileOffset uint64
	FileLength uint64
	// FileChars and FileNewlines nil mean the plugin did not count them.
	FileChars    *uint64
	FileNewlines *uint64
}

// BlockKind is the kind of a content block.
type BlockKind int

const (
	BlockUnspecified BlockKind = iota
	BlockText
	BlockImage
)

// Final ends a call's stream.
type Final struct {
	Status       Status
	Message      string
	UIPayload    []byte
	StateUpdates map[string]string
}

// Status is how a call ended; zero is unspecified, which the host reads
// as a failure.
type Status int

const (
	StatusUnspecified Status = iota
	StatusOK
	StatusFailed
)

func callRequestFromProto(r *toolv1.CallRequest) CallRequest {
	out := CallRequest{Tool: r.GetTool(), CallID: r.GetCallId(), Input: r.GetInput(),
		Context: contextFromProto(r.GetContext()), Unprepared: r.GetUnprepared()}
	if e := r.GetExpect(); e != nil {
		a := answerFromProto(e)
		out.Expect = &a
	}
	return out
}

func callRequestToProto(r CallRequest) *toolv1.CallRequest {
	out := &toolv1.CallRequest{Tool: r.Tool, CallId: r.CallID, Input: r.Input, Context: contextToProto(r.Context),
		Unprepared: r.Unprepared}
	if r.Expect != nil {
		out.Expect = answerToProto(*r.Expect)
	}
	return out
}

func eventFromProto(e *toolv1.CallEvent) CallEvent {
	switch ev := e.GetEvent().(type) {
	case *toolv1.CallEvent_Progress:
		return CallEvent{Progress: &Progress{Message: ev.Progress.GetMessage()}}
	case *toolv1.CallEvent_Chunk:
		c := ev.Chunk
		return CallEvent{Chunk: &Chunk{Block: c.GetBlock(), Kind: enumFrom(c.GetKind(), toolv1.BlockKind_name, BlockUnspecified), MediaType: c.GetMediaType(),
			Data: c.GetData(), FileOffset: c.GetFileOffset(), FileLength: c.GetFileLength(),
			FileChars: c.FileChars, FileNewlines: c.FileNewlines}}
	case *toolv1.CallEvent_Final:
		f := ev.Final
		return CallEvent{Final: &Final{Status: enumFrom(f.GetStatus(), toolv1.Status_name, StatusUnspecified), Message: f.GetMessage(),
			UIPayload: f.GetUiPayload(), StateUpdates: f.GetStateUpdates()}}
	case *toolv1.CallEvent_Prepared:
		a := answerFromProto(ev.Prepared)
		return CallEvent{Prepared: &a}
	default:
		return CallEvent{}
	}
}

func eventToProto(e CallEvent) *toolv1.CallEvent {
	switch {
	case e.Progress != nil:
		return &toolv1.CallEvent{Event: &toolv1.CallEvent_Progress{Progress: &toolv1.Progress{Message: e.Progress.Message}}}
	case e.Chunk != nil:
		c := e.Chunk
		return &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Block: c.Block, Kind: enumTo(c.Kind, toolv1.BlockKind_name, toolv1.BlockKind_BLOCK_KIND_UNSPECIFIED),
			MediaType: c.MediaType, Data: c.Data, FileOffset: c.FileOffset, FileLength: c.FileLength,
			FileChars: c.FileChars, FileNewlines: c.FileNewlines}}}
	case e.Final != nil:
		f := e.Final
		return &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: enumTo(f.Status, toolv1.Status_name, toolv1.Status_STATUS_UNSPECIFIED),
			Message: f.Message, UiPayload: f.UIPayload, StateUpdates: f.StateUpdates}}}
	case e.Prepared != nil:
		return &toolv1.CallEvent{Event: &toolv1.CallEvent_Prepared{Prepared: answerToProto(*e.Prepared)}}
	default:
		return &toolv1.CallEvent{}
	}
}
