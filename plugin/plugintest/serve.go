package plugintest

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

// serveInProcess serves srv with go-plugin's own test mode (the real
// server and a client reattached to it, both in this process) and returns
// the client's stub. go-plugin's own logs are dropped: its default logger
// writes its chatter ("[DEBUG] stdio EOF, exiting copy loop", an accept
// error at shutdown) to stderr, which buries a failing test's output, and
// every failure that matters comes back as an error the harness reports.
func serveInProcess(t testing.TB, srv shared.ToolPlugin) shared.ToolPlugin {
	t.Helper()
	logger := hclog.NewNullLogger()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *goplugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: shared.Handshake,
		// The newest version alone: with no client to ask, go-plugin
		// would serve the oldest it has.
		VersionedPlugins: map[int]goplugin.PluginSet{shared.ProtocolVersion: shared.VersionedPlugins(srv)[shared.ProtocolVersion]},
		GRPCServer:       goplugin.DefaultGRPCServer,
		Logger:           logger,
		Test:             &goplugin.ServeTestConfig{Context: ctx, ReattachConfigCh: reattach, CloseCh: closed},
	})
	var cfg *goplugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case <-closed:
		cancel()
		t.Fatal("plugintest: the in-process server stopped before it served")
	}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: shared.Handshake,
		// A reattached client negotiates no version: it takes Plugins.
		Plugins:          shared.VersionedPlugins(nil)[shared.ProtocolVersion],
		Reattach:         cfg,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           logger,
	})
	t.Cleanup(func() {
		client.Kill()
		cancel()
		<-closed
	})
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("plugintest: connect: %v", err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		t.Fatalf("plugintest: dispense: %v", err)
	}
	return raw.(shared.ToolPlugin)
}
