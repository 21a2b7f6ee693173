package session

import (
	"sync"
	"time"
)

// writeBehind is a session's background writer. Changes are applied to the
// view in memory at once and queued; the writer takes whatever is queued
// when it wakes and merges it into the state on disk under the lock, in
// one write, exactly as a synchronous change would. What is queued or
// being written is applied again over any version reloaded from disk, so
// the view never loses a change the host made.
//
// The writer waits writeSettle after the first change it is woken for
// before it writes: a session host flushes after each turn's results, so
// the changes of a turn shorter than that are written once, after it,
// instead of beside its calls, where the write's encoding, fsyncs and
// rename took the CPU and the disk from the call that was still running
// (BENCHMARKS.md, "An attached Bash turn, hop by hop"). A longer turn's
// changes are written writeSettle after the first.
//
// A change not yet written when the process is killed is lost. The loss
// fails closed: a lost Read record makes Edit say the file wasn't read.
// Grants are written before AddGrants returns (session.go).
type writeBehind struct {
	// Guarded by Session.mu.
	pending  []func(*data) // queued, not yet taken by a write
	inflight []func(*data) // taken by the write under way

	wmu  sync.Mutex // one write at a time: the writer's or Flush's
	kick chan struct{}
	// after is time.After; tests hold the settling window open or end it.
	after func(time.Duration) <-chan time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// WriteBehind makes s write its changes in the background: for the one
// process that owns the session (a session host). Call Flush to have them
// on disk, and Close when done. An ephemeral session has nothing to write.
func (s *Session) WriteBehind() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" || s.wb != nil {
		return
	}
	w := &writeBehind{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), after: time.After}
	s.wb = w
	go s.writer(w)
}

func (s *Session) writer(w *writeBehind) {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
			if !s.settleAndWrite(w) {
				return
			}
		}
	}
}

// writeSettle is how long the writer lets changes gather before it writes
// them, unless a Flush writes them first.
const writeSettle = time.Second

// settleAndWrite waits out the settling window, then writes what is still
// queued (a Flush meanwhile leaves nothing). It reports false when the
// session is closing, which writes what is queued itself.
func (s *Session) settleAndWrite(w *writeBehind) bool {
	select {
	case <-w.stop:
		return false
	case <-w.after(writeSettle):
	}
	// A failure stays queued for the next write; Flush reports it.
	_ = s.write(w)
	return true
}

// queue adds a change applied in memory; the caller holds Session.mu.
func (w *writeBehind) queue(f func(*data)) {
	w.pending = append(w.pending, f)
	select {
	case w.kick <- struct{}{}:
	default: // the writer is already due to wake, and takes this one too
	}
}

// reapply applies the changes not yet on disk to d, a version just
// loaded; the caller holds Session.mu.
func (w *writeBehind) reapply(d *data) {
	if w == nil {
		return
	}
	for _, f := range w.inflight {
		f(d)
	}
	for _, f := range w.pending {
		f(d)
	}
}

// write persists what is queued, in one merge under the lock.
func (s *Session) write(w *writeBehind) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	s.mu.Lock()
	batch := w.pending
	w.pending, w.inflight = nil, batch
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	d, v, err := s.persist(batch, s.memory, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	w.inflight = nil
	s.saved(err)
	if err != nil {
		w.pending = append(batch, w.pending...)
		return err
	}
	for _, f := range w.pending {
		f(&d)
	}
	s.data, s.seen = d, v
	return nil
}

// Flush writes the changes not yet on disk and waits until they are. It
// returns the error of the write, which leaves them queued. A session
// that writes synchronously has nothing to flush.
func (s *Session) Flush() error {
	s.mu.Lock()
	w := s.wb
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	return s.write(w)
}

// Close stops the background writer, writes what is queued and returns
// the session to synchronous writes. It is safe to call more than once.
func (s *Session) Close() error {
	s.mu.Lock()
	w := s.wb
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
	for {
		if err := s.write(w); err != nil {
			s.mu.Lock()
			s.wb = nil // what failed to be written is lost, as on a kill
			s.mu.Unlock()
			return err
		}
		s.mu.Lock()
		if len(w.pending) == 0 {
			s.wb = nil
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
	}
}
