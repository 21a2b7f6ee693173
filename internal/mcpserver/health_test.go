package mcpserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
)

// The probe paths answer before the token check, a word and no more;
// readiness fails once shutdown has begun; every other path goes on to the
// guard.
func TestHealth(t *testing.T) {
	s := &Server{}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := s.health(guard(next, HTTPOptions{Token: "tok"}))
	do := func(method, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "http://127.0.0.1:1"+path, nil))
		return rec.Code, rec.Body.String()
	}
	for _, c := range []struct {
		method, path string
		want         int
		body         string
	}{
		{"GET", "/healthz", http.StatusOK, "ok\n"},
		{"HEAD", "/readyz", http.StatusOK, ""},
		{"GET", "/readyz", http.StatusOK, "ok\n"},
		{"POST", "/healthz", http.StatusMethodNotAllowed, "probe with GET"},
		{"GET", "/healthz/", http.StatusUnauthorized, "Authorization: Bearer"},
		{"GET", "/", http.StatusUnauthorized, "Authorization: Bearer"},
	} {
		if code, body := do(c.method, c.path); code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.path, code, body, c.want, c.body)
		}
	}
	s.shutdown.begin(errors.New("terminated signal received"))
	if code, body := do("GET", "/readyz"); code != http.StatusServiceUnavailable || body != "shutting down\n" {
		t.Errorf("readyz in shutdown: %d %q", code, body)
	}
	if code, _ := do("GET", "/healthz"); code != http.StatusOK {
		t.Errorf("healthz in shutdown: %d", code)
	}
}

// A call cancelled by shutdown says so, and what to do, in place of the
// host's words for a caller's cancel; its own output stays. Nothing
// changes before shutdown, nor for a call that was not cancelled.
func TestShutdownNote(t *testing.T) {
	s := &Server{}
	running := core.ToolResult{Status: core.StatusCancelled, Content: []core.Block{
		{Type: "text", Text: "partial output\n"},
		{Type: "text", Text: "Cancelled while running: the turn was stopped by the user or the agent. The call may have partially run."},
	}}
	if got := s.shutdownNote(running); len(got.Content) != 2 || got.Content[1].Text != running.Content[1].Text {
		t.Fatalf("changed before shutdown: %+v", got)
	}
	s.shutdown.begin(errors.New("terminated signal received"))
	got := s.shutdownNote(running)
	if len(got.Content) != 2 || !strings.HasPrefix(got.Content[0].Text, "Cancelled while running: riot is shutting down (terminated signal received)") || got.Content[1].Text != "partial output\n" {
		t.Errorf("a running call: %+v", got.Content)
	}
	notRun := core.ToolResult{Status: core.StatusCancelled, Content: []core.Block{{Type: "text", Text: "Not run: the turn was stopped by the user or the agent before this call started."}}}
	if got := s.shutdownNote(notRun); len(got.Content) != 1 || !strings.HasPrefix(got.Content[0].Text, "Not run: riot is shutting down") {
		t.Errorf("a call not run: %+v", got.Content)
	}
	ok := core.ToolResult{Status: core.StatusOK, Content: []core.Block{{Type: "text", Text: "done"}}}
	if got := s.shutdownNote(ok); len(got.Content) != 1 || got.Content[0].Text != "done" {
		t.Errorf("an ok call: %+v", got.Content)
	}
}
