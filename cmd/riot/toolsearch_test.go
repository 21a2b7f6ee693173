package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// deferring wraps the test server, its tools allowed, as srv with
// defer_loading = true, plus extra config.
func deferring(t *testing.T, extra string) *env {
	t.Helper()
	srv, err := mcpserveBin()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("[permissions]\nallow = [\"mcp__srv\"]\n\n[mcp_servers.srv]\ncommand = %q\nargs = [\"ok\"]\ndefer_loading = true\n%s", srv, extra))
	return e
}

// The bytes of tools[] before the deferred tools are the same with and
// without a deferred server, whether it serves tools or fails to start:
// the prompt cache's prefix does not depend on it. Anthropic's tools[]
// ends with the server's tools, each "defer_loading": true; OpenAI's
// leaves them out.
func TestToolsPrefixWithDeferredServer(t *testing.T) {
	bare := newEnv(t)
	base := bare.riot("", "tools", "--json")
	base.want(t, 0, `"name": "ToolSearch"`)
	baseOpenAI := bare.riot("", "tools", "--json", "--format", "openai")
	prefix := strings.TrimSuffix(base.stdout, "\n]\n")

	e := deferring(t, "")
	with := e.riot("", "tools", "--json")
	with.want(t, 0)
	if !strings.HasPrefix(with.stdout, prefix+",\n  {\n    \"name\": \"mcp__srv__") {
		t.Fatalf("tools[] with a deferred server does not begin with tools[] without it:\n%s", with.stdout)
	}
	var tools []struct {
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
	}
	if err := json.Unmarshal([]byte(with.stdout), &tools); err != nil {
		t.Fatal(err)
	}
	deferred := 0
	for _, tool := range tools {
		if tool.DeferLoading != strings.HasPrefix(tool.Name, "mcp__srv__") {
			t.Errorf("%s: defer_loading %v", tool.Name, tool.DeferLoading)
		}
		if tool.DeferLoading {
			deferred++
		}
	}
	if deferred != 4 {
		t.Fatalf("%d deferred tools, want the server's 4", deferred)
	}
	if r := e.riot("", "tools", "--json", "--format", "openai"); r.stdout != baseOpenAI.stdout {
		t.Fatalf("OpenAI's tools[] changed with a deferred server:\n%s\nwant\n%s", r.stdout, baseOpenAI.stdout)
	}

	// A second deferred server that never starts changes nothing either.
	srv, _ := mcpserveBin()
	e.userConfig(fmt.Sprintf("[permissions]\nallow = [\"mcp__srv\"]\n\n[mcp_servers.srv]\ncommand = %q\nargs = [\"ok\"]\ndefer_loading = true\n\n[mcp_servers.down]\ncommand = %q\nargs = [\"exitinit\"]\n", srv, srv))
	if r := e.riot("", "tools", "--json"); r.stdout != with.stdout {
		t.Fatalf("tools[] changed with a server that did not start:\n%s", r.stdout)
	}
}

// ToolSearch finds deferred tools through riot run, by keywords and by
// regex, in each API's form, and the tools found are then called.
func TestToolSearchThroughRun(t *testing.T) {
	e := deferring(t, "")
	// Anthropic: tool_reference blocks.
	r := e.riot(`[{"type":"tool_use","id":"s1","name":"ToolSearch","input":{"query":"echo text"}},
	  {"type":"tool_use","id":"s2","name":"ToolSearch","input":{"query":"^mcp__srv__(echo|big)$","mode":"regex"}}]`, "run")
	r.want(t, 0)
	var results []struct {
		ID      string          `json:"tool_use_id"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatal(err)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		return b.String()
	}
	if got := compact(results[0].Content); results[0].IsError || !strings.HasPrefix(got, `[{"type":"tool_reference","tool_name":"mcp__srv__echo"}`) {
		t.Fatalf("bm25: %s", r.stdout)
	}
	if got := compact(results[1].Content); got != `[{"type":"tool_reference","tool_name":"mcp__srv__big"},{"type":"tool_reference","tool_name":"mcp__srv__echo"}]` {
		t.Fatalf("regex: %s", r.stdout)
	}
	e.riot(`[{"type":"tool_use","id":"c1","name":"mcp__srv__echo","input":{"text":"hi"}}]`, "run").want(t, 0, `"content": "echo: hi"`, `"is_error": false`)

	// OpenAI: the found tools' function definitions, as text.
	r = e.riot(`[{"id":"s1","type":"function","function":{"name":"ToolSearch","arguments":"{\"query\":\"mcp__srv__ec\",\"mode\":\"regex\"}"}}]`, "run", "--format", "openai")
	r.want(t, 0, `"status": "ok"`)
	var oa []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &oa); err != nil {
		t.Fatal(err)
	}
	var defs []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(oa[0].Content), &defs); err != nil || len(defs) != 1 || defs[0].Type != "function" || defs[0].Function.Name != "mcp__srv__echo" || !strings.Contains(string(defs[0].Function.Parameters), `"text"`) {
		t.Fatalf("definitions %v: %s", err, oa[0].Content)
	}
	e.riot(`[{"id":"c1","type":"function","function":{"name":"mcp__srv__echo","arguments":"{\"text\":\"hi\"}"}}]`, "run", "--format", "openai").want(t, 0, `"content": "echo: hi"`)

	// Bad input is a correction, in the result.
	e.riot(`[{"type":"tool_use","id":"b1","name":"ToolSearch","input":{"query":"(?<=x)y","mode":"regex"}}]`, "run").want(t, 0, `"is_error": true`, "is not a regular expression riot can use", "Fix the pattern")
}

// riot mcp lists every tool and no ToolSearch: MCP clients defer tools
// themselves.
func TestMCPServesNoToolSearch(t *testing.T) {
	e := deferring(t, "")
	s := e.connect(t, nil)
	tools, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(tools.Tools)
	if strings.Contains(got, "ToolSearch") || !strings.Contains(got, "mcp__srv__echo") {
		t.Fatalf("tools/list = %s", got)
	}
}

// Through a session host (riot serve, then riot run and riot call with
// --session), ToolSearch answers as a one-shot riot run does: the same
// tool_reference blocks and OpenAI definitions, rendered by the host, and
// the UI payload they are made from crosses the host's wire to a client
// that renders itself (riot call), and the tools found are called through
// the host.
func TestToolSearchThroughSessionHost(t *testing.T) {
	e := deferring(t, leakGuard)
	turns := []struct{ turn, format string }{
		{`[{"type":"tool_use","id":"s1","name":"ToolSearch","input":{"query":"echo text"}},
		  {"type":"tool_use","id":"s2","name":"ToolSearch","input":{"query":"^mcp__srv__(echo|big)$","mode":"regex"}},
		  {"type":"tool_use","id":"s3","name":"ToolSearch","input":{"query":"nothing-like-this"}}]`, "anthropic"},
		{`[{"id":"s1","type":"function","function":{"name":"ToolSearch","arguments":"{\"query\":\"mcp__srv__ec\",\"mode\":\"regex\"}"}}]`, "openai"},
		{`[{"type":"tool_use","id":"c1","name":"mcp__srv__echo","input":{"text":"hi"}}]`, "anthropic"},
	}
	search := `{"query":"^mcp__srv__big$","mode":"regex"}`
	oneShot := make([]string, len(turns))
	for i, tc := range turns {
		r := e.riot(tc.turn, "run", "--format", tc.format)
		r.want(t, 0)
		oneShot[i] = r.stdout
	}
	if !strings.Contains(oneShot[0], `"type": "tool_reference"`) || !strings.Contains(oneShot[2], "echo: hi") {
		t.Fatalf("one-shot riot run:\n%s\n%s", oneShot[0], oneShot[2])
	}
	call := e.riot("", "call", "--json", "ToolSearch", search)
	call.want(t, 0, `"ui": {`, `"tool_references": [`, `"mcp__srv__big"`)

	startHost(t, e, "S")
	for i, tc := range turns {
		r := e.riot(tc.turn, "run", "--format", tc.format, "--session", "S")
		r.want(t, 0)
		if r.stdout != oneShot[i] {
			t.Errorf("riot run --session, %s:\n%s\nwant as one-shot:\n%s", tc.format, r.stdout, oneShot[i])
		}
	}
	if r := e.riot("", "call", "--json", "--session", "S", "ToolSearch", search); r.stdout != call.stdout {
		t.Errorf("riot call --session:\n%s\nwant as one-shot:\n%s", r.stdout, call.stdout)
	}
}

// In a session host, a deferred server's tool added by list_changed
// before any search is found by the first search, and then called.
func TestToolSearchFindsAddedToolInSessionHost(t *testing.T) {
	e := deferring(t, leakGuard)
	startHost(t, e, "S")
	e.riot(`[{"type":"tool_use","id":"g","name":"mcp__srv__grow","input":{}}]`, "run", "--session", "S").want(t, 0, "grown")
	r := e.riot(`[{"type":"tool_use","id":"s","name":"ToolSearch","input":{"query":"aaa-new","mode":"regex"}}]`, "run", "--session", "S")
	r.want(t, 0, `"tool_name": "mcp__srv__aaa-new"`)
	e.riot(`[{"type":"tool_use","id":"n","name":"mcp__srv__aaa-new","input":{}}]`, "run", "--session", "S").want(t, 0, `"content": "new"`)
}
