package permission

import "testing"

// An MCP tool's call has no subjects: rules name the tool, or the server
// by its prefix mcp__NAME, and nothing else may match it.
func TestMCPServerPrefixRules(t *testing.T) {
	e := newEnv(t)
	req := Request{Tool: "mcp__fs__read_file", ToolBehavior: ToolPassthrough}
	for _, tc := range []struct {
		name  string
		rules []string
		want  Behavior
	}{
		{"no rule asks", nil, Ask},
		{"the tool", []string{"allow:mcp__fs__read_file"}, Allow},
		{"the server", []string{"allow:mcp__fs"}, Allow},
		{"another server", []string{"allow:mcp__f"}, Ask},
		{"a longer server name", []string{"allow:mcp__fs__read"}, Ask},
		{"a double prefix is not a server", []string{"allow:mcp__fs__read_file__x"}, Ask},
		{"deny the server", []string{"allow:mcp__fs__read_file", "deny:mcp__fs"}, Deny},
		{"ask the server", []string{"allow:mcp__fs__read_file", "ask:mcp__fs"}, Ask},
		{"mcp__ alone names nothing", []string{"allow:mcp__"}, Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := e.policy(t, "default", tc.rules...)
			if d := decide(p, req); d.Behavior != tc.want {
				t.Fatalf("%v: got %v (%s)", tc.rules, d.Behavior, d.Reason)
			}
		})
	}
	if !e.policy(t, "default", "deny:mcp__fs").Hidden("mcp__fs__read_file") {
		t.Fatal("a bare deny of the server does not hide its tools")
	}
	if e.policy(t, "default", "deny:mcp__fs").Hidden("mcp__fsx__read_file") {
		t.Fatal("a deny of mcp__fs hides another server's tools")
	}
}
