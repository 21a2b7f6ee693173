package ignore

import (
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/plugins/grep/internal/fsys"
)

// The ignore files ripgrep reads in every directory, strongest first.
const (
	rgIgnoreFile  = ".rgignore"
	dotIgnoreFile = ".ignore"
	gitIgnoreFile = ".gitignore"
)

// Dir is the ignore state of one directory: the rules of its own ignore
// files and a link to its parent's. A directory with no ignore files and
// no .git shares its parent's Dir. A Dir never changes once made, so the
// goroutines of a parallel walk share it freely.
type Dir struct {
	parent *Dir
	// path is absolute and clean.
	path string

	custom  *Rules // .rgignore
	ignore  *Rules // .ignore
	git     *Rules // .gitignore
	exclude *Rules // .git/info/exclude
	global  *Rules // the global excludes file, on repository roots only
	// globalRules is the global excludes file, for the Dirs made below.
	globalRules *Rules

	// hasGit: this directory holds .git, so it is a repository root.
	hasGit bool
	// anyGit: this directory or an ancestor is a repository root. git's
	// own ignore files apply only then, as in ripgrep 13 without
	// --no-require-git.
	anyGit bool
	// anyRules: some rule of this directory or an ancestor may apply; a
	// tree without ignore files pays nothing per path.
	anyRules bool
}

// Root returns the Dir of root, an absolute directory, with the ignore
// files of every ancestor loaded too: ripgrep applies the .gitignore of
// the repository root when a search starts in a subdirectory. global is
// the global git excludes file's rules, or nil.
func Root(root string, global *Rules) *Dir {
	root = filepath.Clean(root)
	var chain []string
	for p := root; ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var d *Dir
	for i := len(chain) - 1; i >= 0; i-- {
		d = d.child(chain[i], "", global)
	}
	return d
}

// Child returns the Dir of path, a subdirectory of d, reading its ignore
// files.
func (d *Dir) Child(path string) *Dir {
	return d.child(path, "", d.globalRules)
}

// ChildListed is Child given first, the least name in byte order among
// the directory's entries other than subdirectories. An ignore file whose
// name sorts before first is missing or a directory, which holds no rules
// either, so it is not looked for: in most directories first sorts after
// every ignore file's name, and each failed open costs a system call.
func (d *Dir) ChildListed(path, first string) *Dir {
	return d.child(path, first, d.globalRules)
}

func (d *Dir) child(path, first string, global *Rules) *Dir {
	c := Dir{parent: d, path: path, globalRules: global}
	c.custom = readListed(path, rgIgnoreFile, first)
	c.ignore = readListed(path, dotIgnoreFile, first)
	if exists, isDir := fsys.LstatIn(path, ".git"); exists {
		c.hasGit = true
		if isDir {
			c.exclude = ReadRules(filepath.Join(path, ".git", "info", "exclude"))
		}
		c.global = global
	}
	c.anyGit = c.hasGit || (d != nil && d.anyGit)
	if c.anyGit {
		// Outside a repository .gitignore is not read at all.
		c.git = readListed(path, gitIgnoreFile, first)
	}
	if d != nil && c.custom == nil && c.ignore == nil && c.git == nil && !c.hasGit {
		// Nothing of its own, as in most directories: the parent's Dir
		// says the same of every path (Match skips such levels anyway).
		return d
	}
	c.anyRules = c.custom != nil || c.ignore != nil ||
		(c.anyGit && (c.git != nil || c.exclude != nil || c.global != nil)) ||
		(d != nil && d.anyRules)
	own := c // a copy, so that c stays on the stack when d is returned
	return &own
}

// readListed is readRulesIn(dir, name), knowing that no entry of dir but
// a subdirectory sorts before first ("" when nothing is known).
func readListed(dir, name, first string) *Rules {
	if name < first {
		return nil
	}
	return readRulesIn(dir, name)
}

// HasRules reports whether any ignore rule may apply below d.
func (d *Dir) HasRules() bool { return d.anyRules }

// Path is the absolute path of the directory whose ignore files or .git
// made d: a directory with neither shares its parent's Dir.
func (d *Dir) Path() string { return d.path }

// Match says whether path, an absolute path below d's directory, is
// ignored. The rules are ripgrep's: each kind of file is searched from the
// nearest directory up and the first rule that matches decides for that
// kind; then .rgignore beats .ignore, which beats .gitignore, which beats
// .git/info/exclude, which beats the global excludes. git's files stop at
// the repository root: a .gitignore above it does not apply.
func (d *Dir) Match(path string, isDir bool) Match {
	if d == nil || !d.anyRules {
		return None
	}
	var mCustom, mIgnore, mGit, mExclude, mGlobal Match
	sawGit := false
	for x := d; x != nil; x = x.parent {
		if x.custom == nil && x.ignore == nil && x.git == nil && !x.hasGit {
			continue // nothing here (exclude needs .git); most directories
		}
		rel, ok := relTo(x.path, path)
		if !ok {
			continue
		}
		if mCustom == None {
			mCustom = x.custom.Match(rel, isDir)
		}
		if mIgnore == None {
			mIgnore = x.ignore.Match(rel, isDir)
		}
		if d.anyGit && !sawGit {
			if mGit == None {
				mGit = x.git.Match(rel, isDir)
			}
			if mExclude == None {
				mExclude = x.exclude.Match(rel, isDir)
			}
			if x.hasGit {
				mGlobal = x.global.Match(rel, isDir)
			}
		}
		sawGit = sawGit || x.hasGit
	}
	for _, m := range [...]Match{mCustom, mIgnore, mGit, mExclude, mGlobal} {
		if m != None {
			return m
		}
	}
	return None
}

// relTo returns path relative to dir, both absolute and clean.
func relTo(dir, path string) (string, bool) {
	if dir == "/" {
		return path[1:], len(path) > 1 && path[0] == '/'
	}
	if len(path) <= len(dir) || path[len(dir)] != '/' || !strings.HasPrefix(path, dir) {
		return "", false
	}
	return path[len(dir)+1:], true
}
