package mcpserver

import (
	"net/http"
)

// The probe paths a kubelet (or any supervisor) reaches without the bearer
// token. They answer a status and a word, nothing about the session.
const (
	// HealthPath is liveness: the process serves HTTP.
	HealthPath = "/healthz"
	// ReadyPath is readiness: the host is built and takes new calls; it
	// fails once shutdown has begun, so no new session is routed here.
	ReadyPath = "/readyz"
)

// health answers the probe paths ahead of the token check and passes
// every other request on. ServeHTTP starts once the host is built, so a
// server that answers at all has its host.
func (s *Server) health(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != HealthPath && r.URL.Path != ReadyPath {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed: probe with GET.", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == ReadyPath && s.shutdown.cause() != nil {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
}
