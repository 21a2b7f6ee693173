package bash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Env is the world a command will run in, which AnalyzeIn looks at before it runs (at Prepare time): the
// directory, the home directory, the filesystem its globs expand against and the trees its recursive reads walk.
type Env struct {
	// Dir is the absolute directory the command starts in.
	Dir string
	// Home is $HOME, for ~; "" means ~ cannot be known.
	Home string
	// CDPath is $CDPATH: when set, a relative `cd` may land elsewhere.
	CDPath string
	// GitEnv names a git variable of the environment bash inherits that moves the repository (GIT_DIR,
	// GIT_WORK_TREE, GIT_COMMON_DIR, GIT_CONFIG*), or is "": git would not use the repository riot finds.
	GitEnv string
	// GitConfigs are the user's global and system git config files (userGitConfigs): their own settings are
	// the user's, but a file they include that lies in the roots counts like the repository's config.
	GitConfigs []string
	// Path is $PATH as bash inherits it: a listed command or a version query found in the roots is the
	// project's code, and asks. "" checks nothing (Analyze, and callers that do not know it).
	Path string
	// Roots are the workspace roots: a recursive read that follows a symlink out of them asks.
	Roots []string
	// Denied reports whether an absolute path is denied to read; nil denies nothing. A recursive read reports
	// each denied file it would reach as a read path, so that the deny rule names it.
	Denied func(abs string) bool
	// DeniedName is Denied on the name alone, without resolving symlinks: for names in git's index, which may
	// not exist in the work tree. nil denies nothing.
	DeniedName func(abs string) bool
	// Limit bounds the names one glob expands to, the brace alternatives of one word, and the entries one
	// recursive walk looks at; past it the call asks. 0 means defaultLimit.
	Limit int
}

// defaultLimit is Env.Limit's default.
const defaultLimit = 4096

// AnalyzeIn analyses command as Analyze does, then in env: globs are expanded against the filesystem (each match
// a path; the pattern when nothing matches, as bash leaves it), paths are made absolute against the directory
// the command is in at that point (after a literal `cd`), ~ is expanded, a `for` loop's variable takes each of
// its values, and recursive reads walk their trees. ReadPaths and WritePaths come back absolute but not cleaned:
// a `..` after a symlink is the core's to resolve, against the symlink's target. Asks holds why the call cannot
// be judged without the user. It never panics.
func AnalyzeIn(command string, env Env) (a Analysis) {
	defer func() {
		if recover() != nil {
			a = unparsed(command)
			a.Asks = append(a.Asks, askUnparsed)
		}
	}()
	return analyzeIn(command, &env)
}

func analyzeIn(command string, env *Env) Analysis {
	if env.Limit <= 0 {
		env.Limit = defaultLimit
	}
	f, err := parse(command)
	if err != nil {
		return unparsed(command)
	}
	w := walker{src: command, ro: len(f.Stmts) > 0, env: env, loopWalks: 1}
	if filepath.IsAbs(env.Dir) {
		w.dirs = []string{env.Dir}
	}
	w.stmts(f.Stmts)
	w.a.ReadOnly = w.ro
	w.a.NoMatchExit = w.noMatchExit(f.Stmts)
	return w.a
}

// askUnparsed is the Ask reason of a command the analyzer could not read.
const askUnparsed = "riot could not analyse this command safely, so running it needs the user's approval."

// ask records why the call needs the user. The walk goes on.
func (w *walker) ask(reason string) {
	for _, r := range w.a.Asks {
		if r == reason {
			return
		}
	}
	w.a.Asks = append(w.a.Asks, reason)
}

// expandArg turns one argument word into the words bash passes: brace expansion always, then, with an Env,
// pathname expansion against the filesystem. Without an Env a glob stays one word, marked glob.
func (w *walker) expandArg(wd *syntax.Word) []word {
	alts, ok := w.braces(wd)
	if !ok {
		return []word{w.word(wd)}
	}
	out := make([]word, 0, len(alts))
	for _, alt := range alts {
		t := w.word(alt)
		if !t.lit && alt != wd {
			t.text = w.text(wd) // an alternative's parts have no source positions
		}
		if w.env == nil || !t.lit || !t.glob {
			out = append(out, t)
			continue
		}
		out = append(out, w.glob(alt, t)...)
	}
	return out
}

// braces is the brace expansion of wd, or wd alone. Past the limit the call asks and ok is false.
func (w *walker) braces(wd *syntax.Word) (_ []*syntax.Word, ok bool) {
	cp := *wd
	if !syntax.SplitBraces(&cp) {
		return []*syntax.Word{wd}, true
	}
	limit := defaultLimit
	if w.env != nil {
		limit = w.env.Limit
	}
	var alts []*syntax.Word
	for alt, err := range expand.BracesSeq(nil, &cp) {
		if err != nil || len(alts) == limit {
			w.ask("A brace expansion in this command gives too many words for riot to check, so running it needs the user's approval. Name the files without braces.")
			w.a.Opaque = true
			return nil, false
		}
		alts = append(alts, alt)
	}
	return alts, true
}

// glob expands a literal glob word against the filesystem with bash's defaults: no dotglob, no globstar (`**`
// is `*`), no nullglob (no match leaves the word as written, quotes removed). The names matched are relative to
// where the command is: with several possible directories, or none known, a relative glob cannot be expanded.
func (w *walker) glob(wd *syntax.Word, t word) []word {
	pattern := t.text
	base := ""
	switch {
	case slices.Contains(strings.Split(pattern, "/"), ".."):
		// mvdan.cc/sh's glob cleans `lnk/..` to `.`, where bash lists the parent of the link's target.
		w.ask("A glob in this command has `..` in it, which riot cannot expand as bash does after a symlink, so running it needs the user's approval. Name the files, or glob from a directory without `..`.")
		w.a.Opaque = true
		return []word{t}
	case filepath.IsAbs(pattern):
	case t.tilde:
		if w.env.Home == "" {
			w.a.Opaque = true
			return []word{t}
		}
	case len(w.dirs) == 1:
		base = w.dirs[0]
	default:
		w.ask("This command expands a glob after a `cd` riot cannot follow, so it cannot tell which files the glob names; running it needs the user's approval. Run the `cd` in a call of its own first.")
		w.a.Opaque = true
		return []word{t}
	}
	seen := 0
	var failed error
	cfg := &expand.Config{
		Env: expand.ListEnviron("PWD="+base, "HOME="+w.env.Home),
		ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			ents, err := os.ReadDir(dir)
			if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				failed = err // bash skips what does not exist, but an unreadable directory may hold a match
			}
			if seen += len(ents); seen > w.env.Limit {
				failed = errTooMany
				return nil, errTooMany
			}
			return ents, err
		},
	}
	fields, err := expand.Fields(cfg, wd)
	switch {
	case errors.Is(failed, errTooMany) || errors.Is(err, errTooMany) || len(fields) > w.env.Limit:
		w.ask("A glob in this command matches more files than riot checks, so running it needs the user's approval. Use a narrower pattern.")
	case failed != nil || err != nil:
		w.ask("A glob in this command reads a directory riot cannot list, so it cannot tell which files the glob names; running it needs the user's approval.")
	default:
		out := make([]word, len(fields))
		for i, f := range fields {
			out[i] = word{text: f, lit: true}
			w.dashGlob = w.dashGlob || strings.HasPrefix(f, "-")
		}
		w.globListings(pattern, fields)
		return out
	}
	w.a.Opaque = true
	return []word{t}
}

var errTooMany = errors.New("too many names")

// absPaths makes a path as written absolute in each directory the command may be in, without cleaning it. ok
// is false when it cannot be known (~ without a home, ~user unknown, no known directory).
func (w *walker) absPaths(p string, tilde bool) ([]string, bool) {
	switch {
	case p == "":
		return nil, false
	case tilde:
		name, rest, slash := strings.Cut(p[1:], "/")
		home := w.env.Home
		if name != "" {
			home = userHome(name)
		}
		if home == "" {
			return nil, false
		}
		if !slash {
			return []string{home}, true
		}
		return []string{strings.TrimSuffix(home, "/") + "/" + rest}, true
	case filepath.IsAbs(p):
		return []string{p}, true
	case len(w.dirs) == 0:
		return nil, false
	}
	out := make([]string, len(w.dirs))
	for i, d := range w.dirs {
		out[i] = joinDir(d, p)
	}
	return out, true
}

// joinDir joins a relative path to a directory, dropping `.` components and empty ones, which name nothing,
// but keeping every `..`: what it climbs out of depends on the symlinks before it.
func joinDir(dir, rel string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(dir, "/"))
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." {
			continue
		}
		b.WriteByte('/')
		b.WriteString(c)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// userHome is the home directory of user name from /etc/passwd, or "". (os/user would do the same with cgo.)
func userHome(name string) string {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 6 && f[0] == name && filepath.IsAbs(f[5]) {
			return f[5]
		}
	}
	return ""
}

// globListings records as read paths the directories a glob lists: the listing is a read (`echo /outside/*`
// shows what an outside directory holds). They are the prefixes of each match before a component with a glob
// character, or of the pattern itself when nothing matched.
func (w *walker) globListings(pattern string, fields []string) {
	pc := strings.Split(pattern, "/")
	for _, f := range fields {
		fc := strings.Split(f, "/")
		if len(fc) != len(pc) { // no match: the word as written
			fc = pc
		}
		for i, c := range pc {
			if !strings.ContainsAny(c, "*?[") {
				continue
			}
			dir := strings.Join(fc[:i], "/")
			switch {
			case dir == "" && i > 0:
				dir = "/"
			case dir == "":
				dir = "."
			}
			w.readPath(word{text: dir, lit: true, tilde: strings.HasPrefix(dir, "~")})
			if len(fc) != len(pc) || f == pattern {
				break
			}
		}
	}
}
