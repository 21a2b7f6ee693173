package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// A hook's if matches a call as a deny rule would, and covers it only as
// an allow rule would; what cannot be judged matches and does not cover.
func TestConditionMatch(t *testing.T) {
	ws := t.TempDir()
	p, err := New(Config{Roots: []string{ws}, Home: ws})
	if err != nil {
		t.Fatal(err)
	}
	cond := func(text string) *Condition {
		t.Helper()
		c, err := p.Condition(config.Rule{Text: text, Source: config.Source{File: "hooks.toml", Line: 3}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	src := filepath.Join(ws, "src", "a.go")
	for _, c := range []struct {
		cond            string
		req             Request
		matches, covers bool
	}{
		{"Bash(rm:*)", bash(false, []string{"rm x"}), true, true},
		{"Bash(rm:*)", bash(false, []string{"ls", "rm x"}), true, false},
		{"Bash(rm:*)", bash(false, []string{"sudo /bin/rm x"}), true, false},
		{"Bash(rm:*)", bash(false, []string{"ls"}), false, false},
		{"Bash", bash(false, []string{"ls", "rm x"}), true, true},
		{"Read", bash(false, []string{"ls"}), false, false},
		{"Edit(./src/**)", editReq(src), true, true},
		{"Edit(./src/**)", editReq(src, filepath.Join(ws, "b.go")), true, false},
		{"Edit(./src/**)", editReq(filepath.Join(ws, "b.go")), false, false},
		{"Echo(text:secret*)", Request{Tool: "Echo", Input: json.RawMessage(`{"text":"secret x"}`), Params: []string{"text"}}, true, true},
		{"Echo(text:secret*)", Request{Tool: "Echo", Input: json.RawMessage(`{"text":"plain"}`), Params: []string{"text"}}, false, false},
		// A parameter the tool does not take: cannot be judged.
		{"Echo(txt:secret*)", Request{Tool: "Echo", Input: json.RawMessage(`{"text":"plain"}`), Params: []string{"text"}}, true, false},
		// Another tool's condition never matches.
		{"Echo(txt:secret*)", Request{Tool: "Other", Input: json.RawMessage(`{"text":"plain"}`), Params: []string{"text"}}, false, false},
		// An MCP tool's calls are judged by their parameters.
		{"mcp__srv__t(q:x*)", Request{Tool: "mcp__srv__t", Input: json.RawMessage(`{"q":"xy"}`), Params: []string{"q"}}, true, true},
		{"mcp__srv__t(ls)", Request{Tool: "mcp__srv__t", Input: json.RawMessage(`{"q":"xy"}`), Params: []string{"q"}}, true, false},
	} {
		m, cv := p.Prepare(c.req).Match(cond(c.cond))
		if m != c.matches || cv != c.covers {
			t.Errorf("%s on %s %v: matches %v covers %v, want %v %v", c.cond, c.req.Tool, c.req.Subjects, m, cv, c.matches, c.covers)
		}
	}

	// Malformed: a config error at its source.
	_, err = p.Condition(config.Rule{Text: "Bash(rm", Source: config.Source{File: "hooks.toml", Line: 3}})
	if err == nil || !strings.Contains(err.Error(), `hooks.toml:3: the hook's if "Bash(rm" is not a permission rule`) {
		t.Fatalf("malformed: %v", err)
	}
	if _, err := p.Condition(config.Rule{Text: "Read(~/x)"}); err != nil {
		t.Fatalf("a home path: %v", err)
	}
	noHome, err := New(Config{Roots: []string{ws}, lookupHome: func() (string, error) { return "", config.ErrNoHome }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noHome.Condition(config.Rule{Text: "Read(~/x)"}); err == nil {
		t.Fatal("a ~ path without a home compiled")
	}
}

// CheckTool names a condition that does not fit a tool's parameters, in
// the hook's words, and asks for the parameters only when it names the
// tool with a specifier.
func TestConditionCheckTool(t *testing.T) {
	p, err := New(Config{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Condition(config.Rule{Text: "Echo(txt:x)", Source: config.Source{File: "f", Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	params := func() []string { asked++; return []string{"text"} }
	if err := c.CheckTool("Echo", params); err == nil || !strings.Contains(err.Error(), `the hook's if "Echo(txt:x)": Echo takes no parameter "txt"; did you mean text?`) {
		t.Fatalf("CheckTool: %v", err)
	}
	if err := c.CheckTool("Other", params); err != nil || asked != 1 {
		t.Fatalf("another tool: %v, parameters asked %d times", err, asked)
	}
	if err := c.CheckTool("Echo", func() []string { return nil }); err != nil {
		t.Fatalf("unknown parameters: %v", err)
	}
	bare, _ := p.Condition(config.Rule{Text: "Echo"})
	if err := bare.CheckTool("Echo", params); err != nil || asked != 1 {
		t.Fatalf("a bare condition: %v, parameters asked %d times", err, asked)
	}
	fits, _ := p.Condition(config.Rule{Text: "Echo(text:x)"})
	if err := fits.CheckTool("Echo", params); err != nil {
		t.Fatalf("a fitting condition: %v", err)
	}
}
