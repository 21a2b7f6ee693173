package bash

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// PermissionSubjects are one command subject per simple command, as the
// analyzer normalised it, one read subject per file operand of a read
// command and one write subject per output redirection, made absolute
// against the directory the command starts in.
func (*Bash) PermissionSubjects(in Input, env *plugin.Env) []plugin.Subject {
	a := Analyze(in.Command)
	dir, _ := sessionDir(env)
	return subjects(a, dir)
}

func subjects(a Analysis, dir string) []plugin.Subject {
	seen := map[plugin.Subject]bool{}
	var out []plugin.Subject
	add := func(s plugin.Subject) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, c := range a.Commands {
		add(plugin.Command(c))
	}
	opaque := a.Opaque
	moves := changesDir(a.Commands)
	for _, p := range a.ReadPaths {
		abs, ok := resolvePath(dir, p)
		// A relative path after `cd` is relative to a directory the
		// command may have moved to.
		if !ok || moves && !isAbsWritten(p) {
			opaque = true
			continue
		}
		add(plugin.ReadPath(abs))
	}
	for _, p := range a.WritePaths {
		abs, ok := resolvePath(dir, p)
		if !ok || moves && !isAbsWritten(p) {
			opaque = true
			continue
		}
		add(plugin.WritePath(abs))
	}
	if opaque {
		add(plugin.UnknownPath())
	}
	return out
}

// changesDir reports whether a command changes directory, after which its
// relative paths are relative to somewhere else.
func changesDir(commands []string) bool {
	for _, c := range commands {
		switch strings.Fields(c + " x")[0] {
		case "cd", "pushd", "popd":
			return true
		}
	}
	return false
}

// isAbsWritten reports whether a path as written does not depend on the
// current directory.
func isAbsWritten(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "~")
}

// resolvePath makes a path as written absolute the way bash would: a
// leading ~ or ~user is a home directory, and a relative path is under dir.
func resolvePath(dir, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if strings.HasPrefix(p, "~") {
		name, rest, _ := strings.Cut(p[1:], "/")
		home, ok := homeDir(name)
		if !ok {
			return "", false
		}
		return filepath.Clean(filepath.Join(home, rest)), true
	}
	if !filepath.IsAbs(p) {
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", false
			}
			dir = wd
		}
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), true
}

// homeDir is the home directory of user name, or of the current user when
// name is "".
func homeDir(name string) (string, bool) {
	if name == "" {
		// $HOME, as bash expands ~.
		h, err := os.UserHomeDir()
		return h, err == nil
	}
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return "", false
	}
	return u.HomeDir, true
}
