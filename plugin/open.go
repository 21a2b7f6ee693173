package plugin

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/riot-tools/riot/internal/paths"
)

// Physical is path (made absolute as Abs makes it) with every symlink
// resolved and each `..` applied after the link before it: the form the
// host's fence and deny rules judge. A walker that follows no symlink can
// resolve its root once and append the rest of each walked path, to use
// DeniedPhysical. A broken or looping link, a component that cannot be
// examined, and a path through /proc/self or /proc/<pid> are errors.
func (e *Env) Physical(path string) (string, error) {
	return paths.Resolve(paths.OS{}, e.unclean(path))
}

// RefusedError is OpenRead's answer for a file it opened but will not let
// the tool read: Message is a correction for the model.
type RefusedError struct {
	// Path is the path opened, as the tool gave it.
	Path string
	// Real is the file the descriptor turned out to be.
	Real    string
	Message string
}

func (e *RefusedError) Error() string { return e.Message }

// OpenRead opens path (made absolute as Abs makes it) for reading, and
// checks the file it opened rather than the name: between the host's
// permission check and this open, a symlink on the path may have been
// swapped to lead elsewhere. The descriptor's real path must lie inside
// the workspace roots or results directories, or be one of the reads the
// chain allowed for this call (or below one), and no Read deny rule may
// cover it; otherwise the file is closed and the error is a *RefusedError
// whose Message the tool returns as its Failed message. Magic links
// (/proc/self/fd/N and the like) are not followed where the kernel can
// refuse them. Other errors are those of the open (os.ErrNotExist and the
// like), for the tool to explain. The file is opened non-blocking, so a
// pipe put in a file's place cannot hang the open; check its kind with
// Stat before reading.
func (e *Env) OpenRead(path string) (*os.File, error) {
	abs := e.Abs(path)
	f, err := openNoMagic(abs)
	if err != nil {
		return nil, err
	}
	real, err := fdPath(f)
	if err == nil {
		err = e.checkOpened(abs, real)
	} else {
		err = &RefusedError{Path: abs, Message: fmt.Sprintf("Could not check which file %s is once opened, so it was not read.\nAsk the user to read it for you.", e.Rel(abs))}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// checkOpened decides whether the file opened through abs, whose real
// path is real, may be read.
func (e *Env) checkOpened(abs, real string) error {
	shown := e.Rel(abs)
	switch {
	case !strings.HasPrefix(real, "/") || strings.HasSuffix(real, " (deleted)"):
		return &RefusedError{Path: abs, Real: real, Message: fmt.Sprintf("%s changed while it was being opened (it was removed or replaced), so it was not read.\nRead it again once it has stopped changing.", shown)}
	case e.DeniedPhysical(real):
		return &RefusedError{Path: abs, Real: real, Message: fmt.Sprintf("%s leads to a file the user's Read deny rules cover, so it was not read.\nDo not try to read it another way.", shown)}
	case e.Mode == "bypassPermissions", e.inFencePhysical(real), e.allowedRead(real):
		// In bypassPermissions the chain checks no fence, so no swap can
		// lead past one; the deny rules above still hold.
		return nil
	}
	return &RefusedError{Path: abs, Real: real, Message: fmt.Sprintf(
		"%s changed after the permission check: it now leads outside what this call was allowed to read (a symlink on its path points elsewhere than when it was checked), so it was not read.\n"+
			"Do not retry in a loop. If the file is meant to move, ask the user; read the file by its real path if you need it.", shown)}
}

// allowedRead reports whether real is, or lies below, a read the chain
// allowed for this call.
func (e *Env) allowedRead(real string) bool {
	for _, a := range e.AllowedReads {
		if strings.HasPrefix(a, "/") && within(real, a) {
			return true
		}
	}
	return false
}

// errNoFDPath is fdPath's error where the system cannot name a
// descriptor's file.
var errNoFDPath = errors.New("cannot tell the path of an open file here")
