package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/cmd/riot/internal/quickrun"
)

// Whatever command line the quick path reads as `riot run`, cobra reads
// the same: every flag, the format and the file. (What it declines is
// cobra's alone, and needs no agreement.)
func FuzzQuickParsesAsCobra(f *testing.F) {
	for _, s := range []string{
		"--session\x00S\x00turn.json", "--session=S\x00-", "-q\x00--session\x00S", "--format\x00openai\x00--session\x00S",
		"--allow\x00Bash(ls)\x00--allow=Read\x00--session\x00S", "--session\x00S\x00--session\x00T", "--quiet=false\x00--session\x00S",
		"--session\x00-q", "--\x00--session", "a\x00b", "--cwd\x00/x\x00--config=c.toml\x00--add-dir\x00d\x00--mode\x00plan\x00--daemon",
		"--session=\x00x", "-h", "--session", "--deny\x00Bash\x00--ask\x00Edit\x00--session\x00S\x00f", "--format=xml",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := append([]string{"run"}, strings.Split(line, "\x00")...)
		inv, ok := quickrun.Parse(args)
		if !ok {
			return
		}
		a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		root := a.rootCommand("run")
		cmd, rest, err := root.Find(args)
		if err != nil || cmd.Name() != "run" {
			t.Fatalf("%q: quick reads run, cobra finds %v (%v)", args, cmd, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%q: quick reads %+v, cobra refuses: %v", args, inv, err)
		}
		files := cmd.Flags().Args()
		if err := cmd.ValidateArgs(files); err != nil {
			t.Fatalf("%q: quick reads %+v, cobra refuses the arguments: %v", args, inv, err)
		}
		format, _ := cmd.Flags().GetString("format")
		file := ""
		if len(files) == 1 {
			file = files[0]
		}
		if inv.Session != a.session || inv.Cwd != a.cwd || inv.Config != a.configFile || inv.Flags.Mode != a.mode ||
			!slices.Equal(inv.Flags.Allow, a.allow) || !slices.Equal(inv.Flags.Deny, a.deny) || !slices.Equal(inv.Flags.Ask, a.ask) ||
			!slices.Equal(inv.Flags.AddDirs, a.addDirs) || inv.Quiet != a.quiet || inv.Daemon != a.daemon || inv.Format != format || inv.File != file {
			t.Fatalf("%q: quick reads %+v; cobra session %q cwd %q config %q mode %q allow %q deny %q ask %q add-dir %q quiet %v daemon %v format %q file %q",
				args, inv, a.session, a.cwd, a.configFile, a.mode, a.allow, a.deny, a.ask, a.addDirs, a.quiet, a.daemon, format, file)
		}
	})
}
