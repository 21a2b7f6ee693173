package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// HTTPOptions configures the Streamable HTTP transport.
type HTTPOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// Origins are the browser origins allowed besides loopback ones, such
	// as "https://app.example".
	Origins []string
	// ShutdownTimeout bounds the graceful shutdown once ctx ends
	// (DefaultShutdownTimeout when zero); keep it below the pod's
	// terminationGracePeriodSeconds.
	ShutdownTimeout time.Duration
}

// ServeHTTP serves MCP's Streamable HTTP transport on ln until ctx ends,
// every request behind the bearer token and the Origin check but the
// probes (health.go). When ctx ends, it shuts down gracefully
// (shutdown.go): every call in flight is answered Cancelled, naming the
// shutdown, within opts.ShutdownTimeout.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Token == "" {
		return errors.New("mcp over HTTP needs a bearer token")
	}
	srv := &http.Server{
		Handler:           s.health(guard(s.posts.bind(newHTTPRoute(s.mcp)), opts)),
		ReadHeaderTimeout: 10 * time.Second,
	}
	return s.serveUntil(ctx, srv, ln, opts.ShutdownTimeout)
}

// postHeader carries, from the HTTP layer to a call's handler, the id of
// the POST the call came in. riot sets it; a client's own is replaced.
const postHeader = "X-Riot-Post"

// posts maps each POST in progress to its context, which ends when the
// client goes away. Without an event store, a response whose POST is gone
// can never be delivered, so a call whose POST ends is cancelled: a client
// that closes its transport mid-call leaves nothing running.
type posts struct {
	mu   sync.Mutex
	ctxs map[string]context.Context
}

func (p *posts) bind(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(postHeader)
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		r.Header.Set(postHeader, id)
		p.mu.Lock()
		if p.ctxs == nil {
			p.ctxs = map[string]context.Context{}
		}
		p.ctxs[id] = r.Context()
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.ctxs, id)
			p.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// done is the context of the POST a call came in, or nil for a call that
// did not come over HTTP. A POST that is already over reads as a context
// that has ended.
func (p *posts) done(header http.Header) context.Context {
	id := header.Get(postHeader)
	if id == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ctx, ok := p.ctxs[id]; ok {
		return ctx
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	return ended
}

// guard lets a request through only with the bearer token and from an
// allowed origin. The Origin check is what the specification requires
// against DNS rebinding: a browser page on another origin must not reach a
// local server. A request without Origin is not from a browser.
func guard(next http.Handler, opts HTTPOptions) http.Handler {
	want := []byte("Bearer " + opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, opts.Origins) {
			http.Error(w, "Forbidden: origin "+origin+" is not allowed; start riot mcp with --allow-origin "+origin+" to allow it.", http.StatusForbidden)
			return
		}
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="riot"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer TOKEN, with the token riot mcp serves under (--token, $RIOT_MCP_TOKEN, or the state dir's mcp-token file).", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed accepts loopback origins and the ones configured.
func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListenAddr resolves a --listen value: a bare port or ":PORT" binds the
// loopback address; any other host must be loopback unless remote is set.
func ListenAddr(addr string, remote bool) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--listen %s is not HOST:PORT; use 127.0.0.1:PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !isLoopbackHost(host) && !remote {
		return "", fmt.Errorf("--listen %s is not a loopback address; riot serves MCP over HTTP on loopback only, unless --allow-remote is given", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// TokenFile is where a generated token lives in the state dir.
func TokenFile(stateDir string) string { return filepath.Join(stateDir, "mcp-token") }

// LoadOrCreateToken returns the token in path, creating it with a fresh
// random token, readable by its owner only, if it does not exist. A token
// file that others can read is refused: anyone who can read it can run
// tools.
func LoadOrCreateToken(path string) (string, error) {
	if info, err := os.Lstat(path); err == nil {
		if !info.Mode().IsRegular() || info.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("the token file %s is not a regular file readable by its owner only; run chmod 600 %s, or remove it for a new token", path, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the token file: %w", err)
		}
		if tok := strings.TrimSpace(string(data)); tok != "" {
			return tok, nil
		}
		return "", fmt.Errorf("the token file %s is empty; remove it for a new token", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("token file: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	tok := hex.EncodeToString(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create the token file: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("write the token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write the token file: %w", err)
	}
	return tok, nil
}
