package mcpsource

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// jsonLine is a JSON object of exactly n bytes, without a newline.
func jsonLine(n int) string {
	return `{"a":"` + strings.Repeat("x", n-len(`{"a":""}`)) + `"}`
}

func newOversize() (*oversize, *int) {
	stops := 0
	return &oversize{done: make(chan struct{}), stop: func() { stops++ }}, &stops
}

// Lines up to the bound pass whole, however many; the first longer one
// ends the stream, stops the server once and says why.
func TestCheckedBoundsEachLine(t *testing.T) {
	const limit = 4 << 10
	ok := strings.Repeat(jsonLine(limit)+"\n", 20) + jsonLine(limit) + "\r\n" + jsonLine(10)
	for _, tc := range []struct {
		name, in, what string
	}{
		{"at the bound", ok, ""},
		{"over it", ok + "\n" + jsonLine(limit+1) + "\n" + jsonLine(10) + "\n", "a message of more than 4 KiB (a single line without a newline)"},
		{"no end", ok + "\n" + strings.Repeat("a", 1<<20), "a message of more than 4 KiB (a single line without a newline)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			over, stops := newOversize()
			c := &conn{bad: make(chan struct{}), over: over}
			got, err := io.ReadAll(c.checked(io.NopCloser(strings.NewReader(tc.in)), limit, func([]byte) {}))
			if tc.what == "" {
				if err != nil || string(got) != tc.in || over.seen() != "" || *stops != 0 {
					t.Fatalf("err %v, %d of %d bytes, over %q, stops %d", err, len(got), len(tc.in), over.seen(), *stops)
				}
				return
			}
			if !errors.Is(err, errTooBig) || over.seen() != tc.what || *stops != 1 || string(got) != ok+"\n" {
				t.Fatalf("err %v, over %q, stops %d, passed %d bytes", err, over.seen(), *stops, len(got))
			}
		})
	}
}

// An event stream is bounded event by event, for it may stay open all
// session; any other body is one message.
func TestBoundedBodyBoundsEachMessage(t *testing.T) {
	const limit = 1 << 10
	event := "event: message\ndata: " + strings.Repeat("x", limit-len("event: message\ndata: \n\n")) + "\n\n"
	events := strings.Repeat(event, 50)
	crlf := "event: message\r\ndata: " + strings.Repeat("x", limit-len("event: message\r\ndata: \r\n\r\n")) + "\r\n\r\n"
	for _, tc := range []struct {
		name, in, what string
		sse            bool
	}{
		{"events at the bound", events, "", true},
		{"CRLF events at the bound", strings.Repeat(crlf, 50), "", true},
		{"one event over it", events + "event: message\ndata: " + strings.Repeat("x", limit) + "\n\n", "a message of more than 1 KiB (a single server-sent event)", true},
		{"a body at the bound", strings.Repeat("x", limit), "", false},
		{"a body over it", strings.Repeat("x", limit+1), "a message of more than 1 KiB (a single HTTP response body)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			over := &oversize{done: make(chan struct{})}
			b := &boundedBody{rc: io.NopCloser(strings.NewReader(tc.in)), limit: limit, over: over, sse: tc.sse}
			got, err := io.ReadAll(b)
			if tc.what == "" {
				if err != nil || string(got) != tc.in || over.seen() != "" {
					t.Fatalf("err %v, %d of %d bytes, over %q", err, len(got), len(tc.in), over.seen())
				}
				return
			}
			if !errors.Is(err, errTooBig) || over.seen() != tc.what || len(got) > len(tc.in)-1 {
				t.Fatalf("err %v, over %q, passed %d bytes", err, over.seen(), len(got))
			}
			if over.stopped() != "riot dropped the connection to it" || over.next() != "the next call reconnects" {
				t.Fatalf("%q %q", over.stopped(), over.next())
			}
		})
	}
}
