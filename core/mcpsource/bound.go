package mcpsource

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
)

// DefaultMaxMessageBytes bounds one message from a server: a stdio line, an
// HTTP response body or a server-sent event. It is the MCP Go SDK's own
// default, so riot's bound fires where the SDK's would, with the cause known.
const DefaultMaxMessageBytes = 16 << 20

// errTooBig ends a read that went past the bound; what riot says is in the
// conn's oversize, not in this text.
var errTooBig = errors.New("message over riot's size bound")

// oversize records that a server sent a message over the bound.
type oversize struct {
	once sync.Once
	// done is closed once what is set.
	done chan struct{}
	what string
	// stop stops the server (a stdio process); nil for HTTP.
	stop func()
}

// exceeded records the first oversized message, as what it was, and stops
// the server if riot owns its process.
func (o *oversize) exceeded(what string) {
	o.once.Do(func() {
		o.what = what
		close(o.done)
		if o.stop != nil {
			o.stop()
		}
	})
}

// seen is the recorded oversized message's description, or "".
func (o *oversize) seen() string {
	select {
	case <-o.done:
		return o.what
	default:
		return ""
	}
}

// stopped says what riot did about it.
func (o *oversize) stopped() string {
	if o.stop != nil {
		return "riot stopped it"
	}
	return "riot dropped the connection to it"
}

// next says what the next call does.
func (o *oversize) next() string {
	if o.stop != nil {
		return "the next call restarts the server"
	}
	return "the next call reconnects"
}

// sizeText is a byte count as people read it.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// boundedTransport bounds what a remote server's responses may make riot
// hold: a body that is not an event stream is one message, an event stream
// is bounded event by event (it may stay open for the session).
type boundedTransport struct {
	next  http.RoundTripper
	limit int
	over  *oversize
	// refused, if set, keeps the first status of an error response, so
	// that a server that never started is named with it.
	refused *refusal
	// scan, if set, reads each tools/list response as it arrives.
	scan func([]byte)
}

func (t *boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 && t.refused != nil {
		t.refused.set(resp.StatusCode)
	}
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b := &boundedBody{rc: resp.Body, limit: t.limit, over: t.over, sse: mt == "text/event-stream"}
	if t.scan != nil && listsTools(r) {
		b.cap = &capture{scan: t.scan, sse: b.sse}
	}
	resp.Body = b
	return resp, nil
}

// boundedBody fails a read once the current message passes the limit. For
// an event stream a message ends at a blank line; otherwise the whole body
// is one message.
type boundedBody struct {
	rc    io.ReadCloser
	limit int
	over  *oversize
	sse   bool
	// n is the size of the message so far; lineLen that of the current
	// line, without its line break, for spotting a blank line.
	n, lineLen int
	err        error
	// cap, if set, copies what passes for a scan.
	cap *capture
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if b.cap != nil {
		defer func() {
			if b.err == nil {
				b.cap.add(p[:n])
			}
			if err != nil {
				b.cap.end()
				b.cap = nil
			}
		}()
	}
	if !b.sse {
		b.n += n
		if b.n > b.limit {
			return 0, b.exceeded("a single HTTP response body")
		}
		return n, err
	}
	for _, c := range p[:n] {
		b.n++
		if b.n > b.limit {
			return 0, b.exceeded("a single server-sent event")
		}
		switch c {
		case '\n':
			if b.lineLen == 0 {
				// A blank line ends the event.
				b.n = 0
			}
			b.lineLen = 0
		case '\r':
		default:
			b.lineLen++
		}
	}
	return n, err
}

func (b *boundedBody) exceeded(what string) error {
	b.over.exceeded(fmt.Sprintf("a message of more than %s (%s)", sizeText(b.limit), what))
	b.err = errTooBig
	return b.err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// refusal is the first HTTP error status a remote server answered.
type refusal struct {
	mu     sync.Mutex
	status int
}

func (r *refusal) set(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = status
	}
}

// code is the status, 0 when none came.
func (r *refusal) code() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// text is the status as "HTTP 401 Unauthorized", or "" when none came.
func (r *refusal) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		return ""
	}
	return fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status))
}
