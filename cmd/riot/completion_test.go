package main_test

import (
	"strings"
	"testing"
)

// Shell completion completes tool names, modes and formats (through
// cobra's __complete, what the generated scripts call).
func TestCompletion(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"call", ""}, []string{"Bash\tRuns a shell command", "Read\t", "Grep\t"}},
		{[]string{"explain", "Re"}, []string{"Read\t"}},
		{[]string{"--mode", ""}, []string{"default\n", "acceptEdits\n", "bypassPermissions\n"}},
		{[]string{"call", "--mode", "pl"}, []string{"plan\n"}},
		{[]string{"tools", "--format", ""}, []string{"anthropic\n", "openai\n"}},
		{[]string{"run", "--format", ""}, []string{"openai\n"}},
	} {
		r := e.riot("", append([]string{"__complete"}, tc.args...)...)
		r.want(t, 0, tc.want...)
		if strings.Contains(r.stdout, "riot: warning") {
			t.Errorf("%v: warnings in completions: %s", tc.args, r.stdout)
		}
	}
	e.riot("", "completion", "bash").want(t, 0, "__start_riot")
}

// The --mode flag's help lists the modes as config.Modes has them.
func TestModeFlagHelp(t *testing.T) {
	newEnv(t).riot("", "--help").want(t, 0, "permission mode: default, acceptEdits, plan, auto, dontAsk or bypassPermissions")
}
