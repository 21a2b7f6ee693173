package main_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
)

// The MCP conformance suite's server scenarios against riot mcp, at
// 2025-11-25 and 2026-07-28, over Streamable HTTP and over stdio through a
// relay (the suite drives a server by URL only), riot having a plugin with
// the suite's fixture tools. testdata/mcp/conformance-baseline.yml names
// the scenarios that do not apply to riot and says why; every other one
// must pass. The suite checks every message riot sends against the
// negotiated revision's schema as it goes. It leaves out the extensions
// (tasks, skills), which riot does not offer.
//
// .ci/run installs the suite and Node 22, which it needs, and sets
// RIOT_TEST_MCP_CONFORMANCE and RIOT_TEST_NODE22.
func TestMCPConformance(t *testing.T) {
	suite := conformanceSuite(t)
	baseline, err := filepath.Abs("testdata/mcp/conformance-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("http", func(t *testing.T) {
		e := conformanceEnv(t)
		h := e.listen(t, nil, "--token", "conformance-token")
		url := bearerProxy(t, h.url, "conformance-token")
		for _, revision := range []string{"2025-11-25", "2026-07-28"} {
			suite.run(t, url, revision, "--suite", "all", "--expected-failures", baseline)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		url := stdioRelay(t, conformanceEnv(t))
		// The relay answers HTTP for riot on stdio, so the scenarios about
		// HTTP itself test the relay: where it does less than riot's HTTP
		// (Host and Origin checks, header validation, status codes), their
		// failures are not riot's; those that pass through it pass on the
		// relay's HTTP, riot's stdio behind it. And on stdio no header
		// names the revision: a request whose _meta lacks it is an older
		// client's, which riot answers as such (no server/discover before
		// initialize), where HTTP rejects it as a bad 2026-07-28 request.
		stdio := filepath.Join(t.TempDir(), "baseline.yml")
		relayOnly := []string{"dns-rebinding-protection", "http-header-validation",
			"server-stateless:sep-2575-request-meta-invalid-missing-meta",
			"server-stateless:sep-2575-request-meta-invalid-missing-protocol-version"}
		for _, check := range []string{"meta-invalid-400", "unsupported-version-400", "header-mismatch-400",
			"method-not-found-404", "method-not-found-404-initialize", "method-not-found-404-ping",
			"method-not-found-404-logging-setlevel", "method-not-found-404-resources-subscribe",
			"method-not-found-404-resources-unsubscribe"} {
			relayOnly = append(relayOnly, "server-stateless:sep-2575-http-server-"+check)
		}
		b, err := os.ReadFile(baseline)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range relayOnly {
			b = append(b, "  - "+s+"\n"...)
		}
		if err := os.WriteFile(stdio, b, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, revision := range []string{"2025-11-25", "2026-07-28"} {
			suite.run(t, url, revision, "--suite", "all", "--expected-failures", stdio)
		}
	})
}

// conformance is the suite's CLI and the Node that runs it.
type conformance struct{ node, cli string }

// conformanceSuite finds the suite .ci/run installed; without it the test
// skips, except in CI.
func conformanceSuite(t *testing.T) conformance {
	t.Helper()
	dir, node := os.Getenv("RIOT_TEST_MCP_CONFORMANCE"), os.Getenv("RIOT_TEST_NODE22")
	if dir == "" || node == "" {
		msg := "RIOT_TEST_MCP_CONFORMANCE and RIOT_TEST_NODE22 are not set (.ci/run installs @modelcontextprotocol/conformance and Node 22 and sets them)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cli := filepath.Join(dir, "dist", "index.js")
	for _, p := range []string{cli, node} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	return conformance{node: node, cli: cli}
}

// run runs the suite's server leg against url at revision; it fails on
// any failure the baseline does not name, and on an entry that passes.
func (c conformance) run(t *testing.T, url, revision string, args ...string) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command(c.node, append([]string{c.cli, "server", "--url", url, "--spec-version", revision, "--timeout", "20000", "-o", out}, args...)...)
	cmd.Dir = out
	// The suite's client must reach the loopback servers directly.
	cmd.Env = append(os.Environ(), "NO_PROXY=*", "no_proxy=*", "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance %s %v failed (%v):\n%s", revision, args, err, summary(b))
	}
	// The suite ran something: a version that renamed or dropped the
	// scenarios would pass an empty run.
	if !regexp.MustCompile(`(?m)^Total: [1-9]\d* passed`).Match(b) {
		t.Fatalf("conformance %s %v ran nothing:\n%s", revision, args, b)
	}
}

// summary is the end of the suite's output, where it lists what failed.
func summary(b []byte) string {
	if i := bytes.LastIndex(b, []byte("=== SUMMARY")); i >= 0 {
		return string(b[i:])
	}
	return string(b)
}

// conformancePlugin builds the plugin serving the suite's fixture tools.
var conformancePlugin = sync.OnceValues(func() (string, error) {
	out := filepath.Join(bin.dir, "conformance-plugins", "riot-tool-conformance")
	if b, err := exec.Command("go", "build", "-o", out, "github.com/riot-tools/riot/internal/testplugins/conformance").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the conformance plugin: %w\n%s", err, b)
	}
	return out, nil
})

// conformanceEnv is an environment whose riot has the conformance plugin.
func conformanceEnv(t *testing.T) *env {
	t.Helper()
	p, err := conformancePlugin()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("plugin_dirs = [%q]\n\n[plugins.conformance]\nenabled = true\n", filepath.Dir(p)))
	return e
}

// bearerProxy serves target with the bearer token added to each request:
// the suite's client sends none. Bodies are passed whole, responses as
// they come, each write flushed, so SSE streams stay streams.
func bearerProxy(t *testing.T, target, token string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, target, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header = r.Header.Clone()
		req.Host = r.Host
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := res.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// stdioRelay serves the suite's HTTP client over riot mcp on stdio: an
// initialize starts a riot mcp of its own, whose session the relay names;
// requests of the stateless revision (no session) share one riot mcp.
// Each request's response comes back as an SSE stream, with whatever riot
// sent meanwhile (progress, questions) before it. Request ids are the
// relay's own on the pipe, so that clients sharing a riot mcp cannot
// collide.
func stdioRelay(t *testing.T, e *env) string {
	t.Helper()
	r := &relay{t: t, e: e, sessions: map[string]*relayChild{}}
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		srv.Close()
		r.mu.Lock()
		children := []*relayChild{r.shared}
		for _, c := range r.sessions {
			children = append(children, c)
		}
		r.mu.Unlock()
		for _, c := range children {
			c.stop()
		}
	})
	return srv.URL + "/mcp"
}

type relay struct {
	t        *testing.T
	e        *env
	mu       sync.Mutex
	sessions map[string]*relayChild
	shared   *relayChild
	next     int64
}

// relayChild is one riot mcp on stdio.
type relayChild struct {
	cmd  *exec.Cmd
	inMu sync.Mutex
	in   io.WriteCloser
	done chan struct{}

	mu sync.Mutex
	// waiting are the requests in flight by the relay's id; the last one
	// started also gets the messages that answer no request.
	waiting map[string]chan []byte
	order   []string
}

func (r *relay) start() (*relayChild, error) {
	cmd := r.e.command("", "mcp")
	cmd.Stdin = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &relayChild{cmd: cmd, in: in, done: make(chan struct{}), waiting: map[string]chan []byte{}}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			c.route(bytes.Clone(sc.Bytes()))
		}
		_ = cmd.Wait()
	}()
	return c, nil
}

func (c *relayChild) stop() {
	if c == nil {
		return
	}
	_ = c.in.Close()
	<-c.done
}

// route hands a message from riot to the request it answers, or else to
// the request started last.
func (c *relayChild) route(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	to := ""
	if m.Method == "" && len(m.ID) > 0 {
		to = string(m.ID)
	} else if n := len(c.order); n > 0 {
		to = c.order[n-1]
	}
	if ch := c.waiting[to]; ch != nil {
		select {
		case ch <- msg:
		default: // a stream that stopped reading
		}
	}
}

func (c *relayChild) write(msg []byte) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	_, err := c.in.Write(append(msg, '\n'))
	return err
}

func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	sid := req.Header.Get("Mcp-Session-Id")
	switch req.Method {
	case http.MethodPost:
	case http.MethodDelete:
		r.mu.Lock()
		c := r.sessions[sid]
		delete(r.sessions, sid)
		r.mu.Unlock()
		if c == nil {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		c.stop()
		return
	default:
		http.Error(w, "the relay offers no standalone stream", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, "send one JSON-RPC message", http.StatusBadRequest)
		return
	}
	var method string
	_ = json.Unmarshal(msg["method"], &method)
	c, status := r.child(sid, method, w)
	if c == nil {
		http.Error(w, http.StatusText(status), status)
		return
	}
	id, isRequest := msg["id"]
	if !isRequest || method == "" {
		// A notification, or an answer to riot's question.
		if err := c.write(body); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	r.mu.Lock()
	r.next++
	ours := strconv.FormatInt(r.next, 10)
	r.mu.Unlock()
	msg["id"] = json.RawMessage(ours)
	line, _ := json.Marshal(msg)
	ch := make(chan []byte, 64)
	c.mu.Lock()
	c.waiting[ours] = ch
	c.order = append(c.order, ours)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, ours)
		for i, o := range c.order {
			if o == ours {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}()
	if err := c.write(line); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for {
		select {
		case m := <-ch:
			var got map[string]json.RawMessage
			_ = json.Unmarshal(m, &got)
			final := string(got["id"]) == ours && len(got["method"]) == 0
			if final {
				got["id"] = id
				m, _ = json.Marshal(got)
			}
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
			w.(http.Flusher).Flush()
			if final {
				return
			}
		case <-c.done:
			return
		case <-req.Context().Done():
			return
		}
	}
}

// child is the riot mcp a message goes to: a new one for initialize, the
// session's, or else the shared one (the stateless revision's requests);
// nil and the HTTP status when there is none.
func (r *relay) child(sid, method string, w http.ResponseWriter) (*relayChild, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case method == "initialize":
		c, err := r.start()
		if err != nil {
			r.t.Error(err)
			return nil, http.StatusInternalServerError
		}
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		sid = hex.EncodeToString(b)
		r.sessions[sid] = c
		w.Header().Set("Mcp-Session-Id", sid)
		return c, 0
	case sid != "":
		if c := r.sessions[sid]; c != nil {
			return c, 0
		}
		return nil, http.StatusNotFound
	default:
		if r.shared == nil {
			c, err := r.start()
			if err != nil {
				r.t.Error(err)
				return nil, http.StatusInternalServerError
			}
			r.shared = c
		}
		return r.shared, 0
	}
}
