package edit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/filestate"
)

// target is an existing file that the session has seen as it is now.
type target struct {
	path  string // resolved: where the bytes are, and the record's key
	shown string // as the model reads it best
	info  fs.FileInfo
	data  []byte
}

// shownPath is how a message names a path: relative to Cwd when under it.
func shownPath(env *plugin.Env, abs string) string { return env.Rel(abs) }

// now is the call's clock.
func now(env *plugin.Env) time.Time {
	if env.Clock == nil {
		return time.Now()
	}
	return env.Clock.Now()
}

// source is where openSeen finds a file: by its path (to check an input
// before the permission chain has run), or by name in a directory held
// open (to change it).
type source interface {
	stat() (fs.FileInfo, error)
	open() (*os.File, error)
}

// byPath finds a file by its path, following symlinks.
type byPath string

func (p byPath) stat() (fs.FileInfo, error) { return os.Stat(string(p)) }

// open is non-blocking, so that a file swapped for a pipe since the Stat
// cannot block it; the check of the opened file refuses it.
func (p byPath) open() (*os.File, error) {
	return os.OpenFile(string(p), os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openSeen loads the file at abs for tool, refusing, each with its own
// reason, a file that is missing, not a regular file, too large, never
// seen in this session, changed since it was seen, or not UTF-8 text.
// wholeRequired also refuses a file seen only in part.
func openSeen(env *plugin.Env, abs, tool string, wholeRequired bool) (*target, string) {
	path := filestate.Canonical(abs)
	return loadSeen(env, abs, path, byPath(path), tool, wholeRequired)
}

// loadSeen is openSeen of the file src finds, whose record is kept under
// path.
func loadSeen(env *plugin.Env, abs, path string, src source, tool string, wholeRequired bool) (*target, string) {
	shown := shownPath(env, abs)
	info, err := src.stat()
	if err != nil {
		return nil, sourceMessage(shown, tool, err)
	}
	if msg := kindMessage(shown, tool, info); msg != "" {
		return nil, msg
	}
	if info.Size() > filestate.MaxBytes {
		return nil, tooLargeMessage(shown, tool, info.Size())
	}
	seen, ok := filestate.Latest(env, path)
	if !ok {
		return nil, notReadMessage(shown, tool, env.SessionLastsOneInvocation())
	}
	f, err := src.open()
	if err != nil {
		return nil, sourceMessage(shown, tool, err)
	}
	defer func() { _ = f.Close() }()
	if info, err = f.Stat(); err != nil {
		return nil, ioMessage(shown, tool, err)
	}
	if msg := kindMessage(shown, tool, info); msg != "" {
		return nil, msg
	}
	data, err := io.ReadAll(io.LimitReader(f, filestate.MaxBytes+1))
	if err != nil {
		return nil, ioMessage(shown, tool, err)
	}
	if len(data) > filestate.MaxBytes {
		return nil, tooLargeMessage(shown, tool, int64(len(data)))
	}
	current := filestate.Observe(info, data, true, now(env))
	if !seen.Matches(current) {
		return nil, changedMessage(shown, tool, seen, current)
	}
	if wholeRequired && !seen.Whole {
		return nil, partialMessage(shown)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, binaryMessage(shown, tool)
	}
	if !utf8.Valid(data) {
		return nil, notUTF8Message(shown, tool)
	}
	return &target{path: path, shown: shown, info: info, data: data}, ""
}

// The reasons a file is refused. Each is worded as what to do next, and
// each is distinct: "you have not read it" and "it changed since you read
// it" call for the same action but tell the model different things.

func notReadMessage(shown, tool string, oneInvocation bool) string {
	verb := "changes"
	if tool == "Write" {
		verb = "replaces"
	}
	msg := fmt.Sprintf("Read %s first: %s only %s a file you have seen in this session, and you have not read this one.\nRead it, then retry the %s.", shown, tool, verb, tool)
	if oneInvocation {
		// Without --session each riot invocation is a session of its own:
		// a Read in an earlier one is not known here, and never will be.
		msg += fmt.Sprintf(" This riot invocation has no --session, so a Read made in an earlier invocation does not count: put the Read and the %s in the same turn (Read first), or run every riot invocation with the same --session ID.", tool)
	}
	return msg
}

func changedMessage(shown, tool string, seen, now filestate.Record) string {
	var what string
	switch {
	case seen.SHA256 == "":
		what = "it was too large to record when you read it"
	case seen.Size != now.Size:
		what = fmt.Sprintf("its size went from %d to %d bytes", seen.Size, now.Size)
	case seen.SHA256 != now.SHA256:
		what = "its content is different"
	default:
		what = "its modification time is different"
	}
	return fmt.Sprintf("%s changed since you read it (%s): something else wrote it, such as a command, a formatter or the user.\nRead it again, then redo the %s against what it holds now.", shown, what, tool)
}

func partialMessage(shown string) string {
	return fmt.Sprintf("You have read only part of %s (a window with offset or limit), so Write would replace lines you have not seen.\nRead it whole, or change only the part you know with Edit.", shown)
}

func tooLargeMessage(shown, tool string, size int64) string {
	return fmt.Sprintf("%s is %d bytes; %s handles files of up to %d MiB.\nChange it with a command through Bash, such as `sed -i`, or split the work.", shown, size, tool, filestate.MaxBytes>>20)
}

func binaryMessage(shown, tool string) string {
	return fmt.Sprintf("%s is a binary file (it has NUL bytes); %s changes text files only.\nDo not edit it as text. Regenerate it with the program that makes it, or use Bash.", shown, tool)
}

func notUTF8Message(shown, tool string) string {
	return fmt.Sprintf("%s is not valid UTF-8 text, so %s cannot change it without damaging the bytes that are not.\nUse Bash with a tool that works on bytes, such as `sed -i`, or convert it with `iconv` first.", shown, tool)
}

// sourceMessage is statMessage, or the refusal of a path that changed
// under a write.
func sourceMessage(shown, tool string, err error) string {
	if errors.Is(err, errSwapped) {
		return swappedMessage(shown, tool)
	}
	return statMessage(shown, tool, err)
}

func statMessage(shown, tool string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		if tool == "Edit" {
			return fmt.Sprintf("%s does not exist, so there is nothing to edit.\nTo create it, use Write with its whole content. If you meant another file, check the path (Glob finds files by name).", shown)
		}
		return fmt.Sprintf("%s does not exist.\nCheck the path.", shown)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("Permission denied: the operating system does not let riot open %s.\nDo not retry; ask the user to change its permissions if it must change.", shown)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Sprintf("%s is a symlink loop; there is no file behind it.\nUse the path of the file it was meant to point at.", shown)
	default:
		return ioMessage(shown, tool, err)
	}
}

func ioMessage(shown, tool string, err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("%s could not access %s: %s.\nTry again once; if it fails again, ask the user about this file.", tool, shown, errno.Error())
	}
	return fmt.Sprintf("%s could not access %s.\nTry again once; if it fails again, ask the user about this file.", tool, shown)
}

// kindMessage refuses a directory or anything else that is not a regular
// file, or returns "".
func kindMessage(shown, tool string, info fs.FileInfo) string {
	switch mode := info.Mode(); {
	case mode.IsRegular():
		return ""
	case mode.IsDir():
		return fmt.Sprintf("%s is a directory, not a file; %s works on one file.\nGive the path of a file in it (Glob lists them).", shown, tool)
	default:
		return fmt.Sprintf("%s is not a regular file (it is a device, a pipe or a socket); %s changes regular files only.\nDo not write to it.", shown, tool)
	}
}

// record adds to o the record of the file at path as this call left it:
// data, whole, described by info, so the next Edit needs no new Read.
func record(o plugin.Outcome, env *plugin.Env, path string, info fs.FileInfo, data []byte) plugin.Outcome {
	return filestate.Put(o, env, path, filestate.Observe(info, data, true, now(env)))
}

// lineOf is the 1-based line number of byte offset off in s.
func lineOf(s string, off int) int { return 1 + strings.Count(s[:off], "\n") }
