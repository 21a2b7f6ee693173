package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/toolsearch"
)

// manyTools serves n tools over Streamable HTTP in this process: tool i
// is named t<i>, its description says desc(i), and it echoes its name.
func manyTools(tb testing.TB, n int, desc func(i int) string) string {
	tb.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, nil)
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		schema := map[string]any{"type": "object", "properties": map[string]any{
			"ticket_id": map[string]any{"type": "string", "description": "the ticket's id"},
		}}
		srv.AddTool(&mcp.Tool{Name: name, Description: desc(i), InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	tb.Cleanup(ts.Close) // after the host's Close: cleanups run last first
	return ts.URL
}

// searchHost is a host with ToolSearch over the server at url, whose
// defer_loading is deferLoading (nil: by the threshold).
func searchHost(tb testing.TB, url string, deferLoading *bool, mutate ...func(*config.Config)) *core.Host {
	tb.Helper()
	ws := tb.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: ws + "/none.toml", Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
	cfg.StateDir = tb.TempDir()
	cfg.MCPServers = []config.MCPServer{{Name: "many", URL: url, Enabled: true, DeferLoading: deferLoading, StartupTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}}
	cfg.Permissions.Allow = append(cfg.Permissions.Allow, config.Rule{Text: "mcp__many"})
	for _, m := range mutate {
		m(cfg)
	}
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: ws, ToolSearch: true, Logger: hclog.NewNullLogger()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

func search(tb testing.TB, h *core.Host, input string) core.ToolResult {
	tb.Helper()
	return h.RunTurn(context.Background(), []core.ToolUse{{ID: "s1", Name: core.ToolSearchName, Input: json.RawMessage(input)}})[0]
}

func found(tb testing.TB, r core.ToolResult) []string {
	tb.Helper()
	var f toolsearch.Found
	if err := json.Unmarshal(r.UI, &f); err != nil {
		tb.Fatalf("UI payload %s: %v", r.UI, err)
	}
	return f.ToolReferences
}

var topics = []string{"invoice", "ticket", "deploy", "alert", "calendar", "weather"}

func topicDesc(i int) string {
	return fmt.Sprintf("Handles the %s of item %d.", topics[i%len(topics)], i)
}

// A server over the threshold is deferred: its tools come after all
// others, marked, and ToolSearch finds them by keywords and by regex, and
// then they are called.
func TestToolSearchFindsDeferredTools(t *testing.T) {
	h := searchHost(t, manyTools(t, 12, topicDesc), nil)
	tools := h.Tools()
	var order []string
	for _, ti := range tools {
		order = append(order, fmt.Sprintf("%s:%v", ti.Name, ti.Deferred))
	}
	got := strings.Join(order, " ")
	if !strings.HasPrefix(got, "ToolSearch:false mcp__many__t0:true") || strings.Count(got, ":true") != 12 {
		t.Fatalf("tools[] = %s", got)
	}
	r := search(t, h, `{"query":"weather forecast"}`)
	if r.Status != core.StatusOK || strings.Join(found(t, r), " ") != "mcp__many__t11 mcp__many__t5" { // ties: the server's order
		t.Fatalf("bm25: %s %q %s", r.Status, r.Text(), r.UI)
	}
	if !strings.Contains(r.Text(), `"type":"function"`) || !strings.Contains(r.Text(), `"name":"mcp__many__t5"`) || !strings.Contains(r.Text(), `"ticket_id"`) {
		t.Fatalf("definitions: %s", r.Text())
	}
	r = search(t, h, `{"query":"^mcp__many__t1[01]$|item 1\\.","mode":"regex","max_results":3}`)
	// Matches of the name first.
	if r.Status != core.StatusOK || strings.Join(found(t, r), " ") != "mcp__many__t10 mcp__many__t11 mcp__many__t1" {
		t.Fatalf("regex: %s %q %s", r.Status, r.Text(), r.UI)
	}
	// A deferred tool is called as any other, found or not.
	if r := runOne(t, h, "mcp__many__t5", `{}`); r.Status != core.StatusOK || r.Text() != "ran t5" {
		t.Fatalf("call: %s %q", r.Status, r.Text())
	}
	r = search(t, h, `{"query":"nothing like this"}`)
	if r.Status != core.StatusOK || len(found(t, r)) != 0 || !strings.Contains(r.Text(), "No deferred tool matches \"nothing like this\" in mode bm25 (12 tools are deferred). Search again") {
		t.Fatalf("no match: %s %q", r.Status, r.Text())
	}
}

// Bad inputs are corrections for the model.
func TestToolSearchBadInput(t *testing.T) {
	h := searchHost(t, manyTools(t, 3, topicDesc), new(true))
	for input, want := range map[string]string{
		`{"query":"a(b","mode":"regex"}`:   "`query` is not a regular expression riot can use (Go's RE2 syntax, which has no lookaround or backreferences): missing closing ) in `a(b`. Fix the pattern, or search with mode \"bm25\"",
		`{"query":"(?=x)","mode":"regex"}`: "invalid or unsupported Perl syntax",
		`{"query":""}`:                     "`query` has no keywords.",
		`{"query":"  ","mode":"regex"}`:    "`query` is empty.",
		`{"query":"x","max_results":1000}`: "max_results",
		`{"query":"x","mode":"fuzzy"}`:     "bm25",
		`{"q":"x"}`:                        "query",
	} {
		r := search(t, h, input)
		if r.Status != core.StatusFailed || !strings.Contains(r.Text(), want) {
			t.Errorf("%s: %s %q, want %q", input, r.Status, r.Text(), want)
		}
	}
	// A server set not to defer has nothing to search.
	h = searchHost(t, manyTools(t, 30, topicDesc), new(false))
	if r := search(t, h, `{"query":"ticket"}`); r.Status != core.StatusOK || !strings.Contains(r.Text(), "No tools are deferred") {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
	for _, ti := range h.Tools() {
		if ti.Deferred {
			t.Fatalf("%s deferred with defer_loading = false", ti.Name)
		}
	}
}

// Twenty large definitions are over ToolSearch's result budget: the text
// is spilled with a preview, and the names still reach the UI payload.
func TestToolSearchResultBudget(t *testing.T) {
	long := strings.Repeat("A ticket tool with a long description. ", 200)
	h := searchHost(t, manyTools(t, 30, func(int) string { return long }), new(true))
	r := search(t, h, `{"query":"ticket","max_results":20}`)
	if r.Status != core.StatusOK || r.Spill == nil || len(r.Text()) > 10_000 || len(found(t, r)) != 20 {
		t.Fatalf("%s spill=%v %d chars, %d found", r.Status, r.Spill, len(r.Text()), len(found(t, r)))
	}
}

// Without ToolSearch (riot mcp's host) nothing is deferred and there is no
// ToolSearch.
func TestNoToolSearchDefersNothing(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "many", URL: manyTools(t, 30, topicDesc), Enabled: true, DeferLoading: new(true)}}
	})
	h := newHost(t, withConfig(cfg), withPlugins())
	for _, ti := range h.Tools() {
		if ti.Deferred || ti.Name == core.ToolSearchName {
			t.Fatalf("%s (deferred %v) without Options.ToolSearch", ti.Name, ti.Deferred)
		}
	}
}

// ToolSearch over 5,000 deferred tools in a warm host: the index is built
// once, on the first search.
func BenchmarkToolSearch5000(b *testing.B) {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "sync", "export"}
	nouns := []string{"issue", "pull request", "file", "user", "channel", "message", "invoice", "ticket", "build", "deploy", "metric", "alert"}
	desc := func(i int) string {
		v, n := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		return fmt.Sprintf("%s a %s in service %d. Use it when the user asks to %s a %s; it returns the %s as JSON with its id, owner and timestamps. NEVER use it for anything else.", v, n, i, v, n, n)
	}
	h := searchHost(b, manyTools(b, 5000, desc), new(true))
	for mode, input := range map[string]string{"bm25": `{"query":"create an invoice for the user"}`, "regex": `{"query":"invoice.*service 7","mode":"regex"}`} {
		b.Run(mode, func(b *testing.B) {
			if r := search(b, h, input); r.Status != core.StatusOK || len(found(b, r)) == 0 {
				b.Fatalf("%s %q", r.Status, r.Text())
			}
			for b.Loop() {
				search(b, h, input)
			}
		})
	}
}
