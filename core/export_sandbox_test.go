package core

import "github.com/riot-tools/riot/internal/bwrap"

// WithoutBwrap makes h find no bwrap, as on a machine without it; call it
// before h's first turn.
func WithoutBwrap(h *Host) {
	h.sbox.findBwrap = func() (string, error) { return "", bwrap.ErrNotFound }
}
