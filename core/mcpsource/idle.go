package mcpsource

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errIdle is the cause of a call's context that idle_timeout ended.
var errIdle = errors.New("the server sent nothing for the idle timeout")

// stopper is what a timer gives back: time.Timer's Stop and Reset.
type stopper interface {
	Stop() bool
	Reset(time.Duration) bool
}

// afterFunc is time.AfterFunc, replaced in tests.
type afterFunc func(time.Duration, func()) stopper

func realAfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// idleWatch ends a call's context with errIdle once the server has sent
// nothing for the call (no progress, no result) for the idle timeout. A
// question to the user pauses it: the server waits on the user then.
type idleWatch struct {
	d      time.Duration
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	timer  stopper
	paused int
	done   bool
}

// watchIdle returns ctx ended by idleness after d, and the watch; its
// stop releases the timer.
func watchIdle(ctx context.Context, d time.Duration, after afterFunc) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &idleWatch{d: d, cancel: cancel}
	w.mu.Lock()
	w.timer = after(d, w.fire)
	w.mu.Unlock()
	return ctx, w
}

func (w *idleWatch) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.paused > 0 {
		return
	}
	w.done = true
	w.cancel(errIdle)
}

// heard restarts the wait: the server sent something for the call.
func (w *idleWatch) heard() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && w.paused == 0 {
		w.timer.Reset(w.d)
	}
}

// pause holds the watch until the returned resume, which restarts the
// wait.
func (w *idleWatch) pause() (resume func()) {
	if w == nil {
		return func() {}
	}
	w.mu.Lock()
	w.paused++
	w.timer.Stop()
	w.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.paused--
			if !w.done && w.paused == 0 {
				w.timer.Reset(w.d)
			}
		})
	}
}

// stop ends the watch without cancelling the call.
func (w *idleWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.timer.Stop()
	w.cancel(nil)
}
