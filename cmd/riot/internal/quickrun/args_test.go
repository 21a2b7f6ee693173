package quickrun

import (
	"reflect"
	"testing"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
)

// Parse reads the spellings it is sure of, as cobra does
// (FuzzQuickParsesAsCobra in cmd/riot compares the two), and declines
// every other, each for its own reason.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Invocation
	}{
		{[]string{"run"}, Invocation{Command: "run", Format: "anthropic"}},
		{[]string{"run", "--session", "S", "t.json"}, Invocation{Command: "run", Session: "S", Format: "anthropic", Args: []string{"t.json"}}},
		{[]string{"run", "-", "--session=S=T", "-q"}, Invocation{Command: "run", Session: "S=T", Format: "anthropic", Quiet: true, Args: []string{"-"}}},
		{[]string{"run", "--quiet", "--daemon", "--format", "openai", "--cwd=d", "--config", "c.toml", "--mode=plan"},
			Invocation{Command: "run", Format: "openai", Quiet: true, Daemon: true, Cwd: "d", Config: "c.toml", Flags: ident.Flags{Mode: "plan"}}},
		{[]string{"run", "--allow", "Read", "--allow=Bash(ls)", "--deny", "Edit", "--ask=Write", "--add-dir", "x", "--add-dir=y"},
			Invocation{Command: "run", Format: "anthropic", Flags: ident.Flags{Allow: []string{"Read", "Bash(ls)"}, Deny: []string{"Edit"}, Ask: []string{"Write"}, AddDirs: []string{"x", "y"}}}},
		{[]string{"run", "--format="}, Invocation{Command: "run"}},
		{[]string{"call", "Read"}, Invocation{Command: "call", Args: []string{"Read"}}},
		{[]string{"call", "--json", "Bash", "-", "--session", "S"}, Invocation{Command: "call", JSON: true, Session: "S", Args: []string{"Bash", "-"}}},
	} {
		got, ok := Parse(tc.args)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.args, got, ok, tc.want)
		}
	}
	for _, args := range [][]string{
		nil, {}, {"tools"}, {"--session", "S", "run"}, // not run or call first
		{"run", "--nope"}, {"run", "-h"}, {"run", "--help"}, {"run", "-x"}, {"run", "-qq"}, // unknown flags
		{"run", "--"}, {"run", "--session"}, {"run", "--session", "-q"}, {"run", "--session", "-"}, // no value
		{"run", "--session", "S", "--session", "T"}, {"run", "--format", "openai", "--format=openai"}, // a string flag twice
		{"run", "--quiet=true"}, {"run", "--daemon=false"}, {"call", "Read", "--json=true"}, // a bool flag with a value
		{"run", "--json"}, {"call", "Read", "--format", "openai"}, // another command's flag
		{"run", ""}, {"call", "", "{}"}, // an empty argument
		{"run", "a", "b"}, {"call"}, {"call", "--session", "S"}, {"call", "Read", "{}", "x"}, // too few or too many
	} {
		if got, ok := Parse(args); ok {
			t.Errorf("Parse(%q) = %+v, want it declined", args, got)
		}
	}
}
