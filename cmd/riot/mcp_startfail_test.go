package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server that never started is named with its cause wherever its tools
// are missing: `riot tools` says so on stderr, and `riot call` of one of
// its tools says the server did not start and why, not that no such tool
// exists.
func TestMCPServerThatNeverStartedIsNamed(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer ts.Close()
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("[mcp_servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", \"exec sleep 30\"]\nstartup_timeout = \"300ms\"\n\n[mcp_servers.web]\nurl = %q\n", ts.URL))
	slow := "the MCP server slow did not start, so its tools are missing: The slow MCP server did not finish starting within 300ms"
	web := "the MCP server web did not start, so its tools are missing: The web MCP server at " + ts.URL + " refused riot (HTTP 401 Unauthorized)"
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
