package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/jsonschema"
)

// buildMCPServe builds the fixture MCP server once per test.
func buildMCPServe(t *testing.T) string {
	t.Helper()
	srv := filepath.Join(t.TempDir(), "mcpserve")
	if b, err := exec.Command("go", "build", "-o", srv, "github.com/riot-tools/riot/internal/testplugins/mcpserve").CombinedOutput(); err != nil {
		t.Fatalf("build mcpserve: %v\n%s", err, b)
	}
	return srv
}

// newTestServer is riot mcp over a host whose one MCP server, srv, is the
// fixture run with args, every tool of it allowed.
func newTestServer(t *testing.T, fixture string, args ...string) *Server {
	t.Helper()
	ws := t.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none.toml"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = filepath.Join(ws, "state")
	// asked is the same server with no rule allowing it: its calls ask.
	cfg.MCPServers = []config.MCPServer{{Name: "srv", Command: fixture, Args: args, Enabled: true}, {Name: "asked", Command: fixture, Args: args, Enabled: true}}
	cfg.Permissions.Allow = append(cfg.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	s, err := New(context.Background(), "test", func(ctx context.Context, o core.Options) (*core.Host, error) {
		o.Config, o.Workspace, o.Logger = cfg, ws, hclog.NewNullLogger()
		return core.New(ctx, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// wireLog records the JSON-RPC lines of one direction of a stdio session.
type wireLog struct {
	mu    sync.Mutex
	buf   []byte
	lines []json.RawMessage
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimSpace(l.buf[:i]); len(line) > 0 {
			l.lines = append(l.lines, json.RawMessage(bytes.Clone(line)))
		}
		l.buf = l.buf[i+1:]
	}
}

func (l *wireLog) all() []json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]json.RawMessage(nil), l.lines...)
}

// specSchemas are the published schemas of the revisions riot offers, in
// testdata/schema/<revision>/schema.json (from modelcontextprotocol/
// modelcontextprotocol, schema/<revision>/schema.json).
type specSchemas struct {
	c    *jsonschema.Compiler
	defs string // "definitions" or "$defs"
	url  string
	seen map[string]*jsonschema.Schema
}

func loadSpecSchema(t *testing.T, revision string) *specSchemas {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "schema", revision, "schema.json"))
	if err != nil {
		t.Fatalf("the schema of %s: %v", revision, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	s := &specSchemas{c: jsonschema.NewCompiler(), defs: "$defs", url: "https://modelcontextprotocol.io/schema/" + revision + ".json", seen: map[string]*jsonschema.Schema{}}
	if _, ok := doc.(map[string]any)["definitions"]; ok {
		s.defs = "definitions"
	}
	if err := s.c.AddResource(s.url, doc); err != nil {
		t.Fatal(err)
	}
	return s
}

// check validates v against the schema's definition def.
func (s *specSchemas) check(def string, v json.RawMessage) error {
	sch, ok := s.seen[def]
	if !ok {
		var err error
		if sch, err = s.c.Compile(s.url + "#/" + s.defs + "/" + def); err != nil {
			return fmt.Errorf("compile %s: %w", def, err)
		}
		s.seen[def] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// resultDefs names each method's result in the schema.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"server/discover":          "DiscoverResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"subscriptions/listen":     "Result",
}

// validateWire checks every message riot sent against the revision's
// schema: each result against its method's, each error against the
// error response's, each notification and request against the server's.
func validateWire(t *testing.T, revision string, sent, received []json.RawMessage) (methods map[string]int) {
	t.Helper()
	s := loadSpecSchema(t, revision)
	asked := map[string]string{}
	for _, m := range sent {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(m, &msg); err == nil && msg.Method != "" && len(msg.ID) > 0 {
			asked[string(msg.ID)] = msg.Method
		}
	}
	errDef := "JSONRPCErrorResponse"
	if revision < "2025-11-25" {
		errDef = "JSONRPCError"
	}
	methods = map[string]int{}
	for _, m := range received {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Errorf("%s: riot sent a line that is not JSON: %s", revision, m)
			continue
		}
		var def string
		var v json.RawMessage
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			def, v = "ServerRequest", m
		case msg.Method != "":
			def, v = "ServerNotification", m
		case msg.Error != nil:
			def, v = errDef, m
			methods["error"]++
		default:
			method := asked[string(msg.ID)]
			def, v = resultDefs[method], msg.Result
			if method == "tools/call" && bytes.Contains(msg.Result, []byte(`"input_required"`)) {
				def = "InputRequiredResult"
			}
			if def == "" {
				t.Errorf("%s: a result to %q, which no test expects: %s", revision, method, m)
				continue
			}
			methods[method]++
		}
		if err := s.check(def, v); err != nil {
			t.Errorf("%s: riot's %s is not valid against the published schema: %v\n%s", revision, def, err, m)
		}
	}
	return methods
}

// Every message riot mcp sends, at each revision it offers, is valid
// against that revision's published schema: the lifecycle, tools/list,
// calls that succeed, fail and spill, the spilled result read back, the
// resource lists, and errors.
func TestResultsValidAgainstPublishedSchema(t *testing.T) {
	t.Setenv("MCPSERVE_SHAPE", "1")
	fixture := buildMCPServe(t)
	for _, revision := range offeredRevisions() {
		t.Run(revision, func(t *testing.T) {
			s := newTestServer(t, fixture)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sent, received := &wireLog{}, &wireLog{}
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- s.ServeStdio(ctx, sr, io.MultiWriter(sw, received)) }()
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if strings.HasPrefix(req.Params.Message, "riot: allow") {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "red"}}, nil
				},
			})
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: teeCloser{cw, sent}}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != revision {
				t.Fatalf("negotiated %s, want %s", got, revision)
			}
			// 2026-07-28 has no ping.
			if revision < "2026-07-28" {
				if err := cs.Ping(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Fatalf("tools/list: %v %v", tools, err)
			}
			// A wrapped tool's output schema and structured content, from
			// 2025-06-18 on, when MCP has them.
			structured := revision >= "2025-06-18"
			for _, tool := range tools.Tools {
				if (tool.OutputSchema != nil) != (structured && strings.HasSuffix(tool.Name, "__shape")) {
					t.Errorf("%s: output schema %v", tool.Name, tool.OutputSchema)
				}
			}
			shape, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__shape", Arguments: map[string]any{"text": "abc"}})
			if err != nil || shape.IsError {
				t.Fatalf("shape: %+v %v", shape, err)
			}
			if got, _ := json.Marshal(shape.StructuredContent); structured != (string(got) == `{"length":3}`) || !structured && shape.StructuredContent != nil {
				t.Errorf("shape's structured content: %s", got)
			}
			if bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__shape", Arguments: map[string]any{"text": "bad"}}); err != nil || !bad.IsError || bad.StructuredContent != nil {
				t.Errorf("shape breaking its schema: %+v %v", bad, err)
			}
			ok, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || ok.IsError {
				t.Fatalf("echo: %+v %v", ok, err)
			}
			failed, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__echo", Arguments: map[string]any{"text": "fail"}})
			if err != nil || !failed.IsError {
				t.Fatalf("echo fail: %+v %v", failed, err)
			}
			invalid, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__echo", Arguments: map[string]any{"nope": 1}})
			if err != nil || !invalid.IsError {
				t.Fatalf("echo with a bad argument: %+v %v", invalid, err)
			}
			// Questions: a wrapped server's, and riot's own permission
			// question, by input requests or by elicitation/create.
			// Before 2025-06-18 there is no elicitation: no one to ask.
			canAsk := revision >= "2025-06-18"
			asked, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}})
			if err != nil || asked.IsError || canAsk != (asked.Content[0].(*mcp.TextContent).Text == "accept red") {
				t.Fatalf("ask: %+v %v", asked, err)
			}
			allowed, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__asked__echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || allowed.IsError == canAsk {
				t.Fatalf("a call allowed once: %+v %v", allowed, err)
			}
			big, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__big", Arguments: map[string]any{"chars": 120_000}})
			if err != nil || big.IsError {
				t.Fatalf("big: %+v %v", big, err)
			}
			var uri string
			for _, c := range big.Content {
				switch c := c.(type) {
				case *mcp.ResourceLink:
					uri = c.URI
				case *mcp.TextContent:
					if _, u, ok := strings.Cut(c.Text, "resources/read, URI "); ok && revision < "2025-06-18" {
						uri = strings.TrimSuffix(u, ".]")
					}
				}
			}
			if uri == "" {
				t.Fatalf("the spilled result names no resource: %+v", big.Content)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListResources(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
				t.Fatal(err)
			}
			// Errors: a resource riot does not have, a tool it does not
			// serve.
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: resultsPrefix + "other/call"}); err == nil {
				t.Fatal("read of another session's result succeeded")
			}
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "NoSuchTool", Arguments: map[string]any{}}); err == nil && !res.IsError {
				t.Fatal("a call of an unknown tool succeeded")
			}
			// riot declares no prompts, and serves none: an unknown method.
			if _, err := cs.ListPrompts(ctx, nil); err == nil || !strings.Contains(err.Error(), "method not found") {
				t.Fatalf("prompts/list: %v, want method not found", err)
			}
			_ = cs.Close()
			cancel()
			<-served
			methods := validateWire(t, revision, sent.all(), received.all())
			for _, m := range []string{"tools/list", "tools/call", "resources/read", "resources/list", "resources/templates/list", "error"} {
				if methods[m] == 0 {
					t.Errorf("no %s checked: %v", m, methods)
				}
			}
		})
	}
}

// offeredRevisions are the revisions riot mcp offers, each of which must
// have its schema in testdata.
func offeredRevisions() []string { return mcp.SupportedProtocolVersions() }

type teeCloser struct {
	w   io.WriteCloser
	log *wireLog
}

func (t teeCloser) Write(p []byte) (int, error) {
	_, _ = t.log.Write(p)
	return t.w.Write(p)
}

func (t teeCloser) Close() error { return t.w.Close() }

// The schemas in testdata are the published ones, each whole.
func TestSpecSchemasPresent(t *testing.T) {
	for _, revision := range offeredRevisions() {
		data, err := os.ReadFile(filepath.Join("testdata", "schema", revision, "schema.json"))
		if err != nil || !strings.Contains(string(data), `"CallToolResult"`) {
			t.Errorf("testdata/schema/%s/schema.json: %v", revision, err)
		}
	}
}
