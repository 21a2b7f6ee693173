// Package lock owns .riot/plugins.lock: the file that pins each installed
// plugin's source, resolved version, content hashes, protocol version and
// its tools in order. Only riot commands write it (through
// internal/atomicfile); a file edited by hand into something riot did not
// write is refused with the line and what is wrong, never half read.
package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/riot-tools/riot/internal/atomicfile"
)

// FileVersion is the shape of the file this riot writes and reads.
const FileVersion = 1

// Name is the lock file's name inside a workspace's .riot directory.
const Name = "plugins.lock"

// Path is the lock file of a workspace.
func Path(workspace string) string { return filepath.Join(workspace, ".riot", Name) }

// File is the whole lock file.
type File struct {
	Version int               `toml:"version"`
	Plugins map[string]*Entry `toml:"plugins"`
}

// Entry pins one plugin.
type Entry struct {
	// Source is the plugin's source as the config declares it.
	Source string `toml:"source"`
	// Constraint is the version the config asked for, if any.
	Constraint string `toml:"constraint,omitempty"`
	// Version is what the source resolved to: a module version for a Go
	// package, the declared version for a URL, "local" for a directory or
	// binary on disk.
	Version string `toml:"version"`
	// Sum is the Go module's h1: hash (the go.sum form), the same on every
	// platform; empty for other sources.
	Sum string `toml:"sum,omitempty"`
	// Protocol is the protocol version the plugin negotiated at install.
	Protocol int `toml:"protocol"`
	// Tools are the plugin's tools in the order tools[] lists them.
	Tools []string `toml:"tools"`
	// SHA256 is the installed binary's sha256 by platform (GOOS_GOARCH):
	// a build differs per platform, a Go module's Sum does not.
	SHA256 map[string]string `toml:"sha256"`
}

// Platform is this build's key in Entry.SHA256.
func Platform() string { return runtime.GOOS + "_" + runtime.GOARCH }

// FileSHA256 is the hex sha256 of the file at path, as a lock pins it
// and as `sha256sum` prints it.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BinarySHA256 is the pinned sha256 of the binary for this platform, or "".
func (e *Entry) BinarySHA256() string { return e.SHA256[Platform()] }

// Error is a lock file that cannot be used: exit status 2 at the CLI.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	at := e.File
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return at + ": " + e.Msg + "; the lock is written by riot: restore it from version control, or delete it and run `riot plugins install`"
}

// Read reads the lock file at path; a file that does not exist is an
// empty lock.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{Version: FileVersion, Plugins: map[string]*Entry{}}, nil
	}
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot be read (" + errText(err) + ")"}
	}
	return Parse(path, data)
}

// Parse decodes and validates a lock file's contents.
func Parse(path string, data []byte) (*File, error) {
	var f File
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: path, Line: pe.Position.Line, Msg: "is not valid TOML: " + pe.Message}
		}
		return nil, &Error{File: path, Msg: "has a value of the wrong type: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, &Error{File: path, Line: lineOf(data, u[0]), Msg: fmt.Sprintf("has an unknown key %q", u[0].String())}
	}
	if f.Version != FileVersion {
		return nil, &Error{File: path, Msg: fmt.Sprintf("has version %d; this riot reads version %d", f.Version, FileVersion)}
	}
	if f.Plugins == nil {
		f.Plugins = map[string]*Entry{}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Plugins)) {
		if msg := f.Plugins[name].problem(); msg != "" {
			return nil, &Error{File: path, Line: lineOf(data, toml.Key{"plugins", name}), Msg: fmt.Sprintf("[plugins.%s] %s", name, msg)}
		}
	}
	return &f, nil
}

// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var (
	sha256Hex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })
	h1Sum     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^h1:[A-Za-z0-9+/]{43}=$`) })
	platform  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+_[a-z0-9]+$`) })
)

// problem says what is wrong with an entry, or "".
func (e *Entry) problem() string {
	switch {
	case e == nil:
		return "is empty"
	case e.Source == "":
		return "has no source"
	case e.Version == "":
		return "has no version"
	case e.Sum != "" && !h1Sum().MatchString(e.Sum):
		return fmt.Sprintf("sum %q is not an h1: module hash", e.Sum)
	case e.Protocol <= 0:
		return "has no protocol version"
	case len(e.Tools) == 0:
		return "lists no tools"
	case len(e.SHA256) == 0:
		return "pins no binary (sha256)"
	}
	for i, t := range e.Tools {
		if t == "" || slices.Contains(e.Tools[:i], t) {
			return fmt.Sprintf("tools lists %q twice or empty", t)
		}
	}
	for p, sum := range e.SHA256 {
		if !platform().MatchString(p) || !sha256Hex().MatchString(sum) {
			return fmt.Sprintf("sha256 %s = %q is not a platform and 64 hexadecimal digits", p, sum)
		}
	}
	return ""
}

// Write replaces the lock file at path, atomically.
func (f *File) Write(path string) error {
	f.Version = FileVersion
	var b bytes.Buffer
	b.WriteString("# riot plugins lock: written by `riot plugins install`, `upgrade` and `remove`. Commit it; do not edit it.\n")
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("encode the lock: %w", err)
	}
	return atomicfile.Write(path, b.Bytes(), 0o644)
}

// lineOf is the line that starts key's table or key, for messages; 0 if
// it cannot be found.
func lineOf(data []byte, key toml.Key) int {
	var table, last string
	if len(key) > 1 {
		table = strings.Join(key[:len(key)-1], ".")
	}
	last = key[len(key)-1]
	whole := "[" + strings.Join(key, ".") + "]"
	cur := ""
	for i, line := range strings.Split(string(data), "\n") {
		l := strings.TrimSpace(line)
		if l == whole {
			return i + 1
		}
		if strings.HasPrefix(l, "[") {
			cur = strings.Trim(l, "[] ")
			continue
		}
		if cur == table && (strings.HasPrefix(l, last+" ") || strings.HasPrefix(l, last+"=")) {
			return i + 1
		}
	}
	return 0
}

// errText is an OS error without the path, which the message names.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
