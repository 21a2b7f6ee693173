package bench

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/benchrotate"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

// The warm per-call overhead of a no-op tool, four ways: through the whole
// host pipeline, as raw go-plugin gRPC (the protocol's RPCs), as an
// in-process call, and as the same tool over MCP stdio.

func BenchmarkNoopHost(b *testing.B) {
	h := hostWith(b, "", testkit())
	uses := []core.ToolUse{{ID: "toolu_1", Name: "Noop", Input: json.RawMessage(`{}`)}}
	h.RunTurn(context.Background(), uses) // warm: the plugin is started
	b.ResetTimer()
	for b.Loop() {
		if r := h.RunTurn(context.Background(), uses); r[0].Status != core.StatusOK {
			b.Fatal(r[0].Text())
		}
	}
}

// rawClient is the testkit plugin under go-plugin with riot's TLS, and no
// host around it.
func rawClient(b *testing.B, path string, tlsConfig *tls.Config, env []string, auto bool) (*goplugin.Client, shared.ToolPlugin) {
	b.Helper()
	cmd := exec.Command(path)
	cmd.Env = env
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(nil),
		Cmd:              cmd,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		TLSConfig:        tlsConfig,
		AutoMTLS:         auto,
		Logger:           hclog.NewNullLogger(),
	})
	rpc, err := client.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		b.Fatal(err)
	}
	return client, raw.(shared.ToolPlugin)
}

func riotTLS(b *testing.B) (*tls.Config, []string) {
	m, err := shared.NewTLSMaterial()
	if err != nil {
		b.Fatal(err)
	}
	return m.ClientConfig(), []string{m.PluginEnv()}
}

var noopPrepare = shared.PrepareRequest{Tool: "Noop", CallID: "toolu_1", Input: []byte(`{}`), Context: shared.CallContext{Cwd: "/"}}
var noopCall = shared.CallRequest{Tool: "Noop", CallID: "toolu_1", Input: []byte(`{}`), Context: shared.CallContext{Cwd: "/"}}

// BenchmarkNoopRawUnary is one unary RPC: the anchor of any call.
func BenchmarkNoopRawUnary(b *testing.B) {
	cfg, env := riotTLS(b)
	client, stub := rawClient(b, bins.testkit, cfg, env, false)
	defer client.Kill()
	b.ResetTimer()
	for b.Loop() {
		if _, err := stub.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoopRawCall is the two RPCs the host makes per call when it
// asks the Prepare, Prepare then the streamed Call, with nothing around
// them.
func BenchmarkNoopRawCall(b *testing.B) {
	cfg, env := riotTLS(b)
	client, stub := rawClient(b, bins.testkit, cfg, env, false)
	defer client.Kill()
	b.ResetTimer()
	for b.Loop() {
		noopPair(b, stub)
	}
}

// noopPair is the two exchanges a host makes per call, Prepare then the
// streamed Call, with nothing around them.
func noopPair(b *testing.B, stub shared.ToolPlugin) {
	if _, err := stub.Prepare(context.Background(), noopPrepare); err != nil {
		b.Fatal(err)
	}
	if err := stub.Call(context.Background(), noopCall, func(shared.CallEvent) error { return nil }); err != nil {
		b.Fatal(err)
	}
}

type noopIn struct{}
type noop struct{}

func (noop) Name() string           { return "Noop" }
func (noop) Prompt() string         { return "Does nothing." }
func (noop) Describe(noopIn) string { return "Do nothing" }
func (noop) Call(context.Context, noopIn, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("ok"))
}

// BenchmarkNoopInProcess is the SDK's server called directly: Prepare and
// Call with no process boundary.
func BenchmarkNoopInProcess(b *testing.B) {
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[noopIn](noop{}))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := srv.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
		if err := srv.Call(context.Background(), noopCall, func(shared.CallEvent) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoopMCPStdio is the same tool over MCP stdio with the official
// Go SDK on both sides.
func BenchmarkNoopMCPStdio(b *testing.B) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bins.mcpnoop)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	params := &mcp.CallToolParams{Name: "Noop", Arguments: map[string]any{}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := session.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartP256 starts the bare plugin with riot's P-256 mutual TLS,
// keys included; BenchmarkStartAutoMTLS starts the same binary with
// go-plugin's AutoMTLS, which makes P-521 keys on both sides at every start.
func BenchmarkStartP256(b *testing.B) {
	for b.Loop() {
		cfg, env := riotTLS(b)
		client, _ := rawClient(b, bins.bare, cfg, env, false)
		client.Kill()
	}
}

func BenchmarkStartAutoMTLS(b *testing.B) {
	for b.Loop() {
		client, _ := rawClient(b, bins.bare, nil, nil, true)
		client.Kill()
	}
}

// BenchmarkNoopPaired makes, in each iteration, one warm no-op call each
// way back to back, in an order that rotates: through the host (Noop,
// whose Prepare answer the host guesses after the first call: one
// exchange), through a host over testkit served so that its manifest
// declares nothing (asked: a Prepare and a Call each), as one raw unary
// RPC, over MCP stdio, through a host with the kernel sandbox off, which
// computes no sandbox profile per call, and through a host to testkit's
// Plain, a no-op without checks whose default Prepare the host elides, and
// the raw guessed Call the first way sends, alone (rawcall: its floor). On
// a machine whose load changes from one second to the next, the ratios of
// their totals are the figures that hold; separate benchmarks minutes
// apart are not.
func BenchmarkNoopPaired(b *testing.B) {
	guessed := hostWith(b, "", testkit())
	asked := hostWith(b, "", core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: map[string]string{"RIOT_TESTKIT_UNDECLARED": "1"}})
	off := hostIn(b, b.TempDir(), func(cfg *config.Config) { cfg.Sandbox.Mode = "off" }, testkit())
	// Plain is not read-only: an allow rule lets it run without asking.
	plain := hostIn(b, b.TempDir(), func(cfg *config.Config) { cfg.Permissions.Allow = []config.Rule{{Text: "Plain"}} }, testkit())
	plainUses := []core.ToolUse{{ID: "toolu_1", Name: "Plain", Input: json.RawMessage(`{"n":0}`)}}
	cfg, env := riotTLS(b)
	client, unary := rawClient(b, bins.testkit, cfg, env, false)
	defer client.Kill()
	mc := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	session, err := mc.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bins.mcpnoop)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	uses := []core.ToolUse{{ID: "toolu_1", Name: "Noop", Input: json.RawMessage(`{}`)}}
	params := &mcp.CallToolParams{Name: "Noop", Arguments: map[string]any{}}
	ans, err := unary.Prepare(context.Background(), noopPrepare)
	if err != nil {
		b.Fatal(err)
	}
	guessedCall := shared.CallRequest{Tool: "Noop", CallID: "toolu_1", Input: []byte(`{}`), Context: shared.CallContext{Cwd: "/"}, Expect: &ans}
	host := func(h *core.Host, uses []core.ToolUse) func() {
		return func() {
			if r := h.RunTurn(context.Background(), uses); r[0].Status != core.StatusOK {
				b.Fatal(r[0].Text())
			}
		}
	}
	const (
		wHost = iota
		wAsked
		wUnary
		wMCP
		wOff
		wElided
		wRawCall
		nWays
	)
	ways := [nWays]func(){wHost: host(guessed, uses), wAsked: host(asked, uses), wElided: host(plain, plainUses), wUnary: func() {
		if _, err := unary.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}, wMCP: func() {
		if _, err := session.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}, wOff: host(off, uses), wRawCall: func() {
		// The floor under the host's call: the one guessed Call RPC it
		// sends, with nothing around it.
		if err := unary.Call(context.Background(), guessedCall, func(shared.CallEvent) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}}
	for _, w := range ways {
		w() // warm: every plugin is started
	}
	total := benchrotate.Totals(b, ways[:])
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	ratio := func(a, c int) float64 { return float64(total[a]) / float64(total[c]) }
	b.ReportMetric(us(total[wHost]), "host-us")
	b.ReportMetric(us(total[wAsked]), "asked-us")
	b.ReportMetric(us(total[wUnary]), "unary-us")
	b.ReportMetric(us(total[wMCP]), "mcp-us")
	b.ReportMetric(ratio(wHost, wMCP), "host/mcp")
	b.ReportMetric(ratio(wHost, wUnary), "host/unary")
	b.ReportMetric(ratio(wHost, wAsked), "host/asked")
	b.ReportMetric(ratio(wAsked, wMCP), "asked/mcp")
	b.ReportMetric(ratio(wAsked, wUnary), "asked/unary")
	b.ReportMetric(us(total[wOff]), "host-nosandbox-us")
	b.ReportMetric(ratio(wOff, wMCP), "host-nosandbox/mcp")
	b.ReportMetric(ratio(wOff, wUnary), "host-nosandbox/unary")
	b.ReportMetric(us(total[wElided]), "elided-us")
	b.ReportMetric(ratio(wElided, wMCP), "elided/mcp")
	b.ReportMetric(ratio(wElided, wUnary), "elided/unary")
	b.ReportMetric(ratio(wElided, wHost), "elided/host")
	b.ReportMetric(us(total[wRawCall]), "rawcall-us")
	b.ReportMetric(ratio(wRawCall, wMCP), "rawcall/mcp")
	b.ReportMetric(ratio(wHost, wRawCall), "host/rawcall")
}

// BenchmarkNoopRawPaired rotates, in each iteration, the raw Prepare and
// Call pair, one raw unary RPC, one Call carrying a guessed answer (Noop)
// and one unprepared Call (Plain's default answer elided): the transport
// alone, paired, so that two builds compare by their ratios on a machine
// whose load moves, and what the elided and guessed Prepare save.
func BenchmarkNoopRawPaired(b *testing.B) {
	cfg, env := riotTLS(b)
	c, stub := rawClient(b, bins.testkit, cfg, env, false)
	defer c.Kill()
	ans, err := stub.Prepare(context.Background(), noopPrepare)
	if err != nil {
		b.Fatal(err)
	}
	ans.Describe = ""
	guessedCall := shared.CallRequest{Tool: "Noop", CallID: "toolu_1", Input: []byte(`{}`), Context: shared.CallContext{Cwd: "/"}, Expect: &ans}
	call := func(req shared.CallRequest) func() {
		return func() {
			if err := stub.Call(context.Background(), req, func(shared.CallEvent) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
	ways := []func(){func() { noopPair(b, stub) }, func() {
		if _, err := stub.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}, call(guessedCall), call(plainUnprepared)}
	for _, w := range ways {
		w()
	}
	total := benchrotate.Totals(b, ways)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(us(total[0]), "pair-us")
	b.ReportMetric(us(total[1]), "unary-us")
	b.ReportMetric(float64(total[0])/float64(total[1]), "pair/unary")
	b.ReportMetric(us(total[2]), "guessed-us")
	b.ReportMetric(float64(total[2])/float64(total[0]), "guessed/pair")
	b.ReportMetric(us(total[3]), "unprepared-us")
	b.ReportMetric(float64(total[3])/float64(total[0]), "unprepared/pair")
}

// plainUnprepared is the one exchange of a call whose Prepare the host
// skips: testkit's Plain, answered on the Call's stream.
var plainUnprepared = shared.CallRequest{Tool: "Plain", CallID: "toolu_1", Input: []byte(`{"n":0}`), Context: shared.CallContext{Cwd: "/"}, Unprepared: true}
