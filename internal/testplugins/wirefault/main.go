// Command wirefault is a riot plugin that breaks the wire protocol on
// purpose, for the host's fault-injection tests. It is built on shared
// alone, not the SDK, since the SDK cannot send what it sends: streams
// that end without a Final, gRPC error statuses, messages over the limit,
// chunks of unknown kinds and text that is not UTF-8. Each tool is one
// fault; RIOT_WIREFAULT selects a fault of the manifest or the handshake.
// It serves protocols 1 and 2, and 1 alone when built with the
// riot_protocol1 tag, so that each fault is seen over both.
package main

import (
	"context"
	"os"
	"strings"

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
	versions := map[int]goplugin.PluginSet{}
	for _, v := range protocols {
		versions[v] = goplugin.PluginSet{shared.PluginName: &shared.GRPCPlugin{Impl: faults{}, Protocol: v}}
	}
	if os.Getenv("RIOT_WIREFAULT") == "other-version" {
		handshake.ProtocolVersion = 99
		versions = map[int]goplugin.PluginSet{99: {shared.PluginName: &shared.GRPCPlugin{Impl: faults{}}}}
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

var tools = []string{"EarlyClose", "StatusError", "HugeMessage", "BadKind", "BadUTF8", "SplitUTF8", "CutUTF8", "PrepareError", "NoEvent"}

func (faults) Manifest(ctx context.Context) (*toolv1.ManifestResponse, error) {
	m := &toolv1.ManifestResponse{SdkVersion: "wirefault"}
	switch os.Getenv("RIOT_WIREFAULT") {
	case "hang-manifest":
		<-ctx.Done()
		return nil, ctx.Err()
	case "huge-manifest":
		m.Tools = append(m.Tools, &toolv1.ToolSpec{Name: "Huge", Prompt: strings.Repeat("p", overLimit), InputSchema: []byte(`{"type":"object"}`)})
		return m, nil
	case "manifest-error":
		return nil, status.Error(codes.Internal, "wirefault: no manifest today")
	}
	for _, name := range tools {
		m.Tools = append(m.Tools, &toolv1.ToolSpec{Name: name, Prompt: "Breaks the protocol.", InputSchema: []byte(`{"type":"object","additionalProperties":false}`)})
	}
	return m, nil
}

func (faults) Prepare(_ context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	if req.GetTool() == "PrepareError" {
		return nil, status.Error(codes.Internal, "wirefault: internal detail the model must not see")
	}
	return &toolv1.PrepareResponse{Describe: req.GetTool(), ReadOnly: true}, nil
}

func text(block uint32, kind toolv1.BlockKind, data []byte) *toolv1.CallEvent {
	return &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Block: block, Kind: kind, Data: data}}}
}

var ok = &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}}

func (faults) Call(_ context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	const txt = toolv1.BlockKind_BLOCK_KIND_TEXT
	var events []*toolv1.CallEvent
	var end error
	switch req.GetTool() {
	case "EarlyClose":
		events = []*toolv1.CallEvent{text(0, txt, []byte("partial output\n"))}
	case "StatusError":
		events = []*toolv1.CallEvent{text(0, txt, []byte("partial output\n"))}
		end = status.Error(codes.Internal, "wirefault: internal detail the model must not see")
	case "HugeMessage":
		events = []*toolv1.CallEvent{text(0, txt, []byte(strings.Repeat("x", overLimit))), ok}
	case "BadKind":
		events = []*toolv1.CallEvent{text(0, toolv1.BlockKind(7), []byte("what is this")), ok}
	case "BadUTF8":
		events = []*toolv1.CallEvent{text(0, txt, []byte("fine, then \xff\xfe broken")), ok}
	case "SplitUTF8":
		// "é" cut between two chunks of one block is valid UTF-8.
		events = []*toolv1.CallEvent{text(0, txt, []byte("caf\xc3")), text(0, txt, []byte("\xa9 au lait")), ok}
	case "CutUTF8":
		// A block that ends inside a character is not valid UTF-8.
		events = []*toolv1.CallEvent{text(0, txt, []byte("caf\xc3")), ok}
	case "NoEvent":
		events = []*toolv1.CallEvent{{}, ok}
	}
	for _, ev := range events {
		if err := send(ev); err != nil {
			return err
		}
	}
	return end
}
