package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := guard(ok, HTTPOptions{Token: "tok", Origins: []string{"https://app.example"}})
	for _, c := range []struct {
		auth, origin string
		want         int
		body         string
	}{
		{"Bearer tok", "", http.StatusTeapot, ""},
		{"Bearer tok", "http://localhost:3000", http.StatusTeapot, ""},
		{"Bearer tok", "http://127.0.0.1", http.StatusTeapot, ""},
		{"Bearer tok", "https://[::1]:8443", http.StatusTeapot, ""},
		{"Bearer tok", "https://app.example", http.StatusTeapot, ""},
		{"Bearer tok", "https://app.example:444", http.StatusForbidden, "--allow-origin https://app.example:444"},
		{"Bearer tok", "https://evil.example", http.StatusForbidden, "is not allowed"},
		{"Bearer tok", "http://localhost.evil.example", http.StatusForbidden, "is not allowed"},
		{"Bearer tok", "http://127.0.0.1.nip.io", http.StatusForbidden, "is not allowed"},
		{"Bearer tok", "file://localhost", http.StatusForbidden, "is not allowed"},
		{"Bearer tok", "null", http.StatusForbidden, "is not allowed"},
		{"Bearer tok", "http://", http.StatusForbidden, "is not allowed"},
		{"", "", http.StatusUnauthorized, "Authorization: Bearer"},
		{"tok", "", http.StatusUnauthorized, "Authorization: Bearer"},
		{"Bearer to", "", http.StatusUnauthorized, "Authorization: Bearer"},
		{"Bearer tokk", "", http.StatusUnauthorized, "Authorization: Bearer"},
		{"bearer tok", "", http.StatusUnauthorized, "Authorization: Bearer"},
		// An origin is checked before the token, so a page on another
		// origin learns nothing about it.
		{"", "https://evil.example", http.StatusForbidden, "is not allowed"},
	} {
		req := httptest.NewRequest("POST", "http://127.0.0.1:1/", nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want || !strings.Contains(rec.Body.String(), c.body) {
			t.Errorf("auth %q origin %q: %d %q, want %d with %q", c.auth, c.origin, rec.Code, rec.Body.String(), c.want, c.body)
		}
		if c.want == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("auth %q: a 401 without WWW-Authenticate", c.auth)
		}
	}
}

func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		in     string
		remote bool
		want   string
		err    string
	}{
		{"8765", false, "127.0.0.1:8765", ""},
		{":8765", false, "127.0.0.1:8765", ""},
		{"127.0.0.1:0", false, "127.0.0.1:0", ""},
		{"localhost:9", false, "localhost:9", ""},
		{"[::1]:9", false, "[::1]:9", ""},
		{"127.1.2.3:9", false, "127.1.2.3:9", ""},
		{"0.0.0.0:9", false, "", "not a loopback address"},
		{"[::]:9", false, "", "not a loopback address"},
		{"10.0.0.1:9", false, "", "not a loopback address"},
		{"example.com:9", false, "", "not a loopback address"},
		{"0.0.0.0:9", true, "0.0.0.0:9", ""},
		{"a:b:c", false, "", "not HOST:PORT"},
	} {
		got, err := ListenAddr(c.in, c.remote)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %q %v, want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

func TestLoadOrCreateToken(t *testing.T) {
	dir := t.TempDir()
	path := TokenFile(filepath.Join(dir, "state"))
	tok, err := LoadOrCreateToken(path)
	if err != nil || len(tok) != 64 {
		t.Fatalf("new token %q %v", tok, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v %v", info, err)
	}
	if again, err := LoadOrCreateToken(path); err != nil || again != tok {
		t.Fatalf("the file's token %q %v, want %q", again, err, tok)
	}
	other := TokenFile(filepath.Join(dir, "other"))
	if tok2, _ := LoadOrCreateToken(other); tok2 == tok {
		t.Fatal("two token files hold the same token")
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a group-readable token file: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateToken(empty); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("an empty token file: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateToken(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a symlinked token file: %v", err)
	}
}

// Serving HTTP without a token is refused before anything listens.
func TestServeHTTPNeedsToken(t *testing.T) {
	if err := (&Server{}).ServeHTTP(t.Context(), nil, HTTPOptions{}); err == nil || !strings.Contains(err.Error(), "bearer token") {
		t.Fatalf("ServeHTTP without a token: %v", err)
	}
}

// A call's POST is found by the id riot set; a client's own id is replaced,
// and an id of a POST that is over reads as ended.
func TestPostsBind(t *testing.T) {
	var p posts
	var during context.Context
	var header http.Header
	h := p.bind(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		header = r.Header.Clone()
		during = p.done(r.Header)
	}))
	req := httptest.NewRequest("POST", "http://127.0.0.1/", nil)
	req.Header.Set(postHeader, "forged")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if id := header.Get(postHeader); id == "forged" || len(id) != 32 {
		t.Fatalf("the POST id is %q", id)
	}
	if during == nil || during.Err() != nil {
		t.Fatalf("during the POST its context is %v", during)
	}
	if after := p.done(header); after == nil || after.Err() == nil {
		t.Fatal("after the POST its id does not read as ended")
	}
	if p.done(http.Header{}) != nil {
		t.Fatal("a call without a POST id is bound to one")
	}
	if len(p.ctxs) != 0 {
		t.Fatalf("POSTs kept after they ended: %v", p.ctxs)
	}
	// Other methods get no id, and lose a forged one.
	get := httptest.NewRequest("GET", "http://127.0.0.1/", nil)
	get.Header.Set(postHeader, "forged")
	h.ServeHTTP(httptest.NewRecorder(), get)
	if header.Get(postHeader) != "" {
		t.Fatalf("a GET carries %q", header.Get(postHeader))
	}
}
