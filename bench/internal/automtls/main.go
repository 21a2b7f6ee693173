// Command automtls serves a no-op tool with go-plugin's AutoMTLS instead of
// riot's P-256 certificates, to measure what riot's choice saves at start.
package main

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

type noopIn struct{}
type noop struct{}

func (noop) Name() string           { return "Noop" }
func (noop) Prompt() string         { return "Does nothing." }
func (noop) Describe(noopIn) string { return "Do nothing" }
func (noop) Call(context.Context, noopIn, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("ok"))
}

func main() {
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[noopIn](noop{}))
	if err != nil {
		panic(err)
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(srv),
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
