package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/riot-tools/riot/core"
)

// DefaultShutdownTimeout bounds a graceful shutdown when HTTPOptions gives
// none: below Kubernetes' default terminationGracePeriodSeconds (30), with
// room for the host to stop its plugins after it.
const DefaultShutdownTimeout = 20 * time.Second

// shutdownState records why the server is shutting down, once it is.
type shutdownState struct {
	mu  sync.Mutex
	why error
}

func (s *shutdownState) begin(why error) {
	// A signal's cause also reads as context.Canceled: only the bare one
	// says nothing.
	if why == nil || why == context.Canceled { //nolint:errorlint // the bare value, not what wraps it
		why = errors.New("riot was stopped")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.why == nil {
		s.why = why
	}
}

func (s *shutdownState) cause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// serveUntil serves srv on ln until ctx ends, then shuts down gracefully
// within bound: new connections are refused, every call in flight is
// cancelled and its Cancelled result, naming the shutdown, is answered on
// its own request before the connections close. Streams that carry no
// call (a GET's) end with the calls. It returns once shutdown is over.
func (s *Server) serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, bound time.Duration) error {
	if bound <= 0 {
		bound = DefaultShutdownTimeout
	}
	// Requests outlive the calls they carry, until shutdown ends: a
	// request whose context ended can no longer be answered.
	conns, endConns := context.WithCancel(context.Background())
	defer endConns()
	srv.BaseContext = func(net.Listener) context.Context { return conns }
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(s.callsCtx, cancel)()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
	drained := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(drained)
		s.shutdown.begin(context.Cause(ctx))
		s.stopCalls()
		sctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		// Shutdown closes the listener and waits for every request to be
		// answered; at the bound the rest are cut.
		_ = srv.Shutdown(sctx)
		endConns()
		_ = srv.Close()
	})
	err := srv.Serve(ln)
	if !stop() {
		<-drained
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// turnStopped is how the host words a call cancelled by its caller, which
// shutdown replaces with its cause.
const turnStopped = "the turn was stopped by the user or the agent"

// shutdownNote words a call that shutdown cancelled: it names the cause
// and tells the model what to do, in place of the host's generic words.
func (s *Server) shutdownNote(r core.ToolResult) core.ToolResult {
	why := s.shutdown.cause()
	if why == nil || r.Status != core.StatusCancelled {
		return r
	}
	ran := true
	content := make([]core.Block, 0, len(r.Content)+1)
	for _, b := range r.Content {
		if b.Type == "text" && strings.Contains(b.Text, turnStopped) {
			ran = !strings.HasPrefix(b.Text, "Not run")
			continue
		}
		content = append(content, b)
	}
	msg := fmt.Sprintf("Cancelled while running: riot is shutting down (%v), as when its pod is stopped. The call was stopped and may have partially run: once the session is back, check what it would have changed before re-issuing it.", why)
	if !ran {
		msg = fmt.Sprintf("Not run: riot is shutting down (%v), as when its pod is stopped. Re-issue this call once the session is back.", why)
	}
	r.Content = append([]core.Block{{Type: "text", Text: msg}}, content...)
	return r
}
