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
	Manifest(ctx context.Context) (*toolv1.ManifestResponse, error)
	Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error)
	// Call runs one call and hands each event to send, in order. It returns
	// once the Final event has been sent, or with the error that stopped it.
	Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error
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

func (c *GRPCClient) Manifest(ctx context.Context) (*toolv1.ManifestResponse, error) {
	return c.client.Manifest(ctx, &toolv1.ManifestRequest{})
}

func (c *GRPCClient) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	return c.client.Prepare(ctx, req)
}

// ErrNoFinal reports a Call stream that ended without its Final event.
var ErrNoFinal = errors.New("call stream ended without a final event")

func (c *GRPCClient) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	stream, err := c.client.Call(ctx, req)
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
		if err := send(ev); err != nil {
			return err
		}
		if ev.GetFinal() != nil {
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
	return s.Impl.Manifest(ctx)
}

func (s *GRPCServer) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	return s.Impl.Prepare(ctx, req)
}

func (s *GRPCServer) Call(req *toolv1.CallRequest, stream grpc.ServerStreamingServer[toolv1.CallEvent]) error {
	return s.Impl.Call(stream.Context(), req, stream.Send)
}
