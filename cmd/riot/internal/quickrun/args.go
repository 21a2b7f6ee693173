package quickrun

import (
	"strings"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
)

// Invocation is a `riot run` or `riot call` command line as cobra reads
// it. Parse reads only spellings whose meaning it is sure of; anything
// else goes to cobra, which says what is wrong with it
// (FuzzQuickParsesAsCobra holds the two to the same reading).
type Invocation struct {
	// Command is "run" or "call".
	Command string
	Session string
	Cwd     string
	Config  string
	// Format is run's --format ("anthropic" unless given); JSON is call's
	// --json.
	Format string
	JSON   bool
	Quiet  bool
	Daemon bool
	// Flags are the permission flags and --add-dir (Flags.ConfigFile is
	// left to the caller, which resolves Config).
	Flags ident.Flags
	// Args are the command's arguments: run's file (- or none for stdin),
	// or call's tool and input (- for stdin, none for {}).
	Args []string
}

// Parse reads args, os.Args[1:], as a `riot run` or `riot call` command
// line; ok is false for any other command, and for any spelling it leaves
// to cobra: a flag it does not know (help among them) or that is not the
// command's, a value that starts with a dash, a string flag given twice,
// a bool flag given a value, --, an empty argument, or a number of
// arguments the command does not take.
func Parse(args []string) (inv Invocation, ok bool) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "call") {
		return Invocation{}, false
	}
	inv.Command = args[0]
	seen := map[string]bool{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-q":
			inv.Quiet = true
			continue
		case a == "":
			return Invocation{}, false // a file or tool named "", not stdin
		case a == "-" || !strings.HasPrefix(a, "-"):
			inv.Args = append(inv.Args, a)
			continue
		case !strings.HasPrefix(a, "--") || a == "--":
			return Invocation{}, false
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		switch {
		case name == "quiet" || name == "daemon" || name == "json" && inv.Command == "call":
			if hasValue {
				return Invocation{}, false
			}
			inv.Quiet = inv.Quiet || name == "quiet"
			inv.Daemon = inv.Daemon || name == "daemon"
			inv.JSON = inv.JSON || name == "json"
			continue
		case name == "format" && inv.Command == "run":
		case name == "session", name == "cwd", name == "config", name == "mode", name == "allow", name == "deny", name == "ask", name == "add-dir":
		default:
			return Invocation{}, false
		}
		if !hasValue {
			i++
			if i == len(args) || strings.HasPrefix(args[i], "-") {
				return Invocation{}, false
			}
			value = args[i]
		}
		switch name {
		case "allow":
			inv.Flags.Allow = append(inv.Flags.Allow, value)
		case "deny":
			inv.Flags.Deny = append(inv.Flags.Deny, value)
		case "ask":
			inv.Flags.Ask = append(inv.Flags.Ask, value)
		case "add-dir":
			inv.Flags.AddDirs = append(inv.Flags.AddDirs, value)
		default:
			if seen[name] {
				return Invocation{}, false
			}
			seen[name] = true
			*inv.stringFlag(name) = value
		}
	}
	// run takes at most a file; call a tool, and at most an input.
	if n := len(inv.Args); inv.Command == "run" && n > 1 || inv.Command == "call" && (n < 1 || n > 2) {
		return Invocation{}, false
	}
	if inv.Command == "run" && !seen["format"] {
		inv.Format = "anthropic"
	}
	return inv, true
}

func (inv *Invocation) stringFlag(name string) *string {
	switch name {
	case "session":
		return &inv.Session
	case "cwd":
		return &inv.Cwd
	case "config":
		return &inv.Config
	case "mode":
		return &inv.Flags.Mode
	}
	return &inv.Format
}
