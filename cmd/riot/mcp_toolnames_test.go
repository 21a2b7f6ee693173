package main_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// A server's tools whose names the model APIs reject are left out of
// tools[] for both APIs, and `riot tools` (on stderr) and `riot plugins`
// (as the server's problem) name the server and each such tool.
func TestMCPToolNamesTheAPIsReject(t *testing.T) {
	e := wrapping(t, "badnames")
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	const dot = `The srv MCP server's tool "a.b" is left out, since the model APIs (Anthropic's and OpenAI's) would reject it: its name has '.', and tool names hold only letters, digits, _ and -. Ask the server's author to rename it, or add it to [mcp_servers.srv] disabled_tools.`
	for _, format := range []string{"anthropic", "openai"} {
		r := e.riot("", "tools", "--json", "--format", format)
		r.want(t, 0, dot, `tool "" is left out`, `tool "naïve" is left out`)
		var tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tool := range tools {
			name := tool.Name + tool.Function.Name
			if !valid.MatchString(name) {
				t.Errorf("%s tools[] has %q", format, name)
			}
			if strings.HasPrefix(name, "mcp__srv__") {
				n++
			}
		}
		if n != 6 {
			t.Errorf("%s tools[] has %d of the server's tools, want its 6 with valid names", format, n)
		}
	}
	r := e.riot("", "plugins")
	r.want(t, 0, "problem:  The srv MCP server's tool", dot, `is 120 characters, over the 64 allowed`, `tool "/../" is left out`)
	if !strings.Contains(r.stdout, "mcp__srv__ok-name_2") {
		t.Fatalf("riot plugins lacks the valid tools:\n%s", r.stdout)
	}
}
