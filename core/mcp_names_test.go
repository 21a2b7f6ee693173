package core_test

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// apiName is the tool name rule of both model APIs (Anthropic's and
// OpenAI's).
var apiName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// lines is a log that keeps what it is told.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A server's tool whose riot name the model APIs would reject is left out
// of tools[], and the server's problem (and the log) names the server and
// each such tool; the names that fit, to the last character, are served.
func TestMCPToolNamesTheAPIsRejectAreLeftOut(t *testing.T) {
	var log lines
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"badnames"}, Enabled: true, StartupTimeout: 5 * time.Second}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	})
	h := newHost(t, withConfig(cfg), withPlugins(), func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn})
	})
	var names []string
	for _, ti := range h.Tools() {
		if !apiName.MatchString(ti.Name) {
			t.Errorf("tools[] has %q, which the model APIs reject", ti.Name)
		}
		names = append(names, ti.Name)
	}
	slices.Sort(names)
	want := []string{"mcp__srv__ask", "mcp__srv__big", "mcp__srv__echo", "mcp__srv__grow", "mcp__srv__ok-name_2", "mcp__srv__" + strings.Repeat("z", 54)}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools[] = %q, want %q", names, want)
	}
	servers := h.MCPServers()
	if len(servers) != 1 {
		t.Fatalf("servers %+v", servers)
	}
	const left = "The srv MCP server's tool %s is left out, since the model APIs (Anthropic's and OpenAI's) would reject it: "
	for _, w := range []string{
		strings.Replace(left, "%s", `"a.b"`, 1) + `its name has '.', and tool names hold only letters, digits, _ and -. Ask the server's author to rename it, or add it to [mcp_servers.srv] disabled_tools.`,
		strings.Replace(left, "%s", `"with space"`, 1) + `its name has ' ', and tool names`,
		strings.Replace(left, "%s", `"/../"`, 1) + `its name has '/', '.', and tool names`,
		strings.Replace(left, "%s", `"naïve"`, 1) + `its name has 'ï', and tool names`,
		strings.Replace(left, "%s", `""`, 1) + `it has no name.`,
		strings.Replace(left, "%s", `"`+strings.Repeat("x", 80)+`..."`, 1) + "riot's name for it, mcp__srv__" + strings.Repeat("x", 80) + "..., is 120 characters, over the 64 allowed.",
		strings.Replace(left, "%s", `"`+strings.Repeat("y", 55)+`"`, 1) + "riot's name for it, mcp__srv__" + strings.Repeat("y", 55) + ", is 65 characters, over the 64 allowed.",
	} {
		if !strings.Contains(servers[0].Problem, w) {
			t.Errorf("the server's problem lacks %q:\n%s", w, servers[0].Problem)
		}
		if !strings.Contains(log.String(), w) {
			t.Errorf("the log lacks %q:\n%s", w, log.String())
		}
	}
	// A left-out tool cannot be called.
	if r := mcpCall(t, h, "mcp__srv__a.b", `{}`); r.Status == core.StatusOK {
		t.Fatalf("a left-out tool ran: %q", r.Text())
	}
	// The user can silence a tool by disabling it: no problem then.
	cfg.MCPServers[0].DisabledTools = []string{"a.b", "with space", "/../", "naïve", strings.Repeat("x", 110), "", strings.Repeat("y", 55)}
	h2 := newHost(t, withConfig(cfg), withPlugins())
	if len(h2.Tools()) != len(want) {
		t.Fatalf("with the bad names disabled: %d tools", len(h2.Tools()))
	}
	if p := h2.MCPServers()[0].Problem; p != "" {
		t.Fatalf("with the bad names disabled, the problem %q", p)
	}
}
