package read

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/riot-tools/riot/plugin"
)

// checkPath is the answer to a path that is not a readable regular file,
// or "" if it is one. suggest allows listing the directory for similar
// names when the file is missing.
func checkPath(abs string, env *plugin.Env, suggest bool) string {
	info, err := os.Stat(abs)
	if err != nil {
		return statMessage(abs, env, err, suggest)
	}
	return kindMessage(abs, env, info)
}

// kindMessage refuses a directory, a device, a pipe or a socket.
func kindMessage(abs string, env *plugin.Env, info fs.FileInfo) string {
	shown := env.Rel(abs)
	mode := info.Mode()
	switch {
	case mode.IsRegular():
		return ""
	case mode.IsDir():
		return fmt.Sprintf("%s is a directory, not a file.\n"+
			"Read reads one file at a time. List the directory with Bash `ls %s`, or search the files in it with Grep (path %q).",
			shown, shellQuote(shown), shown)
	}
	kind := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe, not a regular file"
	case mode&fs.ModeSocket != 0:
		kind = "a socket, not a regular file"
	case mode&fs.ModeCharDevice != 0:
		kind = "a character device, not a regular file"
	case mode&fs.ModeDevice != 0:
		kind = "a block device, not a regular file"
	}
	return fmt.Sprintf("%s is %s.\n"+
		"Read reads regular files only: reading a pipe or device can block or never end. Do not read it; if you must inspect it, use Bash with a command that stops, such as `head -c 4096`.",
		shown, kind)
}

// statMessage explains why abs cannot be read.
func statMessage(abs string, env *plugin.Env, err error, suggest bool) string {
	shown := env.Rel(abs)
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return missingMessage(abs, env, suggest)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("Permission denied: %s.\nThe operating system does not let riot read this file. Do not retry; ask the user if you need it.", shown)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Sprintf("%s is a symlink loop.\nIt points, through other links, back at itself; there is no file to read. Read the file it was meant to point at.", shown)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fmt.Sprintf("The path is too long for the operating system: %s.\nCheck the path.", shown)
	case errors.As(err, &errno):
		return fmt.Sprintf("Cannot read %s: %s.\nCheck the path, or ask the user about this file.", shown, errno.Error())
	default:
		return fmt.Sprintf("Cannot read %s.\nCheck the path, or ask the user about this file.", shown)
	}
}

// missingMessage names a missing file, says which part of its path is
// missing, and offers similar names where it may list them.
func missingMessage(abs string, env *plugin.Env, suggest bool) string {
	shown := env.Rel(abs)
	// base is the nearest ancestor that exists; missing are the parts after it.
	base, missing := abs, []string(nil)
	for {
		parent := filepath.Dir(base)
		missing = append([]string{filepath.Base(base)}, missing...)
		base = parent
		if _, err := os.Lstat(base); err == nil || parent == filepath.Dir(parent) {
			break
		}
	}
	var b strings.Builder
	if info, err := os.Lstat(abs); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		fmt.Fprintf(&b, "%s is a broken symlink: its target %s does not exist.\nRead the file it was meant to point at.", shown, target)
		return b.String()
	}
	fmt.Fprintf(&b, "File does not exist: %s.", shown)
	if info, err := os.Stat(base); err == nil && !info.IsDir() {
		fmt.Fprintf(&b, "\n%s is a file, not a directory, so nothing is under it. Check the path.", env.Rel(base))
		return b.String()
	}
	if len(missing) > 1 {
		fmt.Fprintf(&b, " There is no directory %s.", env.Rel(filepath.Join(base, missing[0])))
	}
	var found []string
	if suggest {
		// A similar name counts only if the rest of the path exists under
		// it, and only if the model may see it: never a file the deny
		// rules cover, nor one a link takes out of the fence.
		under := func(name string) string { return filepath.Join(append([]string{base, name}, missing[1:]...)...) }
		keep := func(name string) bool {
			p := under(name)
			_, err := os.Stat(p)
			return err == nil && env.InFence(p) && !env.Denied(p)
		}
		for _, name := range similarNames(base, missing[0], len(missing) > 1, keep) {
			found = append(found, env.Rel(under(name)))
		}
	}
	switch len(found) {
	case 0:
		fmt.Fprintf(&b, "\nCheck the path. List the directory with Bash `ls %s`, or find a file by what it contains with Grep.", shellQuote(env.Rel(base)))
	case 1:
		fmt.Fprintf(&b, "\nDid you mean %s? Call Read again with the right path.", found[0])
	default:
		fmt.Fprintf(&b, "\nDid you mean one of: %s? Call Read again with the right path.", strings.Join(found, ", "))
	}
	return b.String()
}

// shellQuote quotes a path for a Bash command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+@%:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
