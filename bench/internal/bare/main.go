// Command bare is a plugin with nothing in it but the go-plugin handshake
// and a ToolPlugin that does nothing, for the start-up benchmarks: started with riot's
// P-256 material in the environment it serves with that, and started by a
// client with AutoMTLS it serves with go-plugin's generated P-521
// certificates. Everything else is the same, so the difference is the TLS.
// It does not use the SDK, whose own start-up would be measured with it.
package main

import (
	"context"
	"crypto/tls"
	"os"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

type empty struct{}

func (empty) Manifest(context.Context) (*toolv1.ManifestResponse, error) {
	return &toolv1.ManifestResponse{}, nil
}

func (empty) Prepare(context.Context, *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	return &toolv1.PrepareResponse{}, nil
}

func (empty) Call(_ context.Context, _ *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	return send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}})
}

func main() {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(empty{}),
		TLSProvider: func() (*tls.Config, error) {
			if os.Getenv(shared.TLSEnv) == "" {
				return nil, nil // AutoMTLS: go-plugin makes the certificates
			}
			return shared.ServerTLSFromEnv()
		},
		GRPCServer: goplugin.DefaultGRPCServer,
	})
}
