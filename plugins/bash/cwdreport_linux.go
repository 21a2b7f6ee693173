package bash

import (
	"io"
	"os"
	"os/exec"
	"strconv"

	"golang.org/x/sys/unix"
)

// cwdFD is the descriptor the command's shell inherits the report on. It
// is above the 3-9 scripts use by hand and apart from bash's own (10 up
// for {var} redirections, 63 down for process substitution, 255).
const cwdFD = 60

// cwdReport is where the EXIT trap writes the final directory: a memfd,
// which is in no directory, so nothing is left on disk whatever ends the
// call or the plugin, and which a read-only sandbox does not refuse.
type cwdReport struct{ f *os.File }

func newCwdReport(string) (*cwdReport, error) {
	fd, err := unix.MemfdCreate("riot-bash-cwd", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &cwdReport{f: os.NewFile(uintptr(fd), "riot-bash-cwd")}, nil
}

// attach hands the report to the command as cwdFD; the descriptors below
// it that the command would otherwise get are closed in the child.
func (c *cwdReport) attach(cmd *exec.Cmd) {
	extra := make([]*os.File, cwdFD-2)
	extra[cwdFD-3] = c.f
	cmd.ExtraFiles = extra
}

// target is the redirection the trap writes through.
func (c *cwdReport) target() string { return ">&" + strconv.Itoa(cwdFD) }

func (c *cwdReport) read() (string, bool) {
	b, err := io.ReadAll(io.NewSectionReader(c.f, 0, 1<<16))
	if err != nil {
		return "", false
	}
	return parseCwd(b)
}

func (c *cwdReport) close() { _ = c.f.Close() }
