package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// sessionDir is the directory a command starts in: the one the last command
// ended in, kept in session state, or the workspace directory. When the
// kept directory is gone, it falls back to the workspace directory and
// returns a note saying so.
func sessionDir(env *plugin.Env) (dir, note string) {
	return startDir(env.Cwd, env.State(cwdStateKey))
}

func startDir(workspace, kept string) (dir, note string) {
	if kept == "" {
		return workspace, ""
	}
	if filepath.IsAbs(kept) {
		if fi, err := os.Stat(kept); err == nil && fi.IsDir() {
			return kept, ""
		}
	}
	return workspace, fmt.Sprintf("The working directory %s no longer exists, so this command ran in the workspace directory %s.", kept, workspace)
}

// dirProblem is the Failed message for a start directory that is not
// there, or "". exec reports a failed chdir as a failed exec of bash, so
// it is checked first.
func dirProblem(dir string) string {
	if dir == "" {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Sprintf("Could not start the command in %s: the directory does not exist or is not accessible. Check the workspace directory; do not retry unchanged.", dir)
	}
	return ""
}

// cwdUpdate is the session state value for the directory a command ended
// in: "" (delete the key) when that is the workspace directory, so a
// session that never left it follows the workspace.
func cwdUpdate(workspace, dir string) string {
	if dir == workspace {
		return ""
	}
	return dir
}

// shellCommand builds the bash process for a command. The command is the
// script itself, unmodified, so line numbers in bash's errors match it and
// `cd` persists to the end of the shell. On the same line before it, an
// EXIT trap writes the final directory to the report; being a prefix, it
// cannot be swallowed by an unterminated quote or heredoc in the command.
// 2>/dev/null hides a `pwd` in a deleted directory. When the command
// replaces the trap or the shell (`exec prog`), or does not parse, the
// report stays empty and the directory is unknown. A nil report runs the
// command alone, for background jobs, whose directory does not persist.
func shellCommand(bash, command, dir string, report *cwdReport) *exec.Cmd {
	script := command
	if report != nil {
		script = "trap " + shellQuote("pwd "+report.target()+" 2>/dev/null") + " EXIT; " + command
	}
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = childEnv(os.Environ(), dir)
	if report != nil {
		report.attach(cmd)
	}
	return cmd
}

// childEnv is the plugin's environment without riot's protocol variables
// (the host started the plugin with the user's environment plus the
// configured env), with PWD naming dir so that bash keeps the logical path,
// symlinks included, instead of the physical one.
func childEnv(environ []string, dir string) []string {
	env := plugin.ChildEnv(environ)
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	if dir != "" {
		out = append(out, "PWD="+dir)
	}
	return out
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
