package shared

import (
	"context"
	"errors"
	"io"

	"github.com/hashicorp/go-hclog"
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
	// Protocol is the version served: 1 (zero) the RPCs alone, 2 with
	// them the Session stream, which the host then calls instead, 3 with
	// both the link, which the host calls instead of the stream.
	Protocol int
	// Host is the host side's settings; unset on the plugin side.
	Host HostOptions
}

// HostOptions are the host's settings of the stubs it dispenses.
type HostOptions struct {
	// Log takes the stub's debug records, such as a link that could not
	// open; nil drops them.
	Log hclog.Logger
	// LinkDir is where protocol 3 makes each link's private directory;
	// "" is os.TempDir.
	LinkDir string
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers the server shim.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	toolv1.RegisterToolPluginServer(s, &GRPCServer{Impl: p.Impl})
	if p.Protocol >= 2 {
		sessions := &SessionServer{Impl: p.Impl}
		toolv1.RegisterToolSessionServer(s, sessions)
		if p.Protocol >= 3 {
			toolv1.RegisterToolLinkServer(s, &LinkServer{Sessions: sessions})
		}
	}
	return nil
}

// GRPCClient returns the client stub. ctx is the plugin client's life,
// which ends a link with it.
func (p *GRPCPlugin) GRPCClient(ctx context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	if p.Protocol < 2 {
		return NewGRPCClient(c), nil
	}
	sc := NewSessionClient(c)
	if p.Protocol >= 3 {
		log := p.Host.Log
		if log == nil {
			log = hclog.NewNullLogger()
		}
		sc.link = &linker{rpc: toolv1.NewToolLinkClient(c), dir: p.Host.LinkDir, log: log}
	}
	sc.closeOnDone(ctx)
	return sc, nil
}

// GRPCClient is the host-side stub of protocol version 1: ToolPlugin over
// a gRPC connection, an RPC per Prepare and per Call.
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
