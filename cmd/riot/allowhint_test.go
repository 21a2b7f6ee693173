package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The denial's advice, followed as printed in a trusted workspace: the rule
// added to .riot/config.toml does nothing until `riot trust`, and then the
// call is allowed.
func TestAllowRuleAdviceWorksAsPrinted(t *testing.T) {
	e := newEnv(t)
	e.riot("", "trust").want(t, 0, "trusted ")
	r := e.riot("", "call", "Bash", `{"command":"touch made","description":"make a file"}`)
	r.want(t, 1, "`Bash(touch:*)`", "the workspace's .riot/config.toml followed by `riot trust`")
	// The user edits the file by hand (not through e.write, which trusts).
	p := filepath.Join(e.ws, ".riot", "config.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("[permissions]\nallow = [\"Bash(touch:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.riot("", "call", "Bash", `{"command":"touch made","description":"make a file"}`)
	r.want(t, 1, "riot trust")
	if !strings.Contains(r.stderr, ".riot/config.toml") {
		t.Fatalf("the warning does not name the changed file: %s", r.stderr)
	}
	e.riot("", "trust").want(t, 0, "trusted ")
	e.riot("", "call", "Bash", `{"command":"touch made","description":"make a file"}`).want(t, 0)
	if _, err := os.Stat(filepath.Join(e.ws, "made")); err != nil {
		t.Fatal("the allowed call did not run")
	}
}
