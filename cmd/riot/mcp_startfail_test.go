package main_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that never started is named with its cause wherever its tools
// are missing: `riot tools` says so on stderr, and `riot call` of one of
// its tools says the server did not start and why, not that no such tool
// exists.
func TestMCPServerThatNeverStartedIsNamed(t *testing.T) {
	e, url := neverStarting(t)
	slow := "the MCP server slow did not start, so its tools are missing: The slow MCP server did not finish starting within 300ms"
	web := "the MCP server web did not start, so its tools are missing: The web MCP server at " + url + " refused riot (HTTP 401 Unauthorized)"
	r := e.riot("", "tools")
	r.want(t, 0)
	for _, want := range []string{slow, web} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("riot tools' stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "mcp__") {
		t.Fatalf("riot tools lists a server's tools:\n%s", r.stdout)
	}
	e.riot("", "call", "mcp__slow__echo", "{}").want(t, 2, "riot: the MCP server slow did not start, so mcp__slow__echo cannot be called: The slow MCP server did not finish starting within 300ms", "[mcp_servers.slow]")
	e.riot("", "call", "mcp__web__echo", "{}").want(t, 2, "riot: the MCP server web did not start, so mcp__web__echo cannot be called: ", "HTTP 401 Unauthorized")
	// A tool of no server is still an unknown tool.
	e.riot("", "call", "mcp__none__echo", "{}").want(t, 2, `there is no enabled tool named "mcp__none__echo"`)
}

// The same holds where a turn runs in a session host (riot serve) or the
// call comes through riot mcp: riot call --session and riot run, with and
// without --session, and an MCP client's tools/call name the server and
// the cause, where the host used to blame "the mcp__slow plugin" for
// having stopped.
func TestMCPServerThatNeverStartedIsNamedEverywhere(t *testing.T) {
	e, url := neverStarting(t)
	slow := "The slow MCP server did not start, so its tool mcp__slow__echo cannot be called: The slow MCP server did not finish starting within 300ms"
	web := "The web MCP server did not start, so its tool mcp__web__echo cannot be called: The web MCP server at " + url + " refused riot (HTTP 401 Unauthorized)"
	turn := `[{"type":"tool_use","id":"toolu_1","name":"mcp__slow__echo","input":{}},{"type":"tool_use","id":"toolu_2","name":"mcp__web__echo","input":{}}]`
	for _, args := range [][]string{{"run"}, {"run", "--session", "S"}} {
		if len(args) > 1 {
			startHost(t, e, "S")
		}
		r := e.riot(turn, args...)
		r.want(t, 0, slow, web)
		if strings.Contains(r.stdout, "plugin stopped") {
			t.Fatalf("riot %v blames a plugin:\n%s", args, r.stdout)
		}
	}
	e.riot("", "call", "--session", "S", "mcp__slow__echo", "{}").want(t, 2, "the MCP server slow did not start, so mcp__slow__echo cannot be called: The slow MCP server did not finish starting within 300ms")
	e.riot("", "call", "--session", "S", "mcp__web__echo", "{}").want(t, 2, "the MCP server web did not start, so mcp__web__echo cannot be called: ", "HTTP 401 Unauthorized")

	s := e.connect(t, nil)
	for name, want := range map[string]string{"mcp__slow__echo": slow, "mcp__web__echo": web} {
		_, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("riot mcp's answer to %s: %v, want %q", name, err, want)
		}
	}
}

// neverStarting is an environment whose two MCP servers never start: slow
// passes its startup timeout, web (at url) answers HTTP 401.
func neverStarting(t *testing.T) (*env, string) {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(ts.Close)
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("[mcp_servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", \"exec sleep 30\"]\nstartup_timeout = \"300ms\"\n\n[mcp_servers.web]\nurl = %q\n", ts.URL))
	return e, ts.URL
}
