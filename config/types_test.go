package config_test

import (
	"testing"
)

// Every value of the wrong type is reported in riot's words, with its
// line: never a Go type ("a int64", "a slice") or the toml package's text.
// And each syntax message riot shows from the toml package is pinned here,
// so an upgrade that changes one fails this test.
func TestConfigTypeAndSyntaxMessages(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		msg        string
	}{
		{"string", "state_dir = 5\n", 1, "state_dir must be a string, not an integer"},
		{"array of strings", "[permissions]\nallow = \"x\"\n", 2, `allow must be an array of strings, such as ["a", "b"], not a string`},
		{"array element", "[permissions]\ndeny = [\"Bash\", 1]\n", 2, "deny[1] must be a string, not an integer"},
		{"integer", "[limits]\nmax_parallel = 1.5\n", 2, "max_parallel must be an integer, not a float"},
		{"boolean", "[plugins.bash]\nenabled = \"yes\"\n", 2, "enabled must be true or false, not a string"},
		{"duration type", "[limits]\ncall_timeout = 5\n", 2, `call_timeout must be a duration string such as "90s" or "10m", not an integer`},
		{"duration text", "[permissions.classifier]\ntimeout = \"5x\"\n", 2, `permissions.classifier.timeout: "5x" is not a duration; write one such as "90s" or "10m"`},
		{"negative duration", "[plugins.bash]\ntimeout = \"-1s\"\n", 2, `plugins.bash.timeout: "-1s" is negative; a duration must be positive`},
		{"table", "permissions = 1\n", 1, "permissions must be a table, [permissions], not an integer"},
		{"array of tables", "[[log]]\nlevel = \"warn\"\n", 1, "log must be a table, [log], not an array"},
		{"plugin table", "[plugins]\nbash = true\n", 2, "bash must be a table, [plugins.bash], not a boolean"},
		{"env value", "[plugins.bash]\nenv = { A = 1 }\n", 2, "[plugins.bash.env] values must be strings: A is an integer"},
		{"date", "[log]\nfile = 1979-05-27T07:32:00Z\n", 2, "file must be a string, not a date-time"},
		// The toml package's syntax messages, as riot shows them.
		{"no value", "[permissions]\nmode = \n", 2, `TOML syntax, after permissions.mode: expected value but found '\n' instead`},
		{"open string", "state_dir = \"x\n", 1, "TOML syntax, after state_dir: strings cannot contain newlines"},
		{"duplicate key", "state_dir = \"a\"\nstate_dir = \"b\"\n", 2, `TOML syntax, after state_dir: Key 'state_dir' has already been defined.`},
		{"open table", "[limits\n", 2, `TOML syntax: expected '.' or ']' to end table name, but got '\n' instead`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ce := configErr(t, tc.body)
			if ce.Source.Line != tc.line || ce.Msg != tc.msg {
				t.Fatalf("got line %d %q\nwant line %d %q", ce.Source.Line, ce.Msg, tc.line, tc.msg)
			}
		})
	}
}

// Arrays of tables are checked element by element.
func TestConfigArrayOfTablesTypes(t *testing.T) {
	for _, tc := range []struct{ body, msg string }{
		{"[[hooks.PreToolUse]]\ncommand = 5\n", "command must be a string, not an integer"},
		{"[hooks]\nPreToolUse = \"x\"\n", "PreToolUse must be an array of tables, [[hooks.PreToolUse]], not a string"},
		{"[hooks]\nPreToolUse = [1]\n", "PreToolUse[0] must be a table, not an integer"},
		{"[[hooks.PostToolUse]]\ncommand = \"x\"\nfail_closed = \"yes\"\n", "fail_closed must be true or false, not a string"},
	} {
		if ce := configErr(t, tc.body); ce.Msg != tc.msg {
			t.Errorf("%q: got %q, want %q", tc.body, ce.Msg, tc.msg)
		}
	}
}
