package sandbox

import (
	"context"
	"sync"
)

// Probe finds bwrap once. The host has already checked that bwrap starts a
// sandbox here before it sends a profile, so the SDK only needs its path;
// it is safe for concurrent use.
type Probe struct {
	// LookPath finds bwrap; nil means FindBwrap, the trusted system
	// paths (never $PATH, which may hold a directory commands write).
	LookPath func(string) (string, error)

	once sync.Once
	path string
	err  error
}

// Check returns bwrap's path, or why the sandbox cannot start here.
func (p *Probe) Check(context.Context) (string, error) {
	p.once.Do(func() {
		if p.LookPath == nil {
			p.path, p.err = FindBwrap()
			return
		}
		if p.path, p.err = p.LookPath("bwrap"); p.err != nil {
			p.path, p.err = "", ErrNoBwrap
		}
	})
	return p.path, p.err
}
