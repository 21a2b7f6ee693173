package mcpsource

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/toolcall"
)

// SelfEnv marks the environment of every MCP server process riot starts,
// with the pid of the riot that started it. A riot that finds it in its
// own environment runs, however it was reached (the riot binary, a link or
// a copy of it, a shell, a wrapper), within an MCP server of a riot:
// `riot mcp` refuses to serve, and no host there starts an MCP server
// process, so riot never starts itself as its own tool source and never
// recurses.
const SelfEnv = "RIOT_MCP_SERVER_OF"

// SelfCode is the JSON-RPC error code with which `riot mcp` answers the
// requests of the riot that started it.
const SelfCode = -32042

// selfMark is what `riot mcp`'s refusal says, for the riot that reads it.
const selfMark = "riot never serves itself as its own tool source"

// StartedByRiot reports the pid of the riot whose MCP server this process
// is (or descends from), if it is one.
func StartedByRiot(getenv func(string) string) (string, bool) {
	v := getenv(SelfEnv)
	return v, v != ""
}

// Refusal is what `riot mcp` says, on stderr and to its client, when it is
// an MCP server of a riot.
func Refusal(by string) string {
	return fmt.Sprintf("this riot was started as an MCP server by riot (pid %s, %s=%s in its environment), and %s: it would start itself again without end. Remove the server that runs `riot mcp` from that riot's .mcp.json or [mcp_servers].", by, SelfEnv, by, selfMark)
}

// selfEnv is the marker for a server this process starts.
func selfEnv() string { return SelfEnv + "=" + strconv.Itoa(os.Getpid()) }

// isSelf reports whether a server's failure to start is riot refusing to
// be its own server: its error answer, or what it said on stderr.
func isSelf(err error, c *conn) bool {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && werr.Code == SelfCode && strings.Contains(werr.Message, selfMark) {
		return true
	}
	return c != nil && c.stderr != nil && strings.Contains(c.stderr.all(), selfMark)
}

// selfProblem is the problem of a server that is riot itself.
func selfProblem(srv config.MCPServer) string {
	return fmt.Sprintf("The %s MCP server is riot itself (it runs `riot mcp`), and riot never starts itself as its own tool source, so %s is disabled. Tell the user to remove %s from %s.", srv.Name, srv.Name, srv.Name, where(srv))
}

// nestedProblem is the problem of every stdio server of a riot that runs
// within an MCP server of a riot.
func nestedProblem(srv config.MCPServer, by string) string {
	return fmt.Sprintf("The %s MCP server is not started: this riot runs within an MCP server that riot (pid %s) started, and such a riot starts no MCP servers, so that no riot ever starts itself. Tell the user to remove the server that runs riot from the parent riot's .mcp.json or [mcp_servers].", srv.Name, by)
}

// where names the file that lists a server.
func where(srv config.MCPServer) string {
	if srv.Source.File == "" {
		return "[mcp_servers." + srv.Name + "] in the riot config"
	}
	if strings.HasSuffix(srv.Source.File, config.MCPJSONFile) {
		return srv.Source.File
	}
	return "[mcp_servers." + srv.Name + "] in " + srv.Source.File
}

// badToolName says why riot's name for a server's tool is not one the
// model APIs take (toolcall.NameProblem), or "" if it is. Such a tool is
// left out, never renamed: a name the model sees is the server's own.
func badToolName(server, tool string) string {
	name := ToolName(server, tool)
	shown := tool
	if len(shown) > 80 {
		shown = shown[:80] + "..."
	}
	why := ""
	if tool == "" || strings.IndexFunc(tool, func(r rune) bool { return !toolcall.NameRune(r) }) >= 0 {
		why = toolcall.NameProblem(tool)
	} else if toolcall.NameProblem(name) != "" {
		why = fmt.Sprintf("riot's name for it, %s, is %d characters, over the %d allowed", Prefix+server+"__"+shown, len(name), toolcall.MaxNameLen)
	} else {
		return ""
	}
	return fmt.Sprintf("The %s MCP server's tool %q is left out, since the model APIs (Anthropic's and OpenAI's) would reject it: %s. Ask the server's author to rename it, or add it to [mcp_servers.%s] disabled_tools.", server, shown, why, server)
}

func (t *tail) all() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
