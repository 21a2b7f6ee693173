package quickrun

import (
	"strings"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
)

// Invocation is a `riot run` command line as cobra reads it. Parse reads
// only spellings whose meaning it is sure of; anything else goes to cobra,
// which says what is wrong with it (TestQuickParsesAsCobra holds the two
// to the same reading).
type Invocation struct {
	Session string
	Cwd     string
	Config  string
	Format  string
	Quiet   bool
	Daemon  bool
	// Flags are the permission flags and --add-dir (Flags.ConfigFile is
	// left to the caller, which resolves Config).
	Flags ident.Flags
	// File is run's argument: a file, - for stdin, or "" for stdin.
	File string
}

// Parse reads args, os.Args[1:], as a `riot run` command line; ok is false
// for any other command, and for any spelling it leaves to cobra: a flag
// it does not know (help among them), a value that starts with a dash, a
// string flag given twice, a bool flag given a value, --, an empty
// argument, or more than one argument.
func Parse(args []string) (inv Invocation, ok bool) {
	if len(args) == 0 || args[0] != "run" {
		return Invocation{}, false
	}
	seen := map[string]bool{}
	var files []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-q":
			inv.Quiet = true
			continue
		case a == "":
			return Invocation{}, false // a file named "", not stdin
		case a == "-" || !strings.HasPrefix(a, "-"):
			files = append(files, a)
			continue
		case !strings.HasPrefix(a, "--") || a == "--":
			return Invocation{}, false
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		switch name {
		case "quiet", "daemon":
			if hasValue {
				return Invocation{}, false
			}
			inv.Quiet = inv.Quiet || name == "quiet"
			inv.Daemon = inv.Daemon || name == "daemon"
			continue
		case "session", "cwd", "config", "mode", "format", "allow", "deny", "ask", "add-dir":
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
	if len(files) > 1 {
		return Invocation{}, false
	}
	if len(files) == 1 {
		inv.File = files[0]
	}
	if !seen["format"] {
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
