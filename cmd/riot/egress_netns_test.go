//go:build linux

package main_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The addresses the namespace gives the test's names: public ones (TEST-NET-3),
// which the proxy reaches without allow_private, on the namespace's own
// loopback.
const (
	allowedAddr = "203.0.113.10"
	deniedAddr  = "203.0.113.20"
)

// The network policy end to end, through the riot CLI: `riot call Bash`
// with [sandbox.network] mode = "proxy" allowing allowed.test clones a git
// repository from allowed.test over smart HTTP, a name no rule covers
// (denied.test) is refused with the name and the config line that would
// allow it in the result, and a command that ignores the proxy and
// connects by address directly finds no network. On a terminal, a name
// no rule covers is asked about, and "always" saves it for the next run.
//
// The test re-executes itself in new user, network and mount namespaces,
// whose only interface is their own loopback, carrying the two addresses;
// a hosts file bound over /etc/hosts names allowed.test, denied.test and
// asked.test,
// and the HTTP and git servers listen there. Every process of the test
// (riot, its plugins, the proxy, the sandboxed commands, the servers) runs
// in that namespace, which has no route anywhere else: no packet of this
// test can leave it, whatever riot or a command does.
func TestEgressInANetworkNamespace(t *testing.T) {
	if os.Getenv(netnsEnv) != "" {
		egressInNamespace(t)
		return
	}
	requireSandbox(t)
	for _, tool := range []string{"ip", "git", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipOrFail(t, tool+" is not installed")
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEgressInANetworkNamespace$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		skipOrFail(t, fmt.Sprintf("cannot make user and network namespaces here: %v", err))
	case err != nil:
		t.Fatalf("in the namespace: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP"):
		skipOrFail(t, "in the namespace: "+string(out))
	case !strings.Contains(string(out), "--- PASS: TestEgressInANetworkNamespace"):
		t.Fatalf("the test did not run in the namespace:\n%s", out)
	}
	t.Logf("in the namespace:\n%s", out)
}

// skipOrFail skips, or fails where RIOT_REQUIRE_SANDBOX is set, as CI does.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
		t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %s", why)
	}
	t.Skip(why)
}

// egressInNamespace is the test proper, in the namespaces.
func egressInNamespace(t *testing.T) {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"addr", "add", allowedAddr + "/32", "dev", "lo"},
		{"addr", "add", deniedAddr + "/32", "dev", "lo"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if out, _ := exec.Command("ip", "-o", "link").Output(); strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Fatalf("the namespace has more than its loopback:\n%s", out)
	}
	// The hosts file, bound over /etc/hosts in this mount namespace only.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatal(err)
	}
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n"+allowedAddr+" allowed.test\n"+deniedAddr+" denied.test asked.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(hosts, "/etc/hosts", "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	if addrs, err := net.LookupHost("allowed.test"); err != nil || len(addrs) != 1 || addrs[0] != allowedAddr {
		t.Fatalf("allowed.test resolves to %v, %v", addrs, err)
	}

	srv := newNamespaceServer(t)
	e := newEnv(t)
	e.userConfig(`[permissions]
allow = ["Bash(git clone:*)", "Bash(curl:*)"]

[sandbox]
mode = "required"

[sandbox.network]
mode = "proxy"
allowed_domains = ["allowed.test"]
`)

	// git over smart HTTP, through the proxy.
	clone := fmt.Sprintf(`{"command":"git clone http://allowed.test:%d/repo.git cloned"}`, srv.port)
	e.riot("", "call", "Bash", clone).want(t, 0)
	if b, err := os.ReadFile(filepath.Join(e.ws, "cloned", "README")); err != nil || string(b) != "cloned through riot's proxy\n" {
		t.Fatalf("the clone: %q, %v", b, err)
	}
	// And plain HTTP.
	r := e.riot("", "call", "Bash", fmt.Sprintf(`{"command":"curl -sS --fail --max-time 20 http://allowed.test:%d/"}`, srv.port))
	r.want(t, 0, fmt.Sprintf("hello from allowed.test:%d", srv.port))

	// A name no rule covers, with nobody to ask: refused, named, with the
	// line that would allow it.
	r = e.riot("", "call", "Bash", fmt.Sprintf(`{"command":"curl -sS --fail --max-time 20 http://denied.test:%d/"}`, srv.port))
	r.want(t, 1,
		fmt.Sprintf("denied.test:%d: denied.test is not an allowed domain, and nobody could be asked", srv.port),
		`allowed_domains = ["denied.test"] under [sandbox.network] in .riot/config.toml`,
		"Do not retry these connections")
	t.Logf("the refusal, as the model sees it:\n%s", r.stdout)

	// Around the proxy, by address: no network at all.
	r = e.riot("", "call", "Bash", fmt.Sprintf(`{"command":"curl --noproxy '*' -sS --max-time 20 http://%s:%d/"}`, allowedAddr, srv.port))
	r.want(t, 1, "curl: (7)")
	t.Logf("around the proxy:\n%s", r.stdout)

	if got := srv.hosts(); strings.Join(got, " ") != fmt.Sprintf("allowed.test:%d", srv.port) {
		t.Errorf("the server was reached for %v; want allowed.test alone", got)
	}

	// On a terminal, the name is asked about; "always" saves the entry as
	// the user's, so the next run, with nobody to ask, lets it through.
	asked := fmt.Sprintf(`{"command":"curl -sS --fail --max-time 20 http://asked.test:%d/"}`, srv.port)
	tm := e.onTerminal("call", "Bash", asked)
	tm.waitFor(fmt.Sprintf("wants to connect to asked.test:%d, which no [sandbox.network] rule allows.", srv.port))
	tm.waitFor("Answer: ")
	tm.answer("a")
	if shown, code := tm.wait(); code != 0 || !strings.Contains(tm.stdout.String(), fmt.Sprintf("hello from asked.test:%d", srv.port)) ||
		!strings.Contains(shown, "riot: saved to .riot/config.local.toml; this workspace is not trusted") {
		t.Fatalf("always: exit %d\n%s\n%s", code, shown, tm.stdout.String())
	} else {
		t.Logf("the question on the terminal:\n%s", shown)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, ".riot", "config.local.toml")); err != nil || !strings.Contains(string(b), fmt.Sprintf("[sandbox.network]\nallowed_domains = [\"asked.test:%d\"]", srv.port)) {
		t.Fatalf("config.local.toml: %q %v", b, err)
	}
	e.riot("", "call", "Bash", asked).want(t, 0, fmt.Sprintf("hello from asked.test:%d", srv.port))
}

// namespaceServer serves, on every address of the namespace, a bare git
// repository over smart HTTP (git http-backend through CGI) under
// /repo.git/, and a greeting elsewhere; it records the Host of each
// request.
type namespaceServer struct {
	port int
	mu   sync.Mutex
	seen map[string]bool
}

func newNamespaceServer(t *testing.T) *namespaceServer {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(t.TempDir(), "work")
	gitEnv := append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=riot", "GIT_AUTHOR_EMAIL=riot@example.invalid",
		"GIT_COMMITTER_NAME=riot", "GIT_COMMITTER_EMAIL=riot@example.invalid")
	run := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, gitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	run(work, "init", "-q")
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("cloned through riot's proxy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(work, "add", "README")
	run(work, "commit", "-q", "-m", "first")
	run(root, "clone", "-q", "--bare", work, "repo.git")
	backend := filepath.Join(run(root, "--exec-path"), "git-http-backend")

	s := &namespaceServer{seen: map[string]bool{}}
	git := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + root}}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.Host] = true
		s.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/repo.git/") {
			git.ServeHTTP(w, r)
			return
		}
		fmt.Fprintf(w, "hello from %s", r.Host)
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	s.port = l.Addr().(*net.TCPAddr).Port
	return s
}

// hosts are the Hosts the server was asked for.
func (s *namespaceServer) hosts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for h := range s.seen {
		out = append(out, h)
	}
	return out
}
