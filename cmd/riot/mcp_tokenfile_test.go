package main_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// --token-file reads the token from a file the operator provides, such as
// a mounted Kubernetes secret, whatever its mode; it wins over
// $RIOT_MCP_TOKEN, and an empty or missing file, or both flags, is refused.
func TestMCPHTTPTokenFile(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := e.listen(t, []string{"RIOT_MCP_TOKEN=from-env"}, "--token-file", file)
	if got := post(t, h.url, map[string]string{"Authorization": "Bearer from-file"}); got != http.StatusOK {
		t.Fatalf("with the file's token: %d", got)
	}
	if got := post(t, h.url, map[string]string{"Authorization": "Bearer from-env"}); got != http.StatusUnauthorized {
		t.Fatalf("with $RIOT_MCP_TOKEN when --token-file is given: %d", got)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.riot("", "mcp", "--listen", "127.0.0.1:0", "--token-file", empty).want(t, 2, "is empty")
	e.riot("", "mcp", "--listen", "127.0.0.1:0", "--token-file", filepath.Join(t.TempDir(), "none")).want(t, 2, "cannot read --token-file")
	e.riot("", "mcp", "--listen", "127.0.0.1:0", "--token", "t", "--token-file", file).want(t, 2, "not both")
	e.riot("", "mcp", "--token-file", file).want(t, 2, "are for --listen")
}
