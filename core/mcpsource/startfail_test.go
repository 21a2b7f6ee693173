package mcpsource

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
)

// A server that never started is named with the cause: the HTTP status a
// remote server refused riot with, or the startup timeout a slow one
// passed. Its State and Problem say the same, for `riot tools`.
func TestStartFailureNamesTheCause(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer ts.Close()
	teapot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer teapot.Close()
	for _, tc := range []struct {
		srv  config.MCPServer
		want []string
	}{
		{config.MCPServer{Name: "web", URL: ts.URL}, []string{"The web MCP server at " + ts.URL, "HTTP 401 Unauthorized", "[mcp_servers.web] headers"}},
		{config.MCPServer{Name: "pot", URL: teapot.URL}, []string{"The pot MCP server at " + teapot.URL, "answered HTTP 418 I'm a teapot"}},
		{config.MCPServer{Name: "slow", Command: "sh", Args: []string{"-c", "exec sleep 30"}, StartupTimeout: 300 * time.Millisecond}, []string{"The slow MCP server did not finish starting within 300ms"}},
	} {
		src := New(Options{Server: tc.srv})
		_, err := src.Manifest(context.Background())
		if err == nil {
			t.Fatalf("%s started", tc.srv.Name)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) || !strings.Contains(src.Problem(), w) {
				t.Errorf("%s: %q (problem %q) does not say %q", tc.srv.Name, err, src.Problem(), w)
			}
		}
		if st := src.State(); st != "failed to start" {
			t.Errorf("%s: state %q", tc.srv.Name, st)
		}
		_ = src.Close()
	}
}
