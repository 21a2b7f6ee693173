package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/config/lock"
)

// Error is an install that failed; Usage marks input that is wrong (exit
// status 2), otherwise the source or the build failed (exit status 1).
type Error struct {
	Msg   string
	Usage bool
}

func (e *Error) Error() string { return e.Msg }

func usageErr(msg string) error { return &Error{Msg: msg, Usage: true} }
func failErr(msg string) error  { return &Error{Msg: msg} }

// Request is one plugin to get.
type Request struct {
	Name   string
	Source Source
	// Version is the declared version or constraint (Go sources), or the
	// declared version of a URL (recorded as is).
	Version string
	// Pinned, if set, is the version to install instead of resolving
	// Version: the lock's, for a reinstall that reproduces it.
	Pinned string
	// Sum, if set, is the h1: sum the Go module must have: the lock's.
	Sum string
	// SHA256, if set, is the sha256 the binary must have: the lock's, for
	// sources whose binary is their only identity (URLs, local binaries).
	SHA256 string
	// Scratch is a directory for builds and downloads, on the same file
	// system as the install directory so the binary can be renamed in.
	Scratch string
	// Env is the environment the Go toolchain runs in; nil means
	// os.Environ().
	Env []string
	// HTTP fetches https:// sources; nil means http.DefaultClient.
	HTTP *http.Client
	// Progress receives one line per build or download.
	Progress io.Writer
}

// Got is a binary got from its source, not yet installed.
type Got struct {
	// Binary is the file in the scratch directory.
	Binary string
	// Version is what the source resolved to.
	Version string
	// Sum is the Go module's h1: sum, for Go package sources.
	Sum    string
	SHA256 string
}

// Get builds or downloads req's plugin into req.Scratch and checks it
// against what req pins. Nothing outside req.Scratch is changed.
func Get(ctx context.Context, req Request) (*Got, error) {
	if req.Progress == nil {
		req.Progress = io.Discard
	}
	var (
		got *Got
		err error
	)
	switch req.Source.Kind {
	case GoPackage:
		got, err = goInstall(ctx, req)
	case LocalDir:
		got, err = goBuildDir(ctx, req)
	case LocalBinary:
		got, err = copyBinary(req)
	case URL:
		got, err = download(ctx, req)
	default:
		return nil, usageErr(fmt.Sprintf("source %q is no form riot knows", req.Source.Raw))
	}
	if err != nil {
		return nil, err
	}
	if got.SHA256, err = lock.FileSHA256(got.Binary); err != nil {
		return nil, failErr(fmt.Sprintf("cannot read the %s plugin's new binary: %v", req.Name, err))
	}
	if req.SHA256 != "" && req.Source.Kind != GoPackage && req.Source.Kind != LocalDir && got.SHA256 != req.SHA256 {
		return nil, failErr(fmt.Sprintf("the %s plugin's binary from %s has sha256 %s, but the lock pins %s; nothing was installed. If the new binary is meant, run `riot plugins upgrade %s`.", req.Name, req.Source.Raw, got.SHA256, req.SHA256, req.Name))
	}
	if err := os.Chmod(got.Binary, 0o755); err != nil {
		return nil, failErr(fmt.Sprintf("cannot make the %s plugin's binary executable: %v", req.Name, err))
	}
	return got, nil
}

// Installed is a binary put in place, with what it replaced.
type Installed struct {
	Path string
	// backup is the replaced binary, kept until Keep or Undo.
	backup string
}

// Put renames got's binary to dir/riot-tool-NAME, keeping the binary it
// replaces until Keep or Undo: the caller writes the lock between.
func Put(got *Got, dir, name string) (*Installed, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, failErr(fmt.Sprintf("cannot make the plugin directory %s: %v", dir, err))
	}
	dst := filepath.Join(dir, "riot-tool-"+name)
	in := &Installed{Path: dst}
	if _, err := os.Lstat(dst); err == nil {
		in.backup = filepath.Join(filepath.Dir(got.Binary), "previous-"+name)
		if err := os.Link(dst, in.backup); err != nil {
			return nil, failErr(fmt.Sprintf("cannot keep the previous binary %s while installing: %v", dst, err))
		}
	}
	if err := os.Rename(got.Binary, dst); err != nil {
		return nil, failErr(fmt.Sprintf("cannot install the binary as %s: %v", dst, err))
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return in, nil
}

// Undo puts the replaced binary back, or removes a binary that replaced
// none.
func (in *Installed) Undo() error {
	if in.backup == "" {
		return os.Remove(in.Path)
	}
	return os.Rename(in.backup, in.Path)
}

// Keep drops the replaced binary.
func (in *Installed) Keep() {
	if in.backup != "" {
		_ = os.Remove(in.backup)
	}
}

func copyBinary(req Request) (*Got, error) {
	src, err := os.Open(req.Source.Path)
	if err != nil {
		return nil, usageErr(fmt.Sprintf("cannot read %s: %s", req.Source.Path, osText(err)))
	}
	defer src.Close()
	dst := filepath.Join(req.Scratch, "riot-tool-"+req.Name)
	if err := copyTo(dst, src, maxBinary); err != nil {
		return nil, failErr(fmt.Sprintf("cannot copy %s: %v", req.Source.Path, err))
	}
	fmt.Fprintf(req.Progress, "copied %s\n", req.Source.Path)
	return &Got{Binary: dst, Version: "local"}, nil
}

// maxBinary bounds a plugin binary, downloaded or extracted.
const maxBinary = 512 << 20

// copyTo writes at most limit bytes of r to a new file at path.
func copyTo(path string, r io.Reader, limit int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("it is larger than %d MiB, more than any plugin binary", limit>>20)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func osText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// lastLines is the last n lines of out, for a failed build.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
