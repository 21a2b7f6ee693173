package shared

import (
	"context"
	"errors"
	"io"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// ToolPlugin is the ToolPlugin service in Go terms. The plugin SDK
// implements it; the host calls it through GRPCClient.
type ToolPlugin interface {
	Manifest(ctx context.Context) (Manifest, error)
	Prepare(ctx context.Context, req PrepareRequest) (PrepareAnswer, error)
	// Call runs one call and hands each event to send, in order. It returns
	// once the Final event has been sent, or with the error that stopped it.
	Call(ctx context.Context, req CallRequest, send func(CallEvent) error) error
}

// GRPCPlugin is the go-plugin adapter: on the plugin side it registers Impl
// with the gRPC server; on the host side it returns a GRPCClient.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	// Impl is set on the plugin side only.
	Impl ToolPlugin
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers the server shim.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolPluginServer(s, &GRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns the client stub.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewGRPCClient(c), nil
}

// GRPCClient is the host-side stub: ToolPlugin over a gRPC connection, an
// RPC per Manifest, per Prepare and per Call.
type GRPCClient struct {
	client toolv1.ToolPluginClient
}

// NewGRPCClient returns a stub speaking over conn.
func NewGRPCClient(conn grpc.ClientConnInterface) *GRPCClient {
	return &GRPCClient{client: toolv1.NewToolPluginClient(conn)}
}

var _ ToolPlugin = (*GRPCClient)(nil)

func (c *GRPCClient) Manifest(ctx context.Context) (Manifest, error) {
	m, err := c.client.Manifest(ctx, &toolv1.ManifestRequest{})
	if err != nil {
		return Manifest{}, err
	}
	return manifestFromProto(m), nil
}

func (c *GRPCClient) Prepare(ctx context.Context, req PrepareRequest) (PrepareAnswer, error) {
	p, err := c.client.Prepare(ctx, prepareRequestToProto(req))
	if err != nil {
		return PrepareAnswer{}, err
	}
	return answerFromProto(p), nil
}

// ErrNoFinal reports a Call stream that ended without its Final event.
var ErrNoFinal = errors.New("call stream ended without a final event")

func (c *GRPCClient) Call(ctx context.Context, req CallRequest, send func(CallEvent) error) error {
	stream, err := c.client.Call(ctx, callRequestToProto(req))
	if err != nil {
		return err
	}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return ErrNoFinal
		}
		if err != nil {
			return err
		}
		e := eventFromProto(ev)
		if err := send(e); err != nil {
			return err
		}
		if e.Final != nil {
			return nil
		}
	}
}

// GRPCServer is the plugin-side shim: the generated service over ToolPlugin.
type GRPCServer struct {
	toolv1.UnimplementedToolPluginServer
	Impl ToolPlugin
}

func (s *GRPCServer) Manifest(ctx context.Context, _ *toolv1.ManifestRequest) (*toolv1.ManifestResponse, error) {
	m, err := s.Impl.Manifest(ctx)
	if err != nil {
		return nil, err
	}
	return manifestToProto(m), nil
}

func (s *GRPCServer) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	a, err := s.Impl.Prepare(ctx, prepareRequestFromProto(req))
	if err != nil {
		return nil, err
	}
	return answerToProto(a), nil
}

func (s *GRPCServer) Call(req *toolv1.CallRequest, stream grpc.ServerStreamingServer[toolv1.CallEvent]) error {
	return s.Impl.Call(stream.Context(), callRequestFromProto(req), func(e CallEvent) error {
		return stream.Send(eventToProto(e))
	})
}
