package plugin

import (
	"context"
	"time"
)

// Clock is a tool's access to time, injected so that timeouts, TTLs and
// polling can be tested without sleeping.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends, in which case it returns
	// ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or for ctx.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
