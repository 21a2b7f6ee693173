package config

import (
	"strings"
	"testing"
)

// A server name that would make mcp__NAME__TOOL longer than the model APIs
// take, even for a one-character tool, is a config error naming it.
func TestMCPServerNameFitsToolNames(t *testing.T) {
	if got := len("mcp__" + strings.Repeat("a", MaxMCPServerName) + "__t"); got != 64 {
		t.Fatalf("the longest server name makes %d-character tool names", got)
	}
	long := strings.Repeat("a", MaxMCPServerName+1)
	for name, want := range map[string]string{
		strings.Repeat("a", MaxMCPServerName): "",
		long:                                  `MCP server name "` + long + `" is 57 characters; riot names its tools mcp__NAME__TOOL, which the model APIs cap at 64 characters, so use a name of at most 56`,
		"a.b":                                 "must be letters, digits, and single - or _",
		"naïve":                               "must be letters, digits, and single - or _",
		"":                                    "must be letters, digits, and single - or _",
	} {
		if got := badMCPName(name); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
	tc := newTrustCase(t, map[string]string{"user.toml": "[mcp_servers." + long + "]\ncommand = \"a\"\n"})
	if _, err := tc.tryLoad(Options{}); err == nil || !strings.Contains(err.Error(), long+`" is 57 characters`) {
		t.Fatalf("a long server name in the config: %v", err)
	}
}
