package mcpsource

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/riot-tools/riot/config"
)

func TestBadToolName(t *testing.T) {
	for _, c := range []struct {
		server, tool, want string
	}{
		{"srv", "ok", ""},
		{"srv", "a-b_C9", ""},
		{"srv", strings.Repeat("z", 54), ""},
		{strings.Repeat("s", config.MaxMCPServerName), "t", ""},
		{"srv", strings.Repeat("z", 55), "riot's name for it, mcp__srv__" + strings.Repeat("z", 55) + ", is 65 characters, over the 64 allowed."},
		{"srv", "", `tool "" is left out, since the model APIs (Anthropic's and OpenAI's) would reject it: it has no name.`},
		{"srv", "a.b", `its name has '.', and tool names hold only letters, digits, _ and -.`},
		{"srv", "a b\tc", `its name has ' ', '\t', and`},
		{"srv", "/../", `its name has '/', '.', and`},
		{"srv", "é", `its name has 'é', and`},
		{"srv", "a\x00", `its name has '\x00', and`},
		{"srv", strings.Repeat("x", 110), `tool "` + strings.Repeat("x", 80) + `..." is left out`},
	} {
		got := badToolName(c.server, c.tool)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s/%q: %q, want %q", c.server, c.tool, got, c.want)
		}
		if got != "" && !strings.HasPrefix(got, "The "+c.server+" MCP server's tool ") || got != "" && !strings.HasSuffix(got, "Ask the server's author to rename it, or add it to [mcp_servers."+c.server+"] disabled_tools.") {
			t.Errorf("%s/%q: %q does not name the server and the remedy", c.server, c.tool, got)
		}
	}
}

// riot's refusal is recognised by its error answer or by what it said on
// stderr, and nothing else is taken for it.
func TestIsSelf(t *testing.T) {
	refusal := Refusal("1")
	if !strings.Contains(refusal, selfMark) {
		t.Fatal("the refusal lacks the mark the parent looks for")
	}
	wire := fmt.Errorf("calling initialize: %w", &jsonrpc.Error{Code: SelfCode, Message: "riot: " + refusal})
	said := &conn{stderr: &tail{}}
	_, _ = said.stderr.Write([]byte("riot: mcp: " + refusal + "\n"))
	quiet := &conn{stderr: &tail{}}
	for _, c := range []struct {
		name string
		err  error
		c    *conn
		want bool
	}{
		{"its error answer", wire, quiet, true},
		{"its stderr", errors.New("EOF"), said, true},
		{"another code", fmt.Errorf("x: %w", &jsonrpc.Error{Code: SelfCode + 1, Message: refusal}), quiet, false},
		{"the code without riot's words", &jsonrpc.Error{Code: SelfCode, Message: "busy"}, quiet, false},
		{"another failure", errors.New("EOF"), quiet, false},
		{"no process", errors.New("EOF"), nil, false},
	} {
		if got := isSelf(c.err, c.c); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if by, ok := StartedByRiot(func(k string) string { return map[string]string{SelfEnv: "77"}[k] }); !ok || by != "77" {
		t.Fatalf("StartedByRiot with the marker: %q %v", by, ok)
	}
	if _, ok := StartedByRiot(func(string) string { return "" }); ok {
		t.Fatal("StartedByRiot without the marker")
	}
}

func TestWhereAServerIsListed(t *testing.T) {
	for _, c := range []struct {
		src  config.Source
		want string
	}{
		{config.Source{Layer: "workspace", File: "/w/.mcp.json"}, "/w/.mcp.json"},
		{config.Source{Layer: "user", File: "/h/config.toml", Line: 3}, "[mcp_servers.s] in /h/config.toml"},
		{config.Source{Layer: "flag"}, "[mcp_servers.s] in the riot config"},
	} {
		if got := where(config.MCPServer{Name: "s", Source: c.src}); got != c.want {
			t.Errorf("%+v: %q, want %q", c.src, got, c.want)
		}
	}
}
