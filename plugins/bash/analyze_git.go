package bash

import "strings"

// gitGlobal are the options allowed before the subcommand. Not -C, --git-dir or --work-tree (they move git, and
// our relative paths, elsewhere), -c/--config-env (configuration can name programs to run), --exec-path, -p.
var gitGlobal = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
	"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-replace-objects": true,
}

// gitCmd allows git status, log, diff, show, blame, ls-files, rev-parse and listing branches, without -c,
// --output (writes a file), --exec or --ext-diff (run programs). The operands of all but rev-parse and branch are
// reported as read paths, `rev:path` as path: revisions come along too, which is harmless over-approximation.
func gitCmd(w *walker, _ string, args []word) bool {
	i := 0
	for i < len(args) && gitGlobal[args[i].text] {
		i++
	}
	if i == len(args) {
		return false
	}
	sub, rest := args[i].text, args[i+1:]
	switch sub {
	case "status", "log", "diff", "show", "blame", "ls-files", "rev-parse", "branch":
	default:
		return false
	}
	ok := true
	afterDD := false
	for j, a := range rest {
		t := a.text
		if !afterDD && strings.HasPrefix(t, "-") {
			name, v, eq := strings.Cut(t, "=")
			ok = ok && name != "-c" && !is(name, "--output", "--exec", "--ext-diff")
			if is(name, "--contents") { // blame prints this file's contents
				if eq {
					w.readPath(word{text: v, lit: true})
				} else if j+1 < len(rest) {
					w.readPath(rest[j+1])
				}
			}
			afterDD = t == "--"
			continue
		}
		if sub != "rev-parse" && sub != "branch" {
			_, p, found := strings.Cut(t, ":")
			if !found || p == "" {
				p = t
			}
			a.text = p
			w.readPath(a)
		}
	}
	return ok && (sub != "branch" || gitBranchListing(rest))
}

// gitBranchListing reports whether `git branch` args only list branches: known listing flags, and operands only as
// patterns after --list/-l, or as the value of --contains and the like. Anything else may create, delete, rename,
// copy or re-track a branch.
func gitBranchListing(args []word) bool {
	list := false
	valueNext := false
	for _, a := range args {
		t := a.text
		name, _, eq := strings.Cut(t, "=")
		switch {
		case valueNext:
			valueNext = false
		case t == "-" || !strings.HasPrefix(t, "-"):
			if !list {
				return false
			}
		case branchValue[name]:
			valueNext = !eq
		case eq && branchEq[name], !eq && branchFlag[t]:
		case !strings.HasPrefix(t, "--") && strings.Trim(t[1:], "arvliq") == "":
			list = list || strings.Contains(t, "l")
		default:
			return false
		}
		list = list || t == "--list"
	}
	return true
}

var (
	branchFlag = map[string]bool{
		"--all": true, "--remotes": true, "--verbose": true, "--list": true, "--show-current": true,
		"--ignore-case": true, "--quiet": true, "--color": true, "--no-color": true, "--column": true,
		"--no-column": true, "--no-abbrev": true,
	}
	branchEq    = map[string]bool{"--color": true, "--column": true, "--abbrev": true}
	branchValue = map[string]bool{
		"--contains": true, "--no-contains": true, "--merged": true, "--no-merged": true, "--points-at": true,
		"--sort": true, "--format": true,
	}
)
