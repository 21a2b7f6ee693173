package main

import (
	"bytes"
	"strings"
	"testing"
)

// A tree that holds one command behaves as the whole tree does for that
// command: the same help, the same flag errors, and the root's flags.
func TestOneCommandTreeActsAsTheWholeTree(t *testing.T) {
	exec := func(only string, args []string) (string, string) {
		var out, errw bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errw}
		root := a.rootCommand(only)
		root.SetArgs(args)
		msg := ""
		if err := root.Execute(); err != nil {
			msg = err.Error()
		}
		return out.String() + errw.String(), msg
	}
	for _, c := range commands() {
		if got := commandIn([]string{c.name, "x"}); got != c.name {
			t.Errorf("commandIn(%s x) = %q", c.name, got)
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "--no-such-flag"}, {c.name, "--mode"}} {
			wholeOut, wholeErr := exec("", args)
			oneOut, oneErr := exec(c.name, args)
			if wholeOut != oneOut || wholeErr != oneErr {
				t.Errorf("riot %s: the whole tree says %q (error %q), the one-command tree %q (error %q)",
					strings.Join(args, " "), wholeOut, wholeErr, oneOut, oneErr)
			}
		}
	}
	// Only a command's own name picks it: anything else gets the whole tree.
	for _, args := range [][]string{nil, {"--mode", "plan", "run"}, {"help", "run"}, {"completion", "bash"}, {"__complete", "run", ""}, {"ru"}, {"Run"}} {
		if got := commandIn(args); got != "" {
			t.Errorf("commandIn(%q) = %q, want the whole tree", args, got)
		}
	}
	a := &app{}
	if got := len(a.rootCommand("").Commands()); got != len(commands())+1 {
		t.Errorf("the whole tree has %d commands, want riot's %d and completion", got, len(commands()))
	}
}
