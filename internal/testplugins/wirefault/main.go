// Command wirefault is a riot plugin that breaks the wire protocol on
// purpose, for the host's fault-injection tests. It is built on shared
// alone, not the SDK, since the SDK cannot send what it sends: streams
// that end without a Final, gRPC error statuses, messages over the limit,
// chunks of unknown kinds and text that is not UTF-8. It speaks the model
// through shared's server shim, and the generated types only to forge
// what the model cannot hold (rawPlugin). Each tool is one fault;
// RIOT_WIREFAULT selects a fault of the manifest or the handshake.
package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// overLimit is past the host's receive limit.
const overLimit = shared.MaxMessageSize + 6<<20

func main() {
	handshake := shared.Handshake
	versions := map[int]goplugin.PluginSet{shared.ProtocolVersion: {shared.PluginName: rawPlugin{}}}
	if v := os.Getenv("RIOT_WIREFAULT"); strings.HasPrefix(v, "version-") {
		// A plugin of another protocol version: 99, of a newer SDK, or 2
		// or 3, of an SDK before protocol version 1 alone.
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "version-"))
		handshake.ProtocolVersion = uint(n)
		versions = map[int]goplugin.PluginSet{n: versions[shared.ProtocolVersion]}
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: versions,
		TLSProvider:      shared.ServerTLSFromEnv,
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			// Its own limits are far above the host's, so what it sends
			// reaches the host's.
			return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(4*overLimit), grpc.MaxSendMsgSize(4*overLimit))...)
		},
	})
}

type faults struct{}

var tools = []string{"EarlyClose", "StatusError", "HugeMessage", "BadKind", "BadUTF8", "SplitUTF8", "CutUTF8", "PrepareError", "NoEvent",
	"IgnoreSpillFile", "FileBeforeSpill", "FileWrongOffset", "FileShort", "FileBadUTF8", "FileCutUTF8", "FileImage", "FileTail"}

// elided are the tools whose manifest declares the default Prepare answer
// (ToolSpec.DefaultPrepare), each a fault of the answer an unprepared
// Call's stream must begin with.
var elided = []string{"ElidedNoAnswer", "ElidedNotDefault", "ElidedTwice", "ElidedStatusError"}

// guessed are tools that honour an expected answer (ToolSpec.HonoursExpect)
// and lie about it: their Prepare answers read-only, so the host guesses
// that for their next call, and that Call answers otherwise and runs
// anyway, or answers twice, or after output.
var guessed = []string{"GuessRunsAnyway", "GuessOkAfterMiss", "GuessTwice", "GuessAnswerAfterOutput"}

// overBudget is more text than the default budget, which makes the host
// spill and create the offered spill file.
const overBudget = 60_000

// announce is a chunk naming length bytes of the spill file at offset.
func announce(kind shared.BlockKind, offset, length uint64) shared.CallEvent {
	return shared.CallEvent{Chunk: &shared.Chunk{Kind: kind, FileOffset: offset, FileLength: length}}
}

// writeSpill writes data into the offered spill file at offset. It creates
// the file if the host has not yet, which the SDK never does, so that it
// need not wait for the host: the host opens the same file.
func writeSpill(req *shared.CallRequest, data []byte, offset int64) error {
	if req.Context.SpillFile == nil {
		return errors.New("no spill file offered")
	}
	f, err := os.OpenFile(req.Context.SpillFile.Path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, offset)
	return errors.Join(err, f.Close())
}

// spillFault is the stream of a tool that misuses the spill file, after
// overBudget bytes of streamed text.
func spillFault(req *shared.CallRequest) ([]shared.CallEvent, error) {
	const txt = shared.BlockText
	head := text(0, txt, []byte(strings.Repeat("x", overBudget)))
	var file []byte
	var events []shared.CallEvent
	switch req.Tool {
	case "IgnoreSpillFile":
		// A plugin of an SDK older than the spill file streams it all.
		return []shared.CallEvent{head, text(0, txt, []byte(strings.Repeat("y", 3*overBudget))), ok}, nil
	case "FileBeforeSpill":
		return []shared.CallEvent{announce(txt, 0, 10), ok}, nil
	case "FileWrongOffset":
		file, events = []byte("0123456789"), []shared.CallEvent{announce(txt, 0, 10), ok}
	case "FileShort":
		file, events = []byte("0123456789"), []shared.CallEvent{announce(txt, overBudget, 1000), ok}
	case "FileBadUTF8":
		file, events = []byte("fine \xff\xfe broken"), []shared.CallEvent{announce(txt, overBudget, 14), ok}
	case "FileCutUTF8":
		file, events = []byte("caf\xc3"), []shared.CallEvent{announce(txt, overBudget, 4), ok}
	case "FileImage":
		file, events = []byte("0123456789"), []shared.CallEvent{announce(shared.BlockImage, overBudget, 10), ok}
	case "FileTail":
		// Only what is announced counts: the rest is cut from the file.
		file, events = []byte("announced\nnot announced\n"), []shared.CallEvent{announce(txt, overBudget, 10), text(0, txt, []byte("streamed\n")), ok}
	}
	if err := writeSpill(req, file, overBudget); err != nil {
		return nil, err
	}
	return append([]shared.CallEvent{head}, events...), nil
}

func (faults) Manifest(ctx context.Context) (shared.Manifest, error) {
	m := shared.Manifest{SDKVersion: "wirefault"}
	switch os.Getenv("RIOT_WIREFAULT") {
	case "hang-manifest":
		<-ctx.Done()
		return shared.Manifest{}, ctx.Err()
	case "huge-manifest":
		m.Tools = append(m.Tools, shared.ToolSpec{Name: "Huge", Prompt: strings.Repeat("p", overLimit), InputSchema: []byte(`{"type":"object"}`)})
		return m, nil
	case "manifest-error":
		return shared.Manifest{}, status.Error(codes.Internal, "wirefault: no manifest today")
	case "bad-schema":
		// A type its meta-schema rejects, beside the usual tools.
		m.Tools = append(m.Tools, shared.ToolSpec{Name: "BadSchema", Prompt: "Declares a schema that is not one.", InputSchema: []byte(`{"type":5}`)})
	}
	for _, name := range tools {
		m.Tools = append(m.Tools, shared.ToolSpec{Name: name, Prompt: "Breaks the protocol.", InputSchema: []byte(`{"type":"object","additionalProperties":false}`)})
	}
	m.Tools = append(m.Tools, shared.ToolSpec{Name: "Replay", Prompt: "Replays a file's text.", InputSchema: []byte(replaySchema)})
	for _, name := range elided {
		m.Tools = append(m.Tools, shared.ToolSpec{Name: name, Prompt: "Breaks the protocol.", InputSchema: []byte(`{"type":"object","additionalProperties":false}`), DefaultPrepare: true})
	}
	for _, name := range guessed {
		m.Tools = append(m.Tools, shared.ToolSpec{Name: name, Prompt: "Breaks the protocol.", InputSchema: []byte(`{"type":"object","additionalProperties":false}`), HonoursExpect: true})
	}
	return m, nil
}

// guessFault is the stream of a guessed tool's Call: a plain result when
// it was prepared, its fault when it carries an expected answer.
func guessFault(req *shared.CallRequest) []shared.CallEvent {
	const txt = shared.BlockText
	if req.Expect == nil {
		return []shared.CallEvent{text(0, txt, []byte("prepared call")), ok}
	}
	other := prepared(shared.PrepareAnswer{Describe: req.Tool})
	switch req.Tool {
	case "GuessRunsAnyway":
		return []shared.CallEvent{other, text(0, txt, []byte("ran anyway")), ok}
	case "GuessOkAfterMiss":
		return []shared.CallEvent{other, ok}
	case "GuessTwice":
		return []shared.CallEvent{prepared(shared.PrepareAnswer{Describe: req.Tool, ReadOnly: true}), other, ok}
	default: // GuessAnswerAfterOutput
		return []shared.CallEvent{text(0, txt, []byte("ran first")), other, ok}
	}
}

func (faults) Prepare(_ context.Context, req shared.PrepareRequest) (shared.PrepareAnswer, error) {
	if req.Tool == "PrepareError" {
		return shared.PrepareAnswer{}, status.Error(codes.Internal, "wirefault: internal detail the model must not see")
	}
	if strings.HasPrefix(req.Tool, "Elided") {
		return shared.PrepareAnswer{Describe: req.Tool}, nil
	}
	return shared.PrepareAnswer{Describe: req.Tool, ReadOnly: true}, nil
}

func prepared(p shared.PrepareAnswer) shared.CallEvent { return shared.CallEvent{Prepared: &p} }

func text(block uint32, kind shared.BlockKind, data []byte) shared.CallEvent {
	return shared.CallEvent{Chunk: &shared.Chunk{Block: block, Kind: kind, Data: data}}
}

var ok = shared.CallEvent{Final: &shared.Final{Status: shared.StatusOK}}

func (faults) Call(_ context.Context, req shared.CallRequest, send func(shared.CallEvent) error) error {
	const txt = shared.BlockText
	var events []shared.CallEvent
	var end error
	switch req.Tool {
	case "EarlyClose":
		events = []shared.CallEvent{text(0, txt, []byte("partial output\n"))}
	case "StatusError":
		events = []shared.CallEvent{text(0, txt, []byte("partial output\n"))}
		end = status.Error(codes.Internal, "wirefault: internal detail the model must not see")
	case "HugeMessage":
		events = []shared.CallEvent{text(0, txt, []byte(strings.Repeat("x", overLimit))), ok}
	case "BadKind":
		// Forged on the wire instead (badKind): the model has no kind 7.
		return errors.New("wirefault: BadKind is served by its raw shim")
	case "BadUTF8":
		events = []shared.CallEvent{text(0, txt, []byte("fine, then \xff\xfe broken")), ok}
	case "SplitUTF8":
		// "é" cut between two chunks of one block is valid UTF-8.
		events = []shared.CallEvent{text(0, txt, []byte("caf\xc3")), text(0, txt, []byte("\xa9 au lait")), ok}
	case "CutUTF8":
		// A block that ends inside a character is not valid UTF-8.
		events = []shared.CallEvent{text(0, txt, []byte("caf\xc3")), ok}
	case "NoEvent":
		events = []shared.CallEvent{{}, ok}
	case "ElidedNoAnswer":
		events = []shared.CallEvent{text(0, txt, []byte("ran unchecked")), ok}
	case "ElidedNotDefault":
		events = []shared.CallEvent{prepared(shared.PrepareAnswer{Describe: "x", ReadOnly: true}), ok}
	case "ElidedTwice":
		events = []shared.CallEvent{prepared(shared.PrepareAnswer{Describe: "x"}), prepared(shared.PrepareAnswer{Describe: "x"}), ok}
	case "ElidedStatusError":
		end = status.Error(codes.Internal, "wirefault: internal detail the model must not see")
	case "Replay":
		var err error
		if events, err = replay(&req); err != nil {
			return status.Error(codes.Internal, "wirefault: cannot replay: "+err.Error())
		}
	case "GuessRunsAnyway", "GuessOkAfterMiss", "GuessTwice", "GuessAnswerAfterOutput":
		events = guessFault(&req)
	default:
		var err error
		if events, err = spillFault(&req); err != nil {
			return status.Error(codes.Internal, "wirefault: cannot write the spill file: "+err.Error())
		}
	}
	for _, ev := range events {
		if err := send(ev); err != nil {
			return err
		}
	}
	return end
}

// rawPlugin serves faults through shared's server shim, but for the one
// fault the model cannot express: a chunk of a kind the protocol does not
// define, forged in the generated types (badKind).
type rawPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
}

func (rawPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolPluginServer(s, rawServer{&shared.GRPCServer{Impl: faults{}}})
	return nil
}

func (rawPlugin) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("wirefault serves only")
}

type rawServer struct{ *shared.GRPCServer }

func (s rawServer) Call(req *toolv1.CallRequest, stream grpc.ServerStreamingServer[toolv1.CallEvent]) error {
	if req.GetTool() != "BadKind" {
		return s.GRPCServer.Call(req, stream)
	}
	return badKind(stream)
}

// badKind sends a text chunk of kind 7, which no version of the protocol
// defines, and an ok Final.
func badKind(stream grpc.ServerStreamingServer[toolv1.CallEvent]) error {
	chunk := &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Kind: toolv1.BlockKind(7), Data: []byte("what is this")}}}
	if err := stream.Send(chunk); err != nil {
		return err
	}
	return stream.Send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}})
}
