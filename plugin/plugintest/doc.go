// Package plugintest serves riot tools over real go-plugin gRPC inside a
// test process, so a tool author tests a tool the way the host calls it:
// Manifest, then Prepare, then a streamed Call (or, for a tool whose
// manifest declares the default Prepare, the Call alone: CallUnprepared).
// Client.OnEvent sees each event of a Call as it arrives, for a test that a
// tool streams its output while it runs. It also provides FixedClock,
// whose Sleep advances time without sleeping, and null process and network
// access for tools that must not touch either.
//
//	c := plugintest.Serve(t, []plugin.Handler{hello.Tool()})
//	res := c.Call("Hello", map[string]any{"name": "riot"})
//	if !res.Ok || res.Text != "Hello, riot!" { t.Fatal(res) }
package plugintest
