// Command garbage writes to stdout before the handshake, bypassing the
// SDK's protection, as a badly written plugin might.
package main

import (
	"os"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

func main() {
	_, _ = os.Stdout.WriteString("hello from a plugin that prints\n")
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(nil),
		TLSProvider:      shared.ServerTLSFromEnv,
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
