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
)

type empty struct{}

func (empty) Manifest(context.Context) (shared.Manifest, error) { return shared.Manifest{}, nil }

func (empty) Prepare(context.Context, shared.PrepareRequest) (shared.PrepareAnswer, error) {
	return shared.PrepareAnswer{}, nil
}

func (empty) Call(_ context.Context, _ shared.CallRequest, send func(shared.CallEvent) error) error {
	return send(shared.CallEvent{Final: &shared.Final{Status: shared.StatusOK}})
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
