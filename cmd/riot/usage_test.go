package main_test

import (
	"strings"
	"testing"
)

// A turn that is JSON but not a turn is malformed: exit 2 with one line
// saying what riot expected and what it found, never an empty turn.
func TestRunRejectsNonTurns(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ format, in, want string }{
		{"anthropic", `null`, "the turn is null; give a JSON array of tool_use blocks"},
		{"anthropic", `[null]`, "block 0 is null; each block is an object"},
		{"anthropic", `[{}]`, `block 0 has no "type" string`},
		{"anthropic", `5`, "the turn is a number"},
		{"anthropic", `{"content":5}`, "the message has no content array"},
		{"anthropic", `[{"type":"tool_use","id":"a","name":"Read","input":[1]}]`, "block 0 (a): input is an array; a tool_use's input is a JSON object"},
		{"anthropic", `[{"type":"tool_use","id":1,"name":"Read"}]`, "block 0 is a tool_use without an id or a name"},
		{"openai", `null`, "the turn is null; give a JSON array of tool_calls"},
		{"openai", `[null]`, "tool_calls[0] is null"},
		{"openai", `[{}]`, "tool_calls[0] has no id or no function.name"},
		{"openai", `[{"id":"a","function":{"name":"Read","arguments":5}}]`, "tool_calls[0] (a): function.arguments is a number"},
	} {
		r := e.riot(tc.in, "run", "--format", tc.format)
		r.want(t, 2, "malformed turn: "+tc.want)
		oneLine(t, r)
	}
}

// JSON syntax errors say where, in riot's words: never encoding/json's
// "invalid character … in literal null" or a Go type.
func TestRunSyntaxMessagesInOwnWords(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ in, want string }{
		{"nope", `the turn is not valid JSON: "o" at line 1, column 2 cannot stand there`},
		{"[1,", "it ends early, at line 1, column 4"},
		{`[] x`, "more text follows the JSON value, at line 1, column 4"},
		{"[\n  {\"a\":é}]", `"é" at line 2, column 8`},
		{`{"content":[1]}`, "block 0 is a number"},
	} {
		r := e.riot(tc.in, "run")
		r.want(t, 2, tc.want)
		oneLine(t, r)
		for _, raw := range []string{"invalid character", "unmarshal", "Go value", "main."} {
			if strings.Contains(r.stderr, raw) {
				t.Errorf("%q: raw library text %q in %q", tc.in, raw, r.stderr)
			}
		}
	}
}

// From the command line a bad input and an unknown tool are the caller's
// mistakes: usage errors, exit 2, before anything runs.
func TestCallUsageErrors(t *testing.T) {
	e := newEnv(t)
	e.riot("", "call", "Read", "{bad json").want(t, 2, `the input of Read is not valid JSON: "b" at line 1, column 2`)
	e.riot("", "call", "Read", "[]").want(t, 2, "the input of Read is an array; give a JSON object")
	e.riot("", "call", "Reed", "{}").want(t, 2, `there is no enabled tool named "Reed"; did you mean "Read"?`, "The tools are: Bash, ")
	e.riot("", "explain", "Reed", "{}").want(t, 2, `there is no enabled tool named "Reed"; did you mean "Read"?`)
	e.riot("", "explain", "Read", "{bad").want(t, 2, "the input of Read is not valid JSON")
	// A tool hidden by a bare deny rule is known: calling it is denied.
	e.riot("", "--deny", "Bash", "call", "Bash", `{"command":"ls"}`).want(t, 1, "denied by the rule `Bash`")
	// riot run keeps its contract: the turn ran, the unknown tool is in a result.
	e.riot(`[{"type":"tool_use","id":"a","name":"Nope","input":{}}]`, "run").want(t, 0, `There is no tool named \"Nope\"`)
}

// A wrong argument count says what the command takes, with its usage line.
func TestArgumentCountInOwnWords(t *testing.T) {
	e := newEnv(t)
	r := e.riot("", "call")
	r.want(t, 2, "riot call takes TOOL [JSON|-], but was given no arguments", "usage: riot call TOOL [JSON|-] [flags]", "riot call --help")
	if strings.Contains(r.stderr, "arg(s)") {
		t.Fatalf("cobra's text: %s", r.stderr)
	}
	e.riot("", "tools", "x").want(t, 2, `riot tools takes no arguments, but was given 1 ("x")`, "usage: riot tools [flags]")
	e.riot("", "call", "a", "b", "c").want(t, 2, `but was given 3 ("a" "b" "c")`)
	e.riot("", "tols").want(t, 2, `riot has no command "tols"; did you mean "tools"?`)
	e.riot("", "call", "--bogus").want(t, 2, "riot call has no flag --bogus", "usage: riot call")
	e.riot("", "tools", "-z").want(t, 2, "riot tools has no flag -z")
	// Flag values in riot's words, never strconv's.
	r = e.riot("", "--quiet=x", "tools")
	r.want(t, 2, `--quiet takes true or false, not "x"`)
	if strings.Contains(r.stderr, "strconv") {
		t.Fatalf("strconv's text: %s", r.stderr)
	}
	e.riot("", "tools", "--mode").want(t, 2, "--mode needs a value: permission mode")
}

func oneLine(t *testing.T, r result) {
	t.Helper()
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n > 0 || r.stdout != "" {
		t.Errorf("want one line on stderr and nothing on stdout, got stdout %q stderr %q", r.stdout, r.stderr)
	}
}

// A config value of the wrong type is named in riot's words, with the
// file and line, never as a Go type.
func TestConfigTypeErrorsInOwnWords(t *testing.T) {
	e := newEnv(t)
	p := e.write(".riot/config.toml", "state_dir = 5\n")
	e.riot("", "tools").want(t, 2, "riot: config: "+p+":1: state_dir must be a string, not an integer")
	e.write(".riot/config.toml", "[permissions]\nallow = \"x\"\n")
	e.riot("", "tools").want(t, 2, p+`:2: allow must be an array of strings, such as ["a", "b"], not a string`)
}

// A file that cannot be read says why in words, not as Go's "open x: …".
func TestRunFileReasons(t *testing.T) {
	e := newEnv(t)
	e.riot("", "run", "nope.json").want(t, 2, "riot: cannot read nope.json: it does not exist; give a readable file, or - for stdin")
	e.riot("", "run", ".").want(t, 2, "riot: cannot read .: it is a directory")
}
