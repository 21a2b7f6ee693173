package plugintest

import (
	"context"
	"sync"
	"time"

	"github.com/riot-tools/riot/plugin"
)

// FixedClock is a plugin.Clock that stands still until told to move. Sleep
// advances it by the duration at once, so timeouts, TTLs and polling loops
// run in no real time.
type FixedClock struct {
	mu  sync.Mutex
	now time.Time
}

var _ plugin.Clock = (*FixedClock)(nil)

// NewFixedClock returns a clock reading now.
func NewFixedClock(now time.Time) *FixedClock { return &FixedClock{now: now} }

// Now returns the clock's time.
func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d and returns at once, or returns ctx.Err()
// without advancing if ctx has ended.
func (c *FixedClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

// Advance moves the clock forward by d.
func (c *FixedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
