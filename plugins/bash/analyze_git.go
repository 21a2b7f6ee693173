package bash

import (
	"fmt"
	"slices"
	"strings"
)

// gitGlobal are the options allowed before the subcommand. Not -C, --git-dir or --work-tree (they move git, and
// our relative paths, elsewhere), -c/--config-env (configuration can name programs to run), --exec-path, -p.
var gitGlobal = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
	"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-replace-objects": true,
}

// gitReadOnly are the subcommands that only read, given the flag checks below; gitHistory those among them that
// print file contents from the object store, which the chain's path subjects do not cover.
var (
	gitReadOnly = map[string]bool{
		"status": true, "log": true, "diff": true, "show": true, "blame": true, "ls-files": true, "rev-parse": true,
		"branch": true, "tag": true, "remote": true, "describe": true, "stash": true, "cat-file": true,
		"rev-list": true, "shortlog": true, "config": true, "reflog": true, "ls-tree": true, "grep": true,
	}
	// grep prints the contents of the tracked files (or of a revision's); reflog is log -g.
	gitHistory = map[string]bool{
		"log": true, "diff": true, "show": true, "cat-file": true, "stash": true, "grep": true, "reflog": true,
	}
	// gitNoPaths are the subcommands whose operands are never work tree paths.
	gitNoPaths = map[string]bool{
		"rev-parse": true, "branch": true, "tag": true, "remote": true, "describe": true, "stash": true,
		"rev-list": true, "config": true, "cat-file": true, "reflog": true, "ls-tree": true,
	}
)

// gitCmd allows the read-only subcommands without -c, --output (writes a file), --exec or --ext-diff (run
// programs), and listing forms of branch, tag, remote, stash and config. The operands of those that take paths
// are read paths; `rev:path` names path from the top level of the work tree (`rev:./path` from here). With an
// Env, the repository is found first (gitCheckRepo): its config may run programs, its git dir or work tree may
// lie outside the roots, and its index may track a denied file whose history a command would print.
func gitCmd(w *walker, _ string, args []word) bool {
	i := 0
	for i < len(args) && gitGlobal[args[i].text] {
		i++
	}
	// `git -C DIR` is `cd DIR && git`, for this command alone: the fence and the repository are DIR's.
	if i+1 < len(args) && args[i].text == "-C" {
		at := w.dirs
		defer func() { w.dirs = at }()
		if !cdCmd(w, "cd", args[i+1:i+2]) {
			return false
		}
		return gitCmd(w, "git", args[i+2:])
	}
	if i == len(args) {
		return false
	}
	sub, rest := args[i].text, args[i+1:]
	repo := w.gitCheckRepo(sub, rest)
	if !gitReadOnly[sub] {
		return false
	}
	ok := true
	afterDD := false
	for j, a := range rest {
		t := a.text
		if !afterDD && strings.HasPrefix(t, "-") {
			name, v, eq := strings.Cut(t, "=")
			// (-c here, after the subcommand, is the combined diff of log, diff and show, or a listing option; only
			// `git -c k=v` before the subcommand sets config, and gitGlobal does not allow it.)
			ok = ok && !abbrev(name, "--output", "--exec", "--ext-diff", "--textconv", "--filters")
			if sub == "grep" { // a pager on the matches; files outside the index, where no deny rule was checked
				ok = ok && !strings.HasPrefix(t, "-O") && !abbrev(name, "--open-files-in-pager", "--untracked", "--no-index")
			}
			if abbrev(name, "--output") {
				if eq {
					w.writePath(word{text: v, lit: true})
				} else if j+1 < len(rest) {
					w.writePath(rest[j+1])
				}
			}
			if abbrev(name, "--contents") { // blame prints this file's contents
				if eq {
					w.readPath(word{text: v, lit: true})
				} else if j+1 < len(rest) {
					w.readPath(rest[j+1])
				}
			}
			afterDD = t == "--"
			continue
		}
		if gitNoPaths[sub] && sub != "cat-file" && sub != "stash" {
			continue
		}
		w.gitOperand(a, repo, sub)
	}
	switch sub {
	case "branch":
		return ok && gitBranchListing(rest)
	case "tag":
		return ok && gitTagListing(rest)
	case "remote":
		return ok && gitRemoteListing(rest)
	case "stash":
		return ok && len(rest) > 0 && (rest[0].text == "list" || rest[0].text == "show")
	case "reflog": // show (the default), list and exists; not expire or delete, wherever git might take them
		return ok && !slices.ContainsFunc(rest, func(a word) bool { return a.text == "expire" || a.text == "delete" })
	case "config":
		return w.gitConfig(rest, repo) && ok
	}
	return ok
}

// gitOperand records an operand: `rev:path`, `:path` and `:N:path` name a path in the tree (from the top level,
// or from here with ./ or ../); any other operand may be a path here (a revision comes along too, which is a
// harmless over-approximation). cat-file and stash operands are only objects.
func (w *walker) gitOperand(a word, repo *gitRepo, sub string) {
	rev, p, found := strings.Cut(a.text, ":")
	if !found {
		if sub != "cat-file" && sub != "stash" {
			w.readPath(a)
		}
		return
	}
	if rev == "" && len(p) > 1 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' { // :N:path, a stage of the index
		p = p[2:]
	}
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == "." || p == ".." {
		a.text = p
		w.readPath(a)
		return
	}
	switch {
	case w.env == nil: // the text alone: the path as written
		if p == "" {
			p = a.text
		}
		a.text = p
		w.readPath(a)
	case repo == nil || repo.top == "":
		w.ask(fmt.Sprintf("`%s` names a path in a repository riot cannot find the work tree of, so it cannot check what it reads; running it needs the user's approval.", a.text))
	default:
		w.readPath(word{text: strings.TrimSuffix(repo.top, "/") + "/" + p, lit: true})
	}
}

// gitCheckRepo finds the repository the command acts on and asks when riot cannot vouch for it: git would run a
// program its config names; its git dir or work tree lies outside the roots; or the command prints history from
// a repository whose work tree is outside, or that tracks a denied file. Without an Env it does nothing.
func (w *walker) gitCheckRepo(sub string, rest []word) *gitRepo {
	if w.env == nil {
		return nil
	}
	if len(w.dirs) != 1 {
		w.ask("riot cannot tell which directory this git command runs in, so it cannot check the repository; running it needs the user's approval. Run the `cd` in a call of its own first.")
		return nil
	}
	if w.env.GitEnv != "" {
		w.ask(fmt.Sprintf("%s is set in the environment, so git would use a repository other than the one riot checks; running a git command needs the user's approval.", w.env.GitEnv))
		return nil
	}
	switch hit, problem := userConfigHit(w.env.GitConfigs, w.env.Home, w.inRootsPhysical); {
	case problem != "":
		w.deny()
		w.ask(problem + " Running it needs the user's approval.")
	case hit != nil:
		w.gitRunsProgram(hit)
	}
	repo := findRepo(w.dirs[0])
	if repo == nil {
		return nil // git refuses to run outside a repository (but for a few commands that read no history)
	}
	// Every config git reads for the command counts: the submodules' too (gitScan).
	hit, problem := scanRepos(repo)
	switch {
	case problem != "":
		w.deny()
		w.ask(problem + " Running it needs the user's approval.")
		return repo
	case hit != nil:
		w.gitRunsProgram(hit)
	}
	// A work tree inside the roots whose repository data lies outside (a .git file or linked worktree pointing
	// out, core.worktree) makes every git command read outside. (A workspace below the top level of its
	// repository is the usual case, and only history is judged for it, below.)
	for _, d := range []string{repo.gitDir, repo.commonDir} {
		if d != "" && !w.inRootsPhysical(d) && (repo.top == "" || w.inRootsPhysical(repo.top) || !within(d, repo.top)) {
			w.ask(fmt.Sprintf("This repository's git directory %s is outside the workspace, so git would read it; running a git command there needs the user's approval.", d))
			return repo
		}
	}
	history := gitHistory[sub] && (sub != "stash" || len(rest) > 0 && rest[0].text == "show")
	if (sub == "log" || sub == "reflog") && !gitLogPatch(rest) {
		history = false
	}
	if !history {
		return repo
	}
	if repo.top == "" || !w.inRootsPhysical(repo.top) {
		w.ask(fmt.Sprintf("`git %s` prints file contents from the history of a repository whose work tree (%s) is not inside the workspace, so running it needs the user's approval.", sub, orBare(repo.top)))
		return repo
	}
	if w.env.DeniedName == nil {
		return repo
	}
	names, ok := repo.tracked(w.env.Limit * 64)
	if !ok {
		w.ask(fmt.Sprintf("`git %s` prints file contents from history, and riot cannot read the repository's index to check that it tracks no denied file, so running it needs the user's approval.", sub))
		return repo
	}
	for _, n := range names {
		if abs := strings.TrimSuffix(repo.top, "/") + "/" + n; w.env.DeniedName(abs) {
			w.ask(fmt.Sprintf("`git %s` prints file contents from history, and the repository tracks %s, which a Read deny rule forbids, so running it needs the user's approval. Name the files to show, or use `git log` without -p.", sub, abs))
			break
		}
	}
	return repo
}

// gitRunsProgram makes the call not read-only, and asks, naming the file and the setting (or the hook).
func (w *walker) gitRunsProgram(s *gitSetting) {
	w.deny()
	if s.key == "" {
		w.ask(fmt.Sprintf("The git hook %s runs when git refreshes the index (git status, git diff), so no git command here is read-only; running it needs the user's approval.", s.file))
		return
	}
	w.ask(fmt.Sprintf("The git config file %s sets %s, which makes git run a program, so no git command here is read-only; running it needs the user's approval.", s.file, s.key))
}

func orBare(top string) string {
	if top == "" {
		return "none: a bare repository"
	}
	return top
}

// gitLogPatch reports whether log options print file contents: a patch, a line range, a combined or remerge
// diff of merges (-c, --cc, -m, --diff-merges, --remerge-diff, --dd), a binary patch, or the lines --check
// finds fault with.
func gitLogPatch(args []word) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		name, _, _ := strings.Cut(t, "=")
		if t == "-p" || t == "-u" || t == "-c" || t == "-m" || t == "--cc" || t == "--dd" ||
			strings.HasPrefix(t, "-L") || strings.HasPrefix(t, "-U") ||
			abbrev(name, "--patch", "--unified", "--patch-with-stat", "--patch-with-raw", "--full-diff", "--word-diff",
				"--diff-merges", "--remerge-diff", "--binary", "--check") {
			return true
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "pu") {
			return true // -p in a cluster such as -3p
		}
	}
	return false
}

// gitConfig allows the forms of `git config` that only read, and reports a write to the file the others change.
func (w *walker) gitConfig(args []word, repo *gitRepo) bool {
	readOnly := false
	file := ""
	for i := 0; i < len(args); i++ {
		switch t := args[i].text; t {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list", "--get-color",
			"--get-colorbool":
			readOnly = true
		case "--global":
			file = "~/.gitconfig"
		case "--system":
			file = "/etc/gitconfig"
		case "--file", "-f":
			if i+1 < len(args) {
				file = args[i+1].text
			}
		}
	}
	if readOnly {
		return true
	}
	if file == "" {
		file = ".git/config"
		if repo != nil && repo.commonDir != "" {
			file = repo.commonDir + "/config"
		}
	}
	w.writePath(word{text: file, lit: true, tilde: strings.HasPrefix(file, "~")})
	return false
}

// gitTagListing reports whether `git tag` args only list tags.
func gitTagListing(args []word) bool {
	list := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, _, eq := strings.Cut(t, "=")
		switch {
		case t == "-l" || t == "--list":
			list = true
		case strings.HasPrefix(t, "-n") && strings.Trim(t[2:], "0123456789") == "":
		case abbrev(name, "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"):
			if !eq {
				i++
			}
		case t == "--column" || t == "--no-column" || t == "-i" || t == "--ignore-case" || abbrev(name, "--color"):
		case !strings.HasPrefix(t, "-"):
			if !list {
				return false // `git tag NAME` creates a tag
			}
		default:
			return false
		}
	}
	return true
}

// gitRemoteListing reports whether `git remote` args only list remotes or print a URL.
func gitRemoteListing(args []word) bool {
	if len(args) == 0 || len(args) == 1 && (args[0].text == "-v" || args[0].text == "--verbose") {
		return true
	}
	return args[0].text == "get-url"
}

// abbrev reports whether option name is one of names or an abbreviation of one, as git and getopt_long accept
// ("--outp" for "--output"); unlike is, a longer option that merely starts with one ("--output-indicator-new")
// is a different option.
func abbrev(name string, names ...string) bool {
	for _, n := range names {
		if name == n || len(name) > 3 && strings.HasPrefix(name, "--") && strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
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

// within reports whether path is dir or below it, by their text.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
