package core

import (
	"context"
	"sync"
)

// checks are the Prepare RPCs of calls that may join one concurrency-safe
// group, run together. Prepare changes nothing (the tool contract), so a
// check may run before the calls ahead of it have been judged; what the
// turn must do in order, the hooks, the permission chain and its asks,
// it does after, one call at a time (judge). A check the turn does not use,
// because a call ahead of it turned out not to be concurrency-safe and
// must run first, is cancelled and thrown away.
type checks struct {
	calls  []*call
	ready  []chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startChecks checks uses, each on its own goroutine; one is checked on
// the caller's, and may be guessed when it runs alone whatever its answer
// (alone; speculate.go). The caller bounds len(uses) by
// limits.max_parallel.
func (h *Host) startChecks(ctx context.Context, uses []ToolUse, alone bool) *checks {
	cctx, cancel := context.WithCancel(ctx)
	w := &checks{calls: make([]*call, len(uses)), ready: make([]chan struct{}, len(uses)), cancel: cancel}
	if len(uses) == 1 {
		w.calls[0] = h.check(cctx, uses[0], alone)
		w.ready[0] = make(chan struct{})
		close(w.ready[0])
		return w
	}
	for i, u := range uses {
		w.ready[i] = make(chan struct{})
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer close(w.ready[i])
			w.calls[i] = h.check(cctx, u, false)
		}()
	}
	return w
}

// get waits for the i-th check.
func (w *checks) get(i int) *call {
	<-w.ready[i]
	return w.calls[i]
}

// stop cancels the checks not yet finished and waits for every one: none
// is in flight afterwards.
func (w *checks) stop() {
	w.cancel()
	w.wg.Wait()
}
