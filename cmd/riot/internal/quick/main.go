package quick

import (
	"os"
	"slices"
	"time"

	"github.com/riot-tools/riot/cmd/riot/internal/memo"
	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
)

// exitUsage is riot's exit status for a usage error, and for an error of
// the command's own, such as a failed write (cmd/riot's exitCode).
const exitUsage = 2

// GuardEnv marks a riot started as a process guard (internal/procguard's
// Env), which is no command line for a quick path whatever its arguments.
const GuardEnv = "RIOT_PROC_GUARD"

// Off reports whether the quick paths must leave every command line to
// the full commands: RIOT_QUICK=0, or a process guard.
func Off(getenv func(string) string) bool {
	return getenv(riotenv.QuickEnv) == "0" || getenv(GuardEnv) != ""
}

// Main answers args, os.Args[1:], from the memo when it can: `riot
// version`, `riot --version`, and `riot tools` with any arguments. ok says
// it did, and code is the exit status; when ok is false it printed
// nothing, and the full command runs.
func Main(args []string) (code int, ok bool) {
	if Off(os.Getenv) || len(args) == 0 {
		return 0, false
	}
	// An entry exists only where the full command stored one for exactly
	// these arguments: `riot tools`, with any flags, or a version alone.
	tools := slices.Contains(args, "tools")
	if !tools && (len(args) != 1 || args[0] != "version" && args[0] != "--version") {
		return 0, false
	}
	state, ok := riotenv.StateDir(os.Getenv)
	if !ok {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	wd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	out, ok := memo.Load(memo.Dir(state), MemoKey(exe, wd, os.Environ(), args), time.Now())
	if !ok {
		return 0, false
	}
	// As the full commands do: version ignores a failed write, and tools
	// returns it, which riot prints.
	if _, err := os.Stdout.Write(out); err != nil && tools {
		_, _ = os.Stderr.WriteString("riot: " + err.Error() + "\n")
		return exitUsage, true
	}
	return 0, true
}

// MemoKey is the memo's key of the invocation args in the working
// directory wd, with the executable exe and the environment environ; the
// full command stores its output under the same key. `riot version`
// depends on the executable alone.
func MemoKey(exe, wd string, environ []string, args []string) memo.Key {
	if !slices.Contains(args, "tools") {
		return memo.Key{Exe: exe, Args: args}
	}
	return memo.Key{Exe: exe, Dir: wd, Env: riotenv.ConfigEnv(environ), Args: args}
}
