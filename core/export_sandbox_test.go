package core

import (
	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/internal/egress"
)

// WithoutBwrap makes h find no bwrap, as on a machine without it; call it
// before h's first turn.
func WithoutBwrap(h *Host) {
	h.sbox.findBwrap = func() (string, error) { return "", bwrap.ErrNotFound }
}

// WithEgressResolver points h's network proxy at r instead of the
// system's resolver; call it before h's first turn.
func WithEgressResolver(h *Host, r egress.Resolver) { h.egress.resolver = r }

// EgressDir is the private directory of h's network proxy, or "" while it
// has not started.
func EgressDir(h *Host) string {
	h.egress.mu.Lock()
	defer h.egress.mu.Unlock()
	return h.egress.dir
}

// SessionTempDir is where h's session keeps the directory its sandboxed
// commands see at /tmp, made or not.
func SessionTempDir(h *Host) string { return h.sessionTempDir() }
