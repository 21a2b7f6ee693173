//go:build !linux

package bash

import (
	"os"
	"os/exec"
)

// cwdReport is a temporary file where there is no memfd.
type cwdReport struct{ path string }

func newCwdReport(tempDir string) (*cwdReport, error) {
	f, err := os.CreateTemp(tempDir, "riot-bash-cwd-*")
	if err != nil {
		return nil, err
	}
	return &cwdReport{path: f.Name()}, f.Close()
}

func (c *cwdReport) attach(*exec.Cmd) {}

func (c *cwdReport) target() string { return ">| " + shellQuote(c.path) }

func (c *cwdReport) read() (string, bool) {
	b, err := os.ReadFile(c.path)
	if err != nil {
		return "", false
	}
	return parseCwd(b)
}

func (c *cwdReport) close() { _ = os.Remove(c.path) }
