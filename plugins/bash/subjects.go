package bash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// PermissionSubjects are one command subject per simple command, as the
// analyzer normalised it (braces and globs expanded), one read subject per
// file a command reads (each glob match, each denied file a recursive read
// reaches) and one write subject per file it writes, absolute against the
// directory the command is in at that point but not cleaned: the core
// resolves `..` after each symlink, as the kernel does.
func (b *Bash) PermissionSubjects(in Input, env *plugin.Env) []plugin.Subject {
	return subjects(analyzeEnv(in.Command, env))
}

// CheckPermissions denies a recursive read that would reach a denied file,
// pointing the model at the Grep tool, and asks for what the analysis
// could not check (a file list, a glob past the bound, a symlink the
// recursion follows out of the roots), except in bypassPermissions.
func (b *Bash) CheckPermissions(_ context.Context, in Input, env *plugin.Env) plugin.Permission {
	a := analyzeEnv(in.Command, env)
	if len(a.Denied) > 0 {
		return plugin.DenyPermission(fmt.Sprintf("This command reads directories recursively and would read %s, which a Read deny rule forbids. Use the Grep tool to search: it skips denied files. Or name the files to read.", env.Rel(a.Denied[0])))
	}
	if len(a.Asks) > 0 && env.Mode != "bypassPermissions" {
		return plugin.AskPermission(a.Asks[0])
	}
	return plugin.PassthroughPermission()
}

// analyzeEnv analyses a command in the session's world.
func analyzeEnv(command string, env *plugin.Env) Analysis {
	dir, _ := sessionDir(env)
	home, _ := os.UserHomeDir()
	e := Env{
		Dir: dir, Home: home, CDPath: os.Getenv("CDPATH"), Path: os.Getenv("PATH"), Roots: env.Roots, GitEnv: gitEnv(os.Environ()),
		GitConfigs: userGitConfigs(os.Environ(), home),
	}
	if len(env.DenyRead) > 0 { // nil: no deny rule, nothing to walk for
		e.Denied = env.Denied
		e.DeniedName = func(abs string) bool { return env.DeniedPhysical(filepath.Clean(abs)) }
	}
	return AnalyzeIn(command, e)
}

func subjects(a Analysis) []plugin.Subject {
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
	for _, p := range a.ReadPaths {
		if p == "/dev/null" { // reads nothing
			continue
		}
		if strings.HasPrefix(p, "/") {
			add(plugin.ReadPath(p))
		}
	}
	for _, p := range a.WritePaths {
		if strings.HasPrefix(p, "/") {
			add(plugin.WritePath(p))
		}
	}
	if a.Opaque || hasRelative(a) {
		add(plugin.UnknownPath())
	}
	return out
}

// hasRelative reports a path the analysis could not make absolute, which
// only a bug would leave: it is unknown, not relative to some guess.
func hasRelative(a Analysis) bool {
	for _, p := range append(append([]string(nil), a.ReadPaths...), a.WritePaths...) {
		if !strings.HasPrefix(p, "/") {
			return true
		}
	}
	return false
}

// gitEnv names the first variable of environ that moves git to another repository or config, or "".
func gitEnv(environ []string) string {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS":
			return name
		}
	}
	return ""
}
