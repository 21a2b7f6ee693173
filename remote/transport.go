package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// transport adds the bearer token to every request, notes a refusal, and
// watches each call's response for liveness.
type transport struct {
	base    http.RoundTripper
	token   string
	refused *atomic.Bool
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	w := watchOf(r.Context())
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		t.refused.Store(true)
	}
	if w != nil {
		w.touch()
		resp.Body = &watchedBody{ReadCloser: resp.Body, w: w}
	}
	return resp, nil
}

// watchedBody tells its call's watch of every byte that arrives, and of a
// stream that breaks: a session killed mid-call ends its response without
// the result, which nothing would otherwise resume.
type watchedBody struct {
	io.ReadCloser
	w *watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.touch()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		b.w.lose(err)
	}
	return n, err
}

// lostError is why a call's session stopped answering.
type lostError struct{ err error }

func (e *lostError) Error() string { return e.err.Error() }

type watchKey struct{}

func watchOf(ctx context.Context) *watch {
	w, _ := ctx.Value(watchKey{}).(*watch)
	return w
}

// watch bounds the silence of one call: its context ends, with a
// lostError, when no byte of its response arrives for the timeout, or
// when its response breaks. The user's time answering a question the
// session asked does not count (pause, resume).
type watch struct {
	cancel  context.CancelCauseFunc
	timeout time.Duration

	mu     sync.Mutex
	timer  *time.Timer
	paused int
}

func newWatch(ctx context.Context, timeout time.Duration) (context.Context, *watch) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watch{cancel: cancel, timeout: timeout}
	w.timer = time.AfterFunc(timeout, func() {
		w.lose(fmt.Errorf("no word from it for %s", timeout))
	})
	return context.WithValue(ctx, watchKey{}, w), w
}

func (w *watch) touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused == 0 {
		w.timer.Reset(w.timeout)
	}
}

func (w *watch) pause() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paused++
	w.timer.Stop()
}

func (w *watch) resume() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused--; w.paused == 0 {
		w.timer.Reset(w.timeout)
	}
}

func (w *watch) lose(err error) { w.cancel(&lostError{err: err}) }

func (w *watch) stop() {
	w.mu.Lock()
	w.timer.Stop()
	w.paused = 1 // no touch re-arms it
	w.mu.Unlock()
	w.cancel(nil)
}
