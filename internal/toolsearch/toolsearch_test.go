package toolsearch_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/toolsearch"
)

func tools() []toolsearch.Tool {
	return []toolsearch.Tool{
		toolsearch.FromSchema("mcp__github__create_issue", "Create a new issue in a GitHub repository.",
			[]byte(`{"type":"object","properties":{"repo":{"type":"string","description":"owner/name"},"title":{"type":"string"}}}`)),
		toolsearch.FromSchema("mcp__github__list_pulls", "List the pull requests of a repository.",
			[]byte(`{"type":"object","properties":{"repo":{"type":"string"},"state":{"type":"string","description":"open or closed"}}}`)),
		toolsearch.FromSchema("mcp__weather__forecast", "Get the weather forecast for a city.",
			[]byte(`{"type":"object","properties":{"city":{"type":"string","description":"the city's name"},"days":{"type":"integer"}}}`)),
		toolsearch.FromSchema("mcp__slack__postMessage", "Send a message to a Slack channel.",
			[]byte(`{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string","description":"what to say; mentions an issue by link"}}}`)),
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"mcp__github__create_issue": "mcp github create issue",
		"postMessage":               "post message",
		"Create Issues, HTTP/2":     "create issue http 2",
		"class pass":                "class pass",
		"":                          "",
	} {
		if got := strings.Join(toolsearch.Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBM25(t *testing.T) {
	ix := toolsearch.New(tools())
	for query, want := range map[string]string{
		"create issue":        "mcp__github__create_issue mcp__slack__postMessage",
		"weather in a city":   "mcp__weather__forecast",
		"post messages slack": "mcp__slack__postMessage",
		"pull requests":       "mcp__github__list_pulls",
		"days":                "mcp__weather__forecast", // a parameter name
		"nothing-like-this":   "",
	} {
		if got := strings.Join(ix.BM25(query, 5), " "); got != want {
			t.Errorf("BM25(%q) = %q, want %q", query, got, want)
		}
	}
	if got := ix.BM25("repository", 1); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
}

func TestRegexp(t *testing.T) {
	ix := toolsearch.New(tools())
	for pattern, want := range map[string]string{
		"github":           "mcp__github__create_issue mcp__github__list_pulls",
		"GITHUB.*ISSUE":    "mcp__github__create_issue",
		"issue":            "mcp__github__create_issue mcp__slack__postMessage", // the name's match first
		"(?-i)Slack":       "mcp__slack__postMessage",                           // case is always ignored
		"^mcp__weather__":  "mcp__weather__forecast",
		"closed|owner":     "mcp__github__create_issue mcp__github__list_pulls", // parameter descriptions
		"postmessage$|zzz": "mcp__slack__postMessage",                           // $ ends the name's line
		"^days: $":         "mcp__weather__forecast",                            // a parameter's line
		"^get the$":        "",
	} {
		got, err := ix.Regexp(pattern, 5)
		if err != nil {
			t.Fatalf("%q: %v", pattern, err)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Regexp(%q) = %q, want %q", pattern, strings.Join(got, " "), want)
		}
	}
	for pattern, want := range map[string]string{
		"(?<=a)b":                "`query` is not a regular expression riot can use (Go's RE2 syntax, which has no lookaround or backreferences): invalid named capture in `(?<=a)b`. Fix the pattern, or search with mode \"bm25\"",
		"a(b":                    "missing closing ) in `a(b`",
		"  ":                     "`query` is empty. Give a regular expression",
		strings.Repeat("a", 201): "`query` is 201 characters; a regular expression may have at most 200",
	} {
		if _, err := ix.Regexp(pattern, 5); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Regexp(%q): error %v, want %q", pattern, err, want)
		}
	}
}

// Results are bounded by the limit, and name matches stop the scan early.
func TestLimit(t *testing.T) {
	var many []toolsearch.Tool
	for i := range 100 {
		many = append(many, toolsearch.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: "Does a thing."})
	}
	ix := toolsearch.New(many)
	got, err := ix.Regexp("tool", 7)
	if err != nil || len(got) != 7 || got[0] != "tool_000" || got[6] != "tool_006" {
		t.Fatalf("%v %v", got, err)
	}
	if got := ix.BM25("thing", 3); len(got) != 3 || !slices.IsSorted(got) {
		t.Fatalf("ties keep the index's order: %v", got)
	}
}

// Synthetic tools like an MCP server's: a name, a sentence or three, a
// few described parameters.
func synthetic(n int) []toolsearch.Tool {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "sync", "export"}
	nouns := []string{"issue", "pull", "file", "user", "channel", "message", "invoice", "ticket", "build", "deploy", "metric", "alert"}
	out := make([]toolsearch.Tool, n)
	for i := range out {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		out[i] = toolsearch.Tool{
			Name:        fmt.Sprintf("mcp__server%d__%s_%s_%d", i/50, v, o, i),
			Description: fmt.Sprintf("%s a %s in the service number %d. Use it when the user asks to %s %ss; it returns the %s as JSON with its id, owner and timestamps. Never use it for anything else.", v, o, i, v, o, o),
			Params:      []toolsearch.Param{{Name: o + "_id", Description: "the " + o + "'s id"}, {Name: "owner", Description: "who owns it"}, {Name: "limit", Description: "at most this many"}},
		}
	}
	return out
}

func BenchmarkBM25Over5000(b *testing.B) {
	ix := toolsearch.New(synthetic(5000))
	ix.BM25("warm", 1) // the keyword index is built on first use
	for b.Loop() {
		if len(ix.BM25("create an invoice for the user", 5)) == 0 {
			b.Fatal("no match")
		}
	}
}

func BenchmarkRegexpOver5000(b *testing.B) {
	ix := toolsearch.New(synthetic(5000))
	for b.Loop() {
		if _, err := ix.Regexp("deploy.*alert|zzz_nothing", 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew5000(b *testing.B) {
	tools := synthetic(5000)
	for b.Loop() {
		toolsearch.New(tools).BM25("x", 1)
	}
}
