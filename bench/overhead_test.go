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
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// The warm per-call overhead of a no-op tool, four ways: through the whole
// host pipeline, as raw go-plugin gRPC (protocol 1's RPCs, protocol 2's
// exchanges on the Session stream and protocol 3's on the link), as an
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
// host around it, speaking protocol version (0: the newest).
func rawClient(b *testing.B, path string, tlsConfig *tls.Config, env []string, auto bool, version int) (*goplugin.Client, shared.ToolPlugin) {
	b.Helper()
	cmd := exec.Command(path)
	cmd.Env = env
	versions := shared.VersionedPlugins(nil)
	if version > 0 {
		versions = map[int]goplugin.PluginSet{version: versions[version]}
	}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: versions,
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

var noopPrepare = &toolv1.PrepareRequest{Tool: "Noop", CallId: "toolu_1", Input: []byte(`{}`), Context: &toolv1.CallContext{Cwd: "/"}}
var noopCall = &toolv1.CallRequest{Tool: "Noop", CallId: "toolu_1", Input: []byte(`{}`), Context: &toolv1.CallContext{Cwd: "/"}}

// BenchmarkNoopRawUnary is one unary RPC of protocol 1: the anchor of any
// call.
func BenchmarkNoopRawUnary(b *testing.B) {
	cfg, env := riotTLS(b)
	client, stub := rawClient(b, bins.testkit, cfg, env, false, 1)
	defer client.Kill()
	b.ResetTimer()
	for b.Loop() {
		if _, err := stub.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoopRawCall is the two RPCs a protocol 1 host makes per call,
// Prepare then the streamed Call, with nothing around them.
func BenchmarkNoopRawCall(b *testing.B) { benchRawPair(b, 1) }

// BenchmarkNoopRawSession is the same two exchanges on protocol 2's
// Session stream, as this host makes them.
func BenchmarkNoopRawSession(b *testing.B) { benchRawPair(b, 2) }

// BenchmarkNoopRawLink is the same two exchanges on protocol 3's link.
func BenchmarkNoopRawLink(b *testing.B) { benchRawPair(b, 3) }

func benchRawPair(b *testing.B, version int) {
	cfg, env := riotTLS(b)
	client, stub := rawClient(b, bins.testkit, cfg, env, false, version)
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
	if err := stub.Call(context.Background(), noopCall, func(*toolv1.CallEvent) error { return nil }); err != nil {
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
		if err := srv.Call(context.Background(), noopCall, func(*toolv1.CallEvent) error { return nil }); err != nil {
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
		client, _ := rawClient(b, bins.bare, cfg, env, false, 0)
		client.Kill()
	}
}

func BenchmarkStartAutoMTLS(b *testing.B) {
	for b.Loop() {
		client, _ := rawClient(b, bins.bare, nil, nil, true, 0)
		client.Kill()
	}
}

// BenchmarkNoopPaired makes, in each iteration, one warm no-op call each
// way back to back, in an order that rotates: through the host over
// protocol 3, over protocol 2 and over protocol 1 (plugins built for them
// alone), as one raw unary RPC, over MCP stdio, and through a host over
// protocol 3 with the kernel sandbox off, which computes no sandbox
// profile per call, and through a host over protocol 3 to testkit's
// Plain, a no-op without checks whose Prepare the host skips (Noop is
// read-only and concurrency-safe, so its calls still make two exchanges). On a machine whose load changes from one second to
// the next, the ratios of their totals are the figures that hold;
// separate benchmarks minutes apart are not.
func BenchmarkNoopPaired(b *testing.B) {
	h3 := hostWith(b, "", testkit())
	h2 := hostWith(b, "", core.PluginSpec{Name: "testkit", Path: bins.testkitV2})
	h1 := hostWith(b, "", core.PluginSpec{Name: "testkit", Path: bins.testkitV1})
	off := hostIn(b, b.TempDir(), func(cfg *config.Config) { cfg.Sandbox.Mode = "off" }, testkit())
	// Plain is not read-only: an allow rule lets it run without asking.
	plain := hostIn(b, b.TempDir(), func(cfg *config.Config) { cfg.Permissions.Allow = []config.Rule{{Text: "Plain"}} }, testkit())
	plainUses := []core.ToolUse{{ID: "toolu_1", Name: "Plain", Input: json.RawMessage(`{"n":0}`)}}
	cfg, env := riotTLS(b)
	client, unary := rawClient(b, bins.testkit, cfg, env, false, 1)
	defer client.Kill()
	mc := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	session, err := mc.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bins.mcpnoop)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	uses := []core.ToolUse{{ID: "toolu_1", Name: "Noop", Input: json.RawMessage(`{}`)}}
	params := &mcp.CallToolParams{Name: "Noop", Arguments: map[string]any{}}
	host := func(h *core.Host, uses []core.ToolUse) func() {
		return func() {
			if r := h.RunTurn(context.Background(), uses); r[0].Status != core.StatusOK {
				b.Fatal(r[0].Text())
			}
		}
	}
	const (
		wHost = iota
		wHostV2
		wHostV1
		wUnary
		wMCP
		wOff
		wElided
		nWays
	)
	ways := [nWays]func(){wHost: host(h3, uses), wHostV2: host(h2, uses), wHostV1: host(h1, uses), wElided: host(plain, plainUses), wUnary: func() {
		if _, err := unary.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}, wMCP: func() {
		if _, err := session.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}, wOff: host(off, uses)}
	for _, w := range ways {
		w() // warm: every plugin is started
	}
	for h, want := range map[*core.Host]int{h3: 3, h2: 2, h1: 1} {
		if p := h.Plugins(); len(p) != 1 || p[0].Protocol != want {
			b.Fatalf("the protocol %d plugin negotiated %+v", want, p)
		}
	}
	total := benchrotate.Totals(b, ways[:])
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	ratio := func(a, c int) float64 { return float64(total[a]) / float64(total[c]) }
	b.ReportMetric(us(total[wHost]), "host-us")
	b.ReportMetric(us(total[wHostV2]), "hostv2-us")
	b.ReportMetric(us(total[wHostV1]), "hostv1-us")
	b.ReportMetric(us(total[wUnary]), "unary-us")
	b.ReportMetric(us(total[wMCP]), "mcp-us")
	b.ReportMetric(ratio(wHost, wMCP), "host/mcp")
	b.ReportMetric(ratio(wHost, wUnary), "host/unary")
	b.ReportMetric(ratio(wHost, wHostV2), "host/hostv2")
	b.ReportMetric(ratio(wHostV2, wMCP), "hostv2/mcp")
	b.ReportMetric(ratio(wHostV2, wUnary), "hostv2/unary")
	b.ReportMetric(ratio(wHostV1, wMCP), "hostv1/mcp")
	b.ReportMetric(ratio(wHostV1, wUnary), "hostv1/unary")
	b.ReportMetric(us(total[wOff]), "host-nosandbox-us")
	b.ReportMetric(ratio(wOff, wMCP), "host-nosandbox/mcp")
	b.ReportMetric(ratio(wOff, wUnary), "host-nosandbox/unary")
	b.ReportMetric(us(total[wElided]), "elided-us")
	b.ReportMetric(ratio(wElided, wMCP), "elided/mcp")
	b.ReportMetric(ratio(wElided, wUnary), "elided/unary")
	b.ReportMetric(ratio(wElided, wHost), "elided/host")
}

// BenchmarkNoopRawPaired rotates, in each iteration, protocol 3's raw
// Prepare and Call pair on the link, the same pair on protocol 2's
// Session stream, one raw unary RPC and one unprepared Call on the link: the transport alone, paired, so
// that two builds compare by their ratios on a machine whose load moves.
func BenchmarkNoopRawPaired(b *testing.B) {
	cfg, env := riotTLS(b)
	c3, link := rawClient(b, bins.testkit, cfg, env, false, 3)
	defer c3.Kill()
	c2, stream := rawClient(b, bins.testkit, cfg, env, false, 2)
	defer c2.Kill()
	c1, unary := rawClient(b, bins.testkit, cfg, env, false, 1)
	defer c1.Kill()
	pair := func(stub shared.ToolPlugin) func() { return func() { noopPair(b, stub) } }
	ways := []func(){pair(link), pair(stream), func() {
		if _, err := unary.Prepare(context.Background(), noopPrepare); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if err := link.Call(context.Background(), plainUnprepared, func(*toolv1.CallEvent) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}}
	for _, w := range ways {
		w()
	}
	total := benchrotate.Totals(b, ways)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(us(total[0]), "link-pair-us")
	b.ReportMetric(us(total[1]), "session-pair-us")
	b.ReportMetric(us(total[2]), "unary-us")
	b.ReportMetric(float64(total[0])/float64(total[2]), "link-pair/unary")
	b.ReportMetric(float64(total[0])/float64(total[1]), "link-pair/session-pair")
	b.ReportMetric(us(total[3]), "link-unprepared-us")
	b.ReportMetric(float64(total[3])/float64(total[2]), "link-unprepared/unary")
}

// plainUnprepared is the one exchange of a call whose Prepare the host
// skips: testkit's Plain, answered on the Call's stream.
var plainUnprepared = &toolv1.CallRequest{Tool: "Plain", CallId: "toolu_1", Input: []byte(`{"n":0}`), Context: &toolv1.CallContext{Cwd: "/"}, Unprepared: true}
