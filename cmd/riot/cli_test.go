package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// riot version and riot --version print one line: the version, the commit
// (or why it is unknown: this test binary is built without VCS stamps
// where GOFLAGS says -buildvcs=false) and the protocol.
func TestVersion(t *testing.T) {
	e := newEnv(t)
	r := e.riot("", "version")
	r.want(t, 0, "riot 0.1.0 (commit ", "plugin protocol 1")
	// `riot version` and `riot --version` are answered before the command
	// tree is built; any other spelling goes through it, and each prints
	// the same line and nothing else.
	for _, args := range [][]string{{"--version"}, {"-q", "version"}, {"version", "--quiet"}, {"-q", "--version"}} {
		got := e.riot("", args...)
		got.want(t, 0)
		if got.stdout != r.stdout || got.stderr != "" || r.stderr != "" {
			t.Errorf("riot %v printed %q (stderr %q), riot version %q (stderr %q)", args, got.stdout, got.stderr, r.stdout, r.stderr)
		}
	}
	e.riot("", "version", "extra").want(t, 2)
}

// tools --json is the Anthropic tools[] array: builtins first, in order,
// each schema closed, each description the tool's full prompt.
func TestToolsJSON(t *testing.T) {
	e := newEnv(t)
	r := e.riot("", "tools", "--json")
	r.want(t, 0)
	var tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		var schema struct {
			AdditionalProperties *bool `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema not closed: %s", tool.Name, tool.InputSchema)
		}
		if !strings.Contains(tool.Description, "NEVER") {
			t.Errorf("%s: prompt has no NEVER list", tool.Name)
		}
	}
	if !strings.HasPrefix(strings.Join(names, ","), "Bash,BashOutput,KillShell") || !strings.Contains(strings.Join(names, ","), "Read") {
		t.Fatalf("tools in order: %v", names)
	}
	// The OpenAI shape.
	r = e.riot("", "tools", "--json", "--format", "openai")
	r.want(t, 0, `"type": "function"`, `"parameters": {`)
}

func TestCallExitCodes(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\nbeta\n")
	e.riot("", "call", "Read", `{"file_path":"a.txt"}`).want(t, 0, "     1\talpha\n     2\tbeta")
	e.riot("", "call", "Read", `{"file_path":"missing.txt"}`).want(t, 1)
	e.riot("", "call", "Read", `{"path":"a.txt"}`).want(t, 1, "add the required field `file_path`")
	e.riot("", "call", "Nope").want(t, 2, `there is no enabled tool named "Nope"`)
	e.riot("", "call", "Bash", `{"command":"touch x"}`).want(t, 1, "Bash(touch:*)")
	e.riot("", "call", "--bogus").want(t, 2, "riot call has no flag --bogus")
	e.riot("", "call").want(t, 2)
	e.riot(`{"file_path":"a.txt"}`, "call", "Read", "-").want(t, 0, "alpha")
}

func TestCallJSON(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	r := e.riot("", "call", "Read", `{"file_path":"a.txt"}`, "--json")
	r.want(t, 0)
	var out struct {
		Status   string          `json:"status"`
		Content  string          `json:"content"`
		UI       json.RawMessage `json:"ui"`
		Describe string          `json:"describe"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "ok" || !strings.Contains(out.Content, "alpha") || out.Describe != "Read a.txt" || len(out.UI) == 0 {
		t.Fatalf("call --json = %+v", out)
	}
}

func TestConfigErrorExits2WithFileAndLine(t *testing.T) {
	e := newEnv(t)
	e.trust() // an untrusted workspace's allow rules are not read at all
	p := e.write(".riot/config.toml", "[permissions]\nmood = \"plan\"\n")
	e.riot("", "tools").want(t, 2, p+":2: unknown key \"mood\" in [permissions]; did you mean \"mode\"?")
	e.write(".riot/config.toml", "[permissions]\nallow = [\"Bash(ls\"]\n")
	e.riot("", "tools").want(t, 2, "Bash(ls")
}

func TestRunKeepsOrderAndShapes(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	turn := `{"role":"assistant","content":[
	  {"type":"text","text":"Let me look."},
	  {"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.txt"}},
	  {"type":"tool_use","id":"t2","name":"Nope","input":{}},
	  {"type":"tool_use","id":"t3","name":"Bash","input":{"command":"echo hi"}}
	]}`
	r := e.riot(turn, "run", "-")
	r.want(t, 0)
	var results []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatal(err, r.stdout)
	}
	if len(results) != 3 || results[0].ToolUseID != "t1" || results[1].ToolUseID != "t2" || results[2].ToolUseID != "t3" {
		t.Fatalf("results: %+v", results)
	}
	if results[0].IsError || !results[1].IsError || results[2].IsError || results[2].Content != "hi\n" || results[0].Type != "tool_result" {
		t.Fatalf("results: %+v", results)
	}
	// OpenAI in and out.
	r = e.riot(`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}}]}`, "run", "--format", "openai")
	r.want(t, 0, `"role": "tool"`, `"tool_call_id": "c1"`, "alpha")
}

func TestRunMalformedExits2(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ in, want string }{
		{``, "the turn is empty"},
		{`{`, "the turn is not valid JSON"},
		{`[{"type":"tool_use","name":"Read"}]`, "without an id or a name"},
		{`[{"type":"tool_use","id":"a","name":"Read"},{"type":"tool_use","id":"a","name":"Read"}]`, `two tool calls share the id "a"`},
		{`{"role":"assistant"}`, "no content array"},
	} {
		e.riot(tc.in, "run").want(t, 2, "malformed turn: ", tc.want)
	}
	e.riot("", "run", filepath.Join(e.ws, "nope.json")).want(t, 2, "cannot read")
}

func TestPluginsListsDiscoveredAndEnabled(t *testing.T) {
	e := newEnv(t)
	e.userConfig("plugin_dirs = [\"" + filepath.Dir(bin.testkit) + "\"]\n")
	r := e.riot("", "plugins")
	r.want(t, 0, "read (builtin, enabled)", "testkit (plugin, discovered, not enabled)", "[plugins.testkit]\n              enabled = true")
	e.enableTestkit()
	r = e.riot("", "plugins")
	r.want(t, 0, "testkit (plugin, enabled)", "tools:    Noop, Echo, Crash")
	e.riot("", "call", "Noop").want(t, 0, "ok")
}

func TestConfigShowsSources(t *testing.T) {
	e := newEnv(t)
	e.trust()
	p := e.write(".riot/config.toml", "[permissions]\nmode = \"plan\"\n")
	r := e.riot("", "config", "--allow", "Bash(ls:*)")
	r.want(t, 0, `permissions.mode = "plan"`, p+":2", `permissions.allow += "Bash(ls:*)"`, "flag --allow")
}
