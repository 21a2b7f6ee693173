package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Which config counts (issue 29, class 7). git runs programs named in every config it reads for a command, not
// only the top repository's: the config.worktree beside it, the files those include, and for status, diff and
// any patch with --submodule=diff, the config of each populated submodule, recursively, which a child git reads
// (a submodule's git dir under .git/modules, or a repository embedded in the work tree). So riot reads all of
// them, as git finds them: through the index's gitlinks, which is how git itself finds submodules (a nested
// repository the index does not record is only an untracked directory to git, and its config is not read), and
// every git dir under .git/modules, populated or not. A program setting in any of them makes the call not
// read-only; a source riot cannot read, or more repositories or nesting than it reads, asks. This is the
// analysis alone (choice (a) of the issue): forcing the features off in the command's environment (choice (b))
// cannot name every filter and textconv driver a .gitattributes file may select, and would change the
// commands riot runs, so it is not done.
//
// The user's global and system config are the user's own: riot's protected paths keep commands from writing
// them, and a git the user set up with credential helpers, a pager or git-lfs filters there must not turn
// every git command into a question. Their own settings do not count, but a file they include that lies in
// the workspace roots, where commands write, counts like the repository's, and so does a $GIT_CONFIG_GLOBAL or
// $GIT_CONFIG_SYSTEM there.

// maxRepos bounds the repositories (the top one, submodules, git dirs under .git/modules) read for one call,
// and maxRepoDepth how deep submodules nest; past either, the call asks.
const (
	maxRepos     = 64
	maxRepoDepth = 8
	// maxModuleEntries bounds the entries listed under the .git/modules directories of one call.
	maxModuleEntries = 4096
)

// gitScan is a walk over every repository a git command may read the config of.
//
// The hit is a setting, or a hook file (a gitSetting with no key), that makes git run a program.
type gitScan struct {
	seen    map[string]bool
	entries int
	// hit is the first setting that makes git run a program; problem why the walk could not finish.
	hit     *gitSetting
	problem string
}

// scanRepos walks repo and every submodule git would look into, and returns the first setting that makes git
// run a program, or why riot cannot tell.
func scanRepos(repo *gitRepo) (hit *gitSetting, problem string) {
	s := &gitScan{seen: map[string]bool{}}
	s.visit(repo, 0)
	return s.hit, s.problem
}

func (s *gitScan) done() bool { return s.hit != nil || s.problem != "" }

func (s *gitScan) visit(r *gitRepo, depth int) {
	if s.done() {
		return
	}
	if r.problem != "" {
		s.problem = r.problem
		return
	}
	id := physical(r.gitDir)
	if s.seen[id] {
		return
	}
	s.seen[id] = true
	if len(s.seen) > maxRepos {
		s.problem = fmt.Sprintf("The repository has more submodules than riot reads (%d), so it cannot tell what git would run.", maxRepos)
		return
	}
	for i, st := range r.config {
		if gitProgramKey(st.key, st.value) {
			s.hit = &r.config[i]
			return
		}
	}
	// Not config, but alike: git runs this hook whenever it writes the index, which status, diff and describe
	// --dirty do to refresh it (the other hooks run only for commands that are not read-only).
	if hook := filepath.Join(r.commonDir, "hooks", indexHook); lexists(hook) {
		s.hit = &gitSetting{file: hook}
		return
	}
	if depth == maxRepoDepth {
		s.problem = fmt.Sprintf("Submodules nest deeper than riot reads (%d levels) at %s, so it cannot tell what git would run.", maxRepoDepth, r.gitDir)
		return
	}
	if r.top != "" {
		links, ok := r.gitlinks()
		if !ok {
			s.problem = fmt.Sprintf("riot cannot read the index of the repository at %s to find the submodules git would look into, so it cannot tell what git would run.", r.top)
			return
		}
		for _, l := range links {
			// A populated submodule has a .git; an empty directory is one git does not look into.
			if sub := openRepo(filepath.Join(r.top, l)); sub != nil {
				s.visit(sub, depth+1)
			}
		}
	}
	s.modules(filepath.Join(r.commonDir, "modules"), depth)
}

// modules visits every git dir below dir (a submodule's name may hold slashes, so its git dir may lie several
// levels down). A directory that holds HEAD or config is taken for a git dir.
func (s *gitScan) modules(dir string, depth int) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) || s.done() {
		return
	}
	if err != nil {
		s.problem = fmt.Sprintf("riot cannot list %s, where git keeps submodules, so it cannot tell what git would run.", dir)
		return
	}
	for _, e := range ents {
		if s.entries++; s.entries > maxModuleEntries {
			s.problem = fmt.Sprintf("%s holds more entries than riot reads, so it cannot tell what git would run.", dir)
			return
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if exists(filepath.Join(p, "HEAD")) || exists(filepath.Join(p, "config")) {
			r := &gitRepo{gitDir: p}
			r.load() // core.worktree in its config names its work tree, whose index may hold further gitlinks
			s.visit(r, depth+1)
		} else {
			s.modules(p, depth+1)
		}
		if s.done() {
			return
		}
	}
}

// userConfigHit reads the user's global and system config files for the includes they name, and returns the
// first setting that makes git run a program in a file that inRoots reports true for, but for the files at
// git's own places under home and /etc, which riot protects; or why riot cannot tell (more includes than it
// reads). So a $GIT_CONFIG_GLOBAL in the workspace counts, ~/.gitconfig does not even under --add-dir ~.
func userConfigHit(files []string, home string, inRoots func(string) bool) (*gitSetting, string) {
	own := map[string]bool{"/etc/gitconfig": true}
	if home != "" {
		own[filepath.Join(home, ".gitconfig")] = true
		own[filepath.Join(home, ".config", "git", "config")] = true
	}
	type source struct {
		path     string
		included bool
	}
	var queue []source
	for _, f := range files {
		queue = append(queue, source{path: f})
	}
	seen := map[string]bool{}
	for i := 0; i < len(queue); i++ {
		f := queue[i]
		if seen[f.path] {
			continue
		}
		seen[f.path] = true
		if len(seen) > len(files)+maxIncludes {
			return nil, "The user's git config includes more files than riot reads, so it cannot tell what git would run."
		}
		settings, err := readGitConfig(f.path)
		if err != nil {
			continue // git cannot read it either, and stops
		}
		counts := (f.included || !own[f.path]) && inRoots(f.path)
		for j, st := range settings {
			if isInclude(st.key) {
				queue = append(queue, source{path: includePath(st.value, f.path), included: true})
			}
			if counts && gitProgramKey(st.key, st.value) {
				return &settings[j], ""
			}
		}
	}
	return nil, ""
}

// userGitConfigs are the global and system config files git reads in environ, as git finds them. The system
// file is listed even under GIT_CONFIG_NOSYSTEM: reading more only makes the analysis stricter.
func userGitConfigs(environ []string, home string) []string {
	get := func(name string) (string, bool) {
		for _, kv := range environ {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	var out []string
	if v, ok := get("GIT_CONFIG_GLOBAL"); ok {
		out = append(out, v)
	} else {
		xdg, _ := get("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			out = append(out, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			out = append(out, filepath.Join(home, ".gitconfig"))
		}
	}
	if v, ok := get("GIT_CONFIG_SYSTEM"); ok {
		out = append(out, v)
	} else {
		out = append(out, "/etc/gitconfig")
	}
	var files []string
	for _, f := range out {
		if f != "" && f != "/dev/null" {
			files = append(files, f)
		}
	}
	return files
}

// indexHook is the hook git runs when it writes the index.
const indexHook = "post-index-change"

// lexists reports whether p exists, as a symlink (even a broken one) or anything else.
func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// physical is path with its symlinks resolved, or path when it cannot be.
func physical(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}
