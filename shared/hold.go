package shared

import (
	"context"
	"sync/atomic"
)

// A Call's outcome is its content blocks and then its Final, sent one
// right after the other once the tool has returned. Over a link each
// frame was written and flushed on its own: two writes, and the host's
// reader woken for the block only to wait again for the Final. Held, the
// outcome's frames go out in the Final's write. Streamed output is never
// held: it is sent before the tool returns, while the host waits for it.

type holdKey struct{}

// holdFlag is a Call exchange's: set once its remaining frames may wait
// for its Final.
type holdFlag struct{ on atomic.Bool }

// withHold is ctx carrying a Call exchange's holdFlag.
func withHold(ctx context.Context) (context.Context, *holdFlag) {
	h := &holdFlag{}
	return context.WithValue(ctx, holdKey{}, h), h
}

// HoldUntilFinal tells the transport of the Call that ctx belongs to that
// the events sent from now on are the outcome, followed at once by the
// Final: they may be written with it, in one write. A ToolPlugin calls it
// after the tool returned and its streamed output was sent. Where the
// transport cannot hold (protocols 1 and 2), it does nothing.
func HoldUntilFinal(ctx context.Context) {
	if h, ok := ctx.Value(holdKey{}).(*holdFlag); ok {
		h.on.Store(true)
	}
}
