package main_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// riot configured as its own MCP server, however it is reached (its path,
// a symlink, a copy, a shell that finds it on PATH), starts once and
// refuses: no recursion, one start per server and listing, and each
// server's problem says it is riot itself and where it is listed.
func TestMCPRiotIsNotItsOwnServer(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "riot-link")
	if err := os.Symlink(e.exe, link); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "riot-copy")
	copyFile(t, e.exe, cp)
	starts := filepath.Join(dir, "starts")
	// Each wrapper notes its start, so that the test counts every riot
	// started, at any depth.
	wrap := func(name, riot string) string {
		return fmt.Sprintf("[mcp_servers.%s]\ncommand = \"sh\"\nargs = [\"-c\", %q]\nenv = { PATH = %q }\nstartup_timeout = \"20s\"\n\n",
			name, fmt.Sprintf("echo %s >> %s; exec %s mcp", name, starts, riot), filepath.Dir(e.exe)+":"+os.Getenv("PATH"))
	}
	cfg := e.userConfig(fmt.Sprintf("[mcp_servers.direct]\ncommand = %q\nargs = [\"mcp\"]\n\n", e.exe) +
		wrap("path", e.exe) + wrap("symlink", link) + wrap("copy", cp) + wrap("onpath", "riot"))
	servers := []string{"direct", "path", "symlink", "copy", "onpath"}
	problem := func(name string) string {
		return fmt.Sprintf("problem:  The %s MCP server is riot itself (it runs `riot mcp`), and riot never starts itself as its own tool source, so %s is disabled. Tell the user to remove %s from [mcp_servers.%s] in %s.", name, name, name, name, cfg)
	}
	r := e.riot("", "plugins")
	want := []string{}
	for _, s := range servers {
		want = append(want, problem(s))
	}
	r.want(t, 0, want...)
	wantStarts(t, starts, 4)

	// `riot tools` lists riot's own tools, and says on stderr why each
	// server is left out.
	r = e.riot("", "tools")
	r.want(t, 0, "The onpath MCP server is riot itself")
	if strings.Contains(r.stdout, "mcp__") {
		t.Fatalf("riot tools lists a server's tools:\n%s", r.stdout)
	}
	wantStarts(t, starts, 8)

	// Served over MCP, riot lists its own tools, starts each server once
	// and leaves no process behind.
	s, pid := e.connectCmd(t, nil)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools.Tools); got != riotOrder {
		t.Fatalf("tools/list = %s", got)
	}
	wantStarts(t, starts, 12)
	if d := descendants(pid); len(d) != 0 {
		t.Fatalf("riot mcp has descendants after its servers refused: %v", d)
	}
	// A call of a server's tool is refused as unknown, and starts nothing.
	if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcp__direct__Read", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a call of riot's own server's tool")
	}
	wantStarts(t, starts, 12)
}

// wantStarts checks how many wrapped riots were started in all.
func wantStarts(t *testing.T, file string, n int) {
	t.Helper()
	b, _ := os.ReadFile(file)
	if got := strings.Count(string(b), "\n"); got != n {
		t.Fatalf("%d riots started as MCP servers, want %d:\n%s", got, n, b)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// `riot mcp` started by a riot refuses, on stdio with an MCP error for
// each request up to initialize and on HTTP by not serving, and says why
// on stderr; a riot within an MCP server of a riot starts no MCP server.
func TestMCPRefusesToServeItsRiot(t *testing.T) {
	e := newEnv(t)
	const refusal = "this riot was started as an MCP server by riot (pid 4242, RIOT_MCP_SERVER_OF=4242 in its environment), and riot never serves itself as its own tool source"
	marker := []string{"RIOT_MCP_SERVER_OF=4242"}
	in := `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"
	r := e.riotWith(marker, in, "mcp")
	r.want(t, 1, "riot: mcp: "+refusal)
	for _, id := range []string{`"id":"d"`, `"id":1`} {
		if !strings.Contains(r.stdout, `{"jsonrpc":"2.0",`+id+`,"error":{"code":-32042,"message":"riot: `+refusal) {
			t.Fatalf("no refusal for %s on stdout:\n%s", id, r.stdout)
		}
	}
	e.riotWith(marker, "", "mcp", "--listen", "127.0.0.1:0", "--token", "t").want(t, 1, "riot: mcp: "+refusal)

	srv, err := mcpserveBin()
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	e.userConfig(fmt.Sprintf("[mcp_servers.srv]\ncommand = \"sh\"\nargs = [\"-c\", %q]\n", "echo srv >> "+starts+"; exec "+srv))
	e.riotWith(marker, "", "plugins").want(t, 0, "problem:  The srv MCP server is not started: this riot runs within an MCP server that riot (pid 4242) started, and such a riot starts no MCP servers, so that no riot ever starts itself.")
	if _, err := os.Stat(starts); !os.IsNotExist(err) {
		t.Fatal("a riot within a riot's MCP server started an MCP server")
	}
	// Without the marker the same server starts and serves.
	e.riot("", "plugins").want(t, 0, "tools:    mcp__srv__")
	wantStarts(t, starts, 1)
	// Its tools now cached, a riot within a riot's server still lists none.
	r = e.riotWith(marker, "", "tools")
	r.want(t, 0, "The srv MCP server is not started: this riot runs within an MCP server")
	if strings.Contains(r.stdout, "mcp__srv__") {
		t.Fatalf("a riot within a riot's server lists cached tools:\n%s", r.stdout)
	}
	wantStarts(t, starts, 1)
}
