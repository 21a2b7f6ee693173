package plugin_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

// bare implements only the required members: every optional property
// must keep its fail-closed default.
type bareIn struct {
	Path  string `json:"path" jsonschema_description:"The path, relative to the working directory."`
	Count int    `json:"count,omitempty" jsonschema_description:"How many, 1 by default."`
	Mode  string `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
}

type bare struct{}

func (bare) Name() string              { return "Bare" }
func (bare) Prompt() string            { return "A bare tool." }
func (bare) Describe(in bareIn) string { return "Bare " + in.Path }
func (bare) Call(_ context.Context, in bareIn, env *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("path=" + env.Abs(in.Path)))
}

func TestDefaultsFailClosed(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](bare{})})
	spec := c.Manifest()[0]
	if spec.CascadesOnFailure {
		t.Error("cascades by default")
	}
	if b := spec.ResultBudget; b.Unlimited || b.LimitChars != plugin.DefaultBudgetChars {
		t.Errorf("budget = %v", b)
	}
	if a := spec.Annotations; a.Title != "" || a.ReadOnly || a.NonDestructive || a.Idempotent || a.Local {
		t.Errorf("annotations of a tool that declares none = %v, want every conservative value", a)
	}
	p := c.Prepare("Bare", `{"path":"x"}`)
	if p.ReadOnly || p.ConcurrencySafe || p.ClassifierInput != "" || p.Permission != plugin.Passthrough || len(p.Subjects) != 0 {
		t.Errorf("prepared = %+v", p)
	}
	if p.Describe != "Bare x" {
		t.Errorf("describe = %q", p.Describe)
	}
}

// The schema is reflected from the input type: closed, required unless
// omitempty, descriptions and enums from tags.
func TestReflectedSchema(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](bare{})})
	var schema struct {
		Type                 string   `json:"type"`
		AdditionalProperties *bool    `json:"additionalProperties"`
		Required             []string `json:"required"`
		Properties           map[string]struct {
			Type        string   `json:"type"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
		} `json:"properties"`
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(c.Manifest()[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Fatalf("schema not a closed object: %+v", schema)
	}
	if strings.Join(schema.Required, ",") != "path" {
		t.Errorf("required = %v", schema.Required)
	}
	if d := schema.Properties["path"].Description; d != "The path, relative to the working directory." {
		t.Errorf("description = %q", d)
	}
	if e := schema.Properties["mode"].Enum; strings.Join(e, ",") != "fast,slow" {
		t.Errorf("enum = %v", e)
	}
	if schema.Schema != "" || schema.ID != "" {
		t.Errorf("$schema/$id leak into tools[]: %q %q", schema.Schema, schema.ID)
	}
}

func TestNewPanicsOnANonStructInput(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "must be a struct") {
			t.Fatalf("recovered %v", r)
		}
	}()
	plugin.New[string](stringTool{})
}

type stringTool struct{}

func (stringTool) Name() string                                             { return "S" }
func (stringTool) Prompt() string                                           { return "" }
func (stringTool) Describe(string) string                                   { return "" }
func (stringTool) Call(context.Context, string, *plugin.Env) plugin.Outcome { return plugin.Ok() }

// The SDK decodes strictly, whatever the host checked, with hints.
func TestStrictDecoding(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](bare{})})
	cases := []struct{ input, want string }{
		{`{"path":"x","colour":1}`, "`colour` is not a field of this tool. It takes: `count`, `mode`, `path`."},
		{`{"path":5}`, "`path` must be a string, not number."},
		{`[1]`, "The input must be a JSON object of this tool's fields."},
		{`{`, "The input is not valid JSON."},
	}
	for _, tc := range cases {
		if p := c.Prepare("Bare", tc.input); !strings.HasPrefix(p.Rejected, tc.want) {
			t.Errorf("%s: rejected %q, want %q", tc.input, p.Rejected, tc.want)
		}
		if r := c.Call("Bare", tc.input); r.Ok || !strings.HasPrefix(r.Message, tc.want) {
			t.Errorf("%s: call %+v", tc.input, r)
		}
	}
}

// full implements every optional property.
type fullIn struct {
	N     int    `json:"n"`
	Panic bool   `json:"panic,omitempty"`
	Write string `json:"write,omitempty"`
}

type full struct{}

func (full) Name() string                     { return "Full" }
func (full) Prompt() string                   { return "A full tool." }
func (full) Describe(in fullIn) string        { return "Full" }
func (full) IsReadOnly(in fullIn) bool        { return in.N > 0 }
func (full) IsConcurrencySafe(in fullIn) bool { return in.N > 1 }
func (full) CascadesOnFailure() bool          { return true }
func (full) ClassifierInput(fullIn) string    { return "do the full thing" }
func (full) ResultBudget() plugin.Budget      { return plugin.Unlimited() }
func (full) CheckPermissions(_ context.Context, in fullIn, _ *plugin.Env) plugin.Permission {
	if in.N < 0 {
		return plugin.DenyPermission("negative")
	}
	return plugin.PassthroughPermission()
}
func (full) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Full tool", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
}
func (full) ValidateInput(_ context.Context, in fullIn, _ *plugin.Env) plugin.Validation {
	if in.N > 100 {
		return plugin.Rejected("`n` must be at most 100; pass a smaller n.")
	}
	return plugin.Accepted()
}
func (full) PermissionSubjects(in fullIn, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.Command("full"), plugin.ReadPath(env.Abs("r")), plugin.WritePath(env.Abs("w")), plugin.UnknownPath()}
}
func (f full) Call(_ context.Context, in fullIn, env *plugin.Env) plugin.Outcome {
	if in.Panic {
		panic("boom")
	}
	if in.Write != "" {
		if _, err := io.WriteString(env.Output(), in.Write); err != nil {
			return plugin.Failed("The host went away.")
		}
	}
	env.Progress("halfway")
	return plugin.Ok(plugin.Text("done"), plugin.Image("image/png", []byte{1, 2, 3})).
		WithNote("(a note)").WithUI(map[string]int{"n": in.N}).WithState("k", "v")
}

func TestOptionalProperties(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[fullIn](full{})})
	spec := c.Manifest()[0]
	if !spec.CascadesOnFailure || !spec.ResultBudget.Unlimited {
		t.Errorf("spec = %v", spec)
	}
	if a := spec.Annotations; a.Title != "Full tool" || !a.ReadOnly || !a.NonDestructive || !a.Idempotent || !a.Local {
		t.Errorf("declared annotations = %v", a)
	}
	p := c.Prepare("Full", `{"n":2}`)
	if !p.ReadOnly || !p.ConcurrencySafe || p.ClassifierInput != "do the full thing" || len(p.Subjects) != 4 {
		t.Fatalf("prepared = %+v", p)
	}
	want := []plugin.Subject{
		{Kind: plugin.CommandSubject, Value: "full", Access: plugin.Write},
		{Kind: plugin.PathSubject, Value: c.Cwd + "/r", Access: plugin.Read},
		{Kind: plugin.PathSubject, Value: c.Cwd + "/w", Access: plugin.Write},
		{Kind: plugin.PathSubject, Value: "", Access: plugin.Read},
	}
	for i, s := range p.Subjects {
		if s != want[i] {
			t.Errorf("subject %d = %+v, want %+v", i, s, want[i])
		}
	}
	if p := c.Prepare("Full", `{"n":1}`); !p.ReadOnly || p.ConcurrencySafe {
		t.Errorf("per-input properties: %+v", p)
	}
	if p := c.Prepare("Full", `{"n":-1}`); p.Permission != plugin.Deny || p.Reason != "negative" {
		t.Errorf("permission: %+v", p)
	}
	if p := c.Prepare("Full", `{"n":101}`); p.Rejected != "`n` must be at most 100; pass a smaller n." {
		t.Errorf("rejected: %q", p.Rejected)
	}
	// Call checks again what Prepare checked.
	if r := c.Call("Full", `{"n":101}`); r.Ok || r.Message != "`n` must be at most 100; pass a smaller n." {
		t.Errorf("call of a rejected input: %+v", r)
	}
}

func TestOutcome(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[fullIn](full{})})
	r := c.Call("Full", `{"n":1,"write":"streamed "}`)
	if !r.Ok || r.Text != "streamed done" || r.Message != "(a note)" {
		t.Fatalf("result = %+v", r)
	}
	if len(r.Blocks) != 3 || !r.Blocks[2].Image || r.Blocks[2].MediaType != "image/png" || string(r.Blocks[2].Data) != "\x01\x02\x03" {
		t.Fatalf("blocks = %+v", r.Blocks)
	}
	if string(r.UI) != `{"n":1}` || r.State["k"] != "v" || c.State["k"] != "v" {
		t.Fatalf("ui %s, state %v", r.UI, r.State)
	}
	if len(r.Progress) != 1 || r.Progress[0] != "halfway" {
		t.Fatalf("progress = %v", r.Progress)
	}
}

// A panic in Call becomes Failed; the plugin keeps serving.
func TestPanicBecomesFailed(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[fullIn](full{})})
	r := c.Call("Full", `{"n":1,"panic":true}`)
	if r.Ok || !strings.HasPrefix(r.Message, "The Full tool failed with an internal error while running this call") || strings.Contains(r.Message, "boom") {
		t.Fatalf("result = %+v", r)
	}
	if r := c.Call("Full", `{"n":1}`); !r.Ok {
		t.Fatalf("after a panic: %+v", r)
	}
}

// Content of any size crosses the wire in chunks of at most 1 MiB.
func TestLargeContentIsChunked(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[fullIn](full{})})
	big := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	r := c.Call("Full", map[string]any{"n": 1, "write": big})
	if !r.Ok || r.Text != big+"done" {
		t.Fatalf("got %d bytes", len(r.Text))
	}
	if r.Chunks < 4 {
		t.Fatalf("3 MiB came in %d chunks", r.Chunks)
	}
	if shared.ChunkSize != 1<<20 {
		t.Fatal("chunk size changed")
	}
}

func TestServerRejectsBadSets(t *testing.T) {
	if _, err := plugin.NewServer(plugin.Runtime{}); err == nil {
		t.Error("a server with no tools")
	}
	if _, err := plugin.NewServer(plugin.Runtime{}, plugin.New[bareIn](bare{}), plugin.New[bareIn](bare{})); err == nil || !strings.Contains(err.Error(), `two tools are named "Bare"`) {
		t.Errorf("duplicate names: %v", err)
	}
}

func TestUnknownToolInServer(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](bare{})})
	if p := c.Prepare("Nope", `{}`); p.Rejected != `This plugin serves no tool named "Nope"; it serves [Bare].` {
		t.Errorf("rejected = %q", p.Rejected)
	}
}

// FixedClock's Sleep advances time without sleeping.
func TestFixedClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := plugintest.NewFixedClock(start)
	began := time.Now()
	if err := clock.Sleep(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if clock.Now() != start.Add(time.Hour) || time.Since(began) > time.Second {
		t.Fatalf("now = %v", clock.Now())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Sleep(ctx, time.Hour); err == nil || clock.Now() != start.Add(time.Hour) {
		t.Fatal("a cancelled sleep advanced the clock")
	}
}

func TestEnvPaths(t *testing.T) {
	env := &plugin.Env{Cwd: "/work/app"}
	for in, want := range map[string]string{"src/a.go": "/work/app/src/a.go", "/etc/x": "/etc/x", "../b": "/work/b", "./c/../d": "/work/app/d"} {
		if got := env.Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"/work/app/src/a.go": "src/a.go", "/work/b": "/work/b", "/work/app": "."} {
		if got := env.Rel(in); got != want {
			t.Errorf("Rel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChildEnvDropsProtocolVariables(t *testing.T) {
	got := plugin.ChildEnv([]string{"PATH=/bin", shared.TLSEnv + "=secret", shared.Handshake.MagicCookieKey + "=x", "PLUGIN_MIN_PORT=1", "HOME=/h"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/h" {
		t.Fatalf("child env = %v", got)
	}
}

// utf8Tool streams a character cut across a flush, and bytes that are not
// UTF-8, and returns a text block that is not UTF-8 either.
type utf8In struct{}
type utf8Tool struct{}

func (utf8Tool) Name() string                { return "Bytes" }
func (utf8Tool) Prompt() string              { return "Writes bytes." }
func (utf8Tool) Describe(utf8In) string      { return "Bytes" }
func (utf8Tool) IsReadOnly(utf8In) bool      { return true }
func (utf8Tool) ResultBudget() plugin.Budget { return plugin.Unlimited() }
func (utf8Tool) Call(_ context.Context, _ utf8In, env *plugin.Env) plugin.Outcome {
	out := env.Output()
	// 64 KiB fills the buffer, which is flushed at once, ending inside "é".
	_, _ = out.Write([]byte(strings.Repeat("a", 64<<10-1) + "\xc3"))
	_, _ = out.Write([]byte("\xa9 \xff\xfe end\xe2\x82"))
	return plugin.Ok(plugin.Text("block \xff"))
}

// Text reaches the host as UTF-8 whatever a tool writes: a character cut
// between writes is kept whole, bytes that are not UTF-8 become U+FFFD.
func TestTextIsValidUTF8OnTheWire(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[utf8In](utf8Tool{})})
	res := c.Call("Bytes", map[string]any{})
	want := strings.Repeat("a", 64<<10-1) + "é \uFFFD end\uFFFDblock \uFFFD"
	if res.Text != want {
		t.Fatalf("text = …%q, want …%q", res.Text[64<<10-8:], want[64<<10-8:])
	}
	for i, b := range res.Blocks {
		if !utf8.Valid(b.Data) {
			t.Fatalf("block %d is not UTF-8: %q", i, b.Data)
		}
	}
}
