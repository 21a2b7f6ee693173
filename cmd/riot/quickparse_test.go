package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/cmd/riot/internal/quick"
	"github.com/riot-tools/riot/cmd/riot/internal/quickrun"
	"github.com/riot-tools/riot/internal/procguard"
)

// Whatever command line the quick path reads as `riot run` or `riot
// call`, cobra reads the same: every flag, and the arguments. (What it
// declines is cobra's alone, and needs no agreement.)
func FuzzQuickParsesAsCobra(f *testing.F) {
	for _, s := range []string{
		"--session\x00S\x00turn.json", "--session=S\x00-", "-q\x00--session\x00S", "--format\x00openai\x00--session\x00S",
		"--allow\x00Bash(ls)\x00--allow=Read\x00--session\x00S", "--session\x00S\x00--session\x00T", "--quiet=false\x00--session\x00S",
		"--session\x00-q", "--\x00--session", "a\x00b", "--cwd\x00/x\x00--config=c.toml\x00--add-dir\x00d\x00--mode\x00plan\x00--daemon",
		"--session=\x00x", "-h", "--session", "--deny\x00Bash\x00--ask\x00Edit\x00--session\x00S\x00f", "--format=xml",
		"Read\x00{}\x00--json\x00--session\x00S", "Bash\x00-\x00--session=S\x00--daemon", "--json=true\x00Read",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, call bool) {
		command := "run"
		if call {
			command = "call"
		}
		args := append([]string{command}, strings.Split(line, "\x00")...)
		inv, ok := quickrun.Parse(args)
		if !ok {
			return
		}
		a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		root := a.rootCommand(command)
		cmd, rest, err := root.Find(args)
		if err != nil || cmd.Name() != command {
			t.Fatalf("%q: quick reads %s, cobra finds %s (%v)", args, command, cmd.Name(), err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%q: quick reads %+v, cobra refuses: %v", args, inv, err)
		}
		positional := cmd.Flags().Args()
		if err := cmd.ValidateArgs(positional); err != nil {
			t.Fatalf("%q: quick reads %+v, cobra refuses the arguments: %v", args, inv, err)
		}
		format, _ := cmd.Flags().GetString("format") // run's; "" for call
		asJSON, _ := cmd.Flags().GetBool("json")     // call's; false for run
		if inv.Session != a.session || inv.Cwd != a.cwd || inv.Config != a.configFile || inv.Flags.Mode != a.mode ||
			!slices.Equal(inv.Flags.Allow, a.allow) || !slices.Equal(inv.Flags.Deny, a.deny) || !slices.Equal(inv.Flags.Ask, a.ask) ||
			!slices.Equal(inv.Flags.AddDirs, a.addDirs) || inv.Quiet != a.quiet || inv.Daemon != a.daemon || inv.Format != format ||
			inv.JSON != asJSON || !slices.Equal(inv.Args, positional) {
			t.Fatalf("%q: quick reads %+v; cobra session %q cwd %q config %q mode %q allow %q deny %q ask %q add-dir %q quiet %v daemon %v format %q json %v args %q",
				args, inv, a.session, a.cwd, a.configFile, a.mode, a.allow, a.deny, a.ask, a.addDirs, a.quiet, a.daemon, format, asJSON, positional)
		}
	})
}

// The quick path leaves a process guard alone by the guard's own variable,
// which it names without importing procguard (quick.GuardEnv).
func TestQuickKnowsTheGuardsVariable(t *testing.T) {
	if quick.GuardEnv != procguard.Env {
		t.Fatalf("quick.GuardEnv is %q, procguard.Env %q", quick.GuardEnv, procguard.Env)
	}
}
