package sandbox

import (
	"context"
	"os/exec"
	"sync"
)

// Probe finds bwrap once. The host has already checked that bwrap starts a
// sandbox here before it sends a profile, so the SDK only needs its path;
// it is safe for concurrent use.
type Probe struct {
	// LookPath finds bwrap; nil means exec.LookPath.
	LookPath func(string) (string, error)

	once sync.Once
	path string
	err  error
}

// Check returns bwrap's path, or why the sandbox cannot start here.
func (p *Probe) Check(context.Context) (string, error) {
	p.once.Do(func() {
		look := p.LookPath
		if look == nil {
			look = exec.LookPath
		}
		if p.path, p.err = look("bwrap"); p.err != nil {
			p.path, p.err = "", errNoBwrap
		}
	})
	return p.path, p.err
}
