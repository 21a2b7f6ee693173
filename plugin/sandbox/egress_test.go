//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/egress"
	"github.com/riot-tools/riot/internal/proctest"
)

// loopbackNet is the network riot's proxy sees in these tests: made-up
// names resolve to documentation addresses, and the only address it can
// dial is the loopback server standing for one. No traffic leaves
// loopback, and the policy keeps refusing private addresses.
type loopbackNet struct {
	names  map[string]netip.Addr
	routes map[netip.AddrPort]string
}

func (n *loopbackNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n.names[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *loopbackNet) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	to, ok := n.routes[netip.MustParseAddrPort(address)]
	if !ok {
		return nil, fmt.Errorf("test network: no route to %s", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

// egressFixture is riot's real proxy on a Unix socket in the test's
// directory, allowing allowed.test (203.0.113.10, served on loopback), and
// a workspace to run commands in.
type egressFixture struct {
	bwrap string
	proxy *egress.Proxy
	sock  string
	ws    string
}

func newEgressFixture(t *testing.T) *egressFixture {
	bw := needBwrap(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from the origin, host %s", r.Host)
	}))
	t.Cleanup(origin.Close)
	rule, err := egress.ParseRule("allowed.test")
	if err != nil {
		t.Fatal(err)
	}
	public := netip.MustParseAddr("203.0.113.10")
	n := &loopbackNet{
		names:  map[string]netip.Addr{"allowed.test": public, "denied.test": netip.MustParseAddr("203.0.113.11")},
		routes: map[netip.AddrPort]string{netip.AddrPortFrom(public, 80): origin.Listener.Addr().String()},
	}
	proxy := egress.New(egress.Options{Policy: egress.Policy{Allowed: []egress.Rule{rule}}, Resolver: n, Dialer: n})
	dir := t.TempDir()
	f := &egressFixture{bwrap: bw, proxy: proxy, sock: filepath.Join(dir, "egress.sock"), ws: filepath.Join(dir, "ws")}
	if err := os.Mkdir(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(l) }()
	t.Cleanup(func() {
		_ = proxy.Close()
		if err := <-served; err != nil {
			t.Errorf("the proxy stopped with %v", err)
		}
	})
	return f
}

// profile is a writable call's in proxy mode, registered with the proxy
// as caller, hiding tokens and AWS keys but KEEP_TOKEN.
func (f *egressFixture) profile(caller string) *Profile {
	user, pass := f.proxy.Register(caller)
	return &Profile{
		Writable: true, Network: true, WritePaths: []string{f.ws},
		Egress:  &Egress{Socket: f.sock, User: user, Password: pass},
		HideEnv: []string{"*_token", "AWS_*"}, PassEnv: []string{"KEEP_TOKEN"},
	}
}

// run runs script under bash in p, in a pooled sandbox or a bwrap of its
// own, with extra as its fd 3 when not nil: its output and how it ended.
func (f *egressFixture) run(t *testing.T, pool *Pool, p *Profile, script string, extra *os.File) (string, error) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = []string{"PATH=/usr/bin:/bin", "GITHUB_TOKEN=ghp_secret", "KEEP_TOKEN=kept", "AWS_SECRET_ACCESS_KEY=aws_secret",
		"http_proxy=http://corp.example:8080", "HOME=" + f.ws}
	cmd.Stdout, cmd.Stderr = out, out
	if extra != nil {
		cmd.ExtraFiles = []*os.File{extra}
	}
	if pool != nil {
		proc, err := pool.Start(f.bwrap, p, cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = proc.Wait()
		b, _ := os.ReadFile(out.Name())
		return string(b), err
	}
	w, err := WrapWatched(p, f.bwrap, cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	w.Started(err)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	w.End()
	err = w.Check(err, nil)
	b, _ := os.ReadFile(out.Name())
	return string(b), err
}

// proxyScript reaches allowed.test through the proxy, is refused
// denied.test, finds no network without the proxy, and prints its proxy
// and secret variables.
const proxyScript = `
echo "allowed: $(curl -sS --max-time 20 http://allowed.test/ 2>&1)"
echo "socks: $(curl -sS --max-time 20 --proxy "$ALL_PROXY" http://allowed.test/ 2>&1)"
echo "denied: $(curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://denied.test/ 2>&1)"
out=$(curl -sS --max-time 20 --noproxy '*' http://203.0.113.10/ 2>&1); echo "direct: rc=$? $out"
out=$( (exec 3<>/dev/tcp/203.0.113.10/80) 2>&1); echo "devtcp: rc=$? $out"
env | grep -E '^(http_proxy|HTTP_PROXY|https_proxy|HTTPS_PROXY|ALL_PROXY|all_proxy|NO_PROXY|no_proxy|GITHUB_TOKEN|KEEP_TOKEN|AWS_SECRET_ACCESS_KEY|RIOT_SANDBOX_INIT)=' | sort
`

// In proxy mode a command, pooled or in a bwrap of its own, reaches an
// allowed name only through riot's proxy at 127.0.0.1:3128 with the
// call's credentials, is refused a name the policy does not allow, finds
// no network when it ignores the proxy, and goes without the variables
// the profile hides.
func TestProxyModeReachesOnlyTheProxy(t *testing.T) {
	f := newEgressFixture(t)
	for _, pooled := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "pooled"}[pooled], func(t *testing.T) {
			var pool *Pool
			if pooled {
				pool = &Pool{}
				defer pool.Close()
			}
			caller := "call-" + strconv.FormatBool(pooled)
			p := f.profile(caller)
			out, err := f.run(t, pool, p, proxyScript, nil)
			if err != nil {
				t.Fatalf("the script failed: %v\n%s", err, out)
			}
			if !strings.Contains(out, "allowed: hello from the origin, host allowed.test") {
				t.Errorf("the allowed name was not reached through the proxy:\n%s", out)
			}
			if !strings.Contains(out, "socks: hello from the origin, host allowed.test") {
				t.Errorf("the allowed name was not reached through the proxy's SOCKS5:\n%s", out)
			}
			if !strings.Contains(out, "denied: 403") {
				t.Errorf("the proxy did not refuse denied.test:\n%s", out)
			}
			if d := f.proxy.Denials(caller); !slices.ContainsFunc(d, func(d egress.Denial) bool { return d.Host == "denied.test" }) {
				t.Errorf("the proxy kept no denial of denied.test for the call: %+v", d)
			}
			// curl: exit 7, could not connect; bash: ENETUNREACH, as in a
			// namespace with loopback alone.
			if line := lineOf(out, "direct:"); !strings.HasPrefix(line, "direct: rc=7 ") {
				t.Errorf("curl ignoring the proxy found a network: %q", line)
			}
			if line := lineOf(out, "devtcp:"); !strings.Contains(line, "Network is unreachable") || strings.HasPrefix(line, "devtcp: rc=0") {
				t.Errorf("/dev/tcp found a network: %q", line)
			}
			cred := p.Egress.User + ":" + p.Egress.Password + "@127.0.0.1:3128"
			for _, want := range []string{
				"http_proxy=http://" + cred, "HTTP_PROXY=http://" + cred, "https_proxy=http://" + cred, "HTTPS_PROXY=http://" + cred,
				"ALL_PROXY=socks5h://" + cred, "all_proxy=socks5h://" + cred, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
				"KEEP_TOKEN=kept",
			} {
				if !slices.Contains(strings.Split(out, "\n"), want) {
					t.Errorf("the command's environment lacks %s:\n%s", want, out)
				}
			}
			for _, gone := range []string{"ghp_secret", "aws_secret", "corp.example", "RIOT_SANDBOX_INIT"} {
				if strings.Contains(out, gone) {
					t.Errorf("the command's environment has %s:\n%s", gone, out)
				}
			}
			f.proxy.Unregister(caller)
		})
	}
	if left := forwarders(t); len(left) > 0 {
		t.Errorf("forwarders outlived their sandboxes: %v", left)
	}
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// A command under the forwarder of a bwrap of its own is the command it
// would be without it: its descriptors and nothing more (not this binary),
// its exit status and the signal that ended it, and its group signalled
// (kill 0) without its sandbox ending under it.
func TestForwarderKeepsTheCommand(t *testing.T) {
	f := newEgressFixture(t)
	p := f.profile("call")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := f.run(t, nil, p, `echo via-fd3 >&3; ls /proc/self/fd | tr '\n' ' '; echo; trap 'echo trapped' TERM; kill -TERM 0; echo after; exit 3`, w)
	_ = w.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("want exit status 3, got %v\n%s", err, out)
	}
	b := make([]byte, 64)
	if n, _ := r.Read(b); string(b[:n]) != "via-fd3\n" {
		t.Errorf("fd 3 did not reach the command: %q", b[:n])
	}
	// 0, 1, 2, 3 and the one ls opens.
	if fds := strings.Fields(strings.Split(out, "\n")[0]); len(fds) != 5 {
		t.Errorf("the command has other descriptors than its own: %v\n%s", fds, out)
	}
	if !strings.Contains(out, "trapped\nafter\n") {
		t.Errorf("kill 0 did not reach the command alone:\n%s", out)
	}
	_, err = f.run(t, nil, p, `kill -KILL $$`, nil)
	if !errors.As(err, &exit) || exit.ExitCode() != 128+9 {
		t.Errorf("a command SIGKILL ended reads as %v; want status 137, as bwrap reports it", err)
	}
	if left := forwarders(t); len(left) > 0 {
		t.Errorf("forwarders outlived their sandboxes: %v", left)
	}
}

// Commands of calls with other credentials share one long-lived sandbox
// (the credentials are in each command's environment, not in the
// sandbox), and the forwarder ends with the pool.
func TestPoolSharesTheForwarder(t *testing.T) {
	f := newEgressFixture(t)
	pool := &Pool{}
	for _, caller := range []string{"a", "b"} {
		out, err := f.run(t, pool, f.profile(caller), `curl -sS --max-time 20 http://allowed.test/`, nil)
		if err != nil || !strings.Contains(out, "hello from the origin") {
			t.Fatalf("call %s: %v\n%s", caller, err, out)
		}
	}
	pool.mu.Lock()
	n := len(pool.boxes)
	pool.mu.Unlock()
	if n != 1 {
		t.Errorf("%d sandboxes for one profile's calls; want 1", n)
	}
	running := descendantsWithArg(t, egressArg)
	if len(running) != 1 {
		t.Fatalf("want the one sandbox's forwarder running, got %v", running)
	}
	// Like a command, it has no capability: the init's CAP_SYS_ADMIN
	// stays the init's.
	status, err := os.ReadFile("/proc/" + strconv.Itoa(running[0]) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if name, value, ok := strings.Cut(line, ":\t"); ok && strings.HasPrefix(name, "Cap") && strings.Trim(value, "0") != "" {
			t.Errorf("the forwarder has capabilities: %s", line)
		}
	}
	pool.Close()
	if left := forwarders(t); len(left) > 0 {
		t.Errorf("the forwarder outlived the pool: %v", left)
	}
}

// forwarders are the forwarder processes this test binary started that
// are still running, waited for: a sandbox ending takes its forwarder
// with it, but the kernel ends the PID namespace's processes after the
// call that ends it returns.
func forwarders(t *testing.T) []int {
	t.Helper()
	var left []int
	for _, pid := range descendantsWithArg(t, egressArg) {
		if !proctest.WaitExit(pid, 5*time.Second) {
			left = append(left, pid)
		}
	}
	return left
}

func descendantsWithArg(t *testing.T, arg string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !slices.Contains(strings.Split(string(b), "\x00"), arg) {
			continue
		}
		for p := parentOf(pid); p > 1; p = parentOf(p) {
			if p == self {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// The host daemons' sockets that a profile would show are hidden from its
// commands, pooled or not: ssh-agent's directory, the user's runtime
// directory (rootless docker and podman), DOCKER_HOST's socket; a socket
// the profile lists exactly is the user's to show, and other files stay.
func TestDaemonSocketsAreHidden(t *testing.T) {
	bw := needBwrap(t)
	ws := t.TempDir()
	sockets := map[string]string{}
	for _, name := range []string{"agent/agent.sock", "xdg/podman/podman.sock", "docker/docker.sock", "mine.sock", "allowed/docker.sock"} {
		path := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		sockets[name] = path
	}
	t.Setenv("SSH_AUTH_SOCK", sockets["agent/agent.sock"])
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(ws, "xdg"))
	t.Setenv("DOCKER_HOST", "unix://"+sockets["docker/docker.sock"])
	p := &Profile{Writable: true, WritePaths: []string{ws}, ReadPaths: []string{sockets["allowed/docker.sock"]}}
	var script strings.Builder
	for _, name := range slices.Sorted(maps.Keys(sockets)) {
		fmt.Fprintf(&script, "if [ -S %[1]s ]; then echo 'shown %[2]s'; else echo 'hidden %[2]s'; fi\n", sockets[name], name)
	}
	script.WriteString("ls -A " + filepath.Join(ws, "agent") + " " + filepath.Join(ws, "xdg") + "; ls -A /run /var/run 2>&1 | sed 's/^/run: /'\n")
	for _, pooled := range []bool{false, true} {
		out := runIn(t, bw, p, ws, script.String(), pooled)
		for _, want := range []string{"hidden agent/agent.sock", "hidden xdg/podman/podman.sock", "hidden docker/docker.sock", "shown mine.sock", "shown allowed/docker.sock"} {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("pooled %v: want %s:\n%s", pooled, want, out)
			}
		}
		// /run and /var/run are not in the sandbox at all.
		if strings.Count(out, "run: ls: cannot access") != 2 {
			t.Errorf("pooled %v: the sandbox shows /run or /var/run:\n%s", pooled, out)
		}
	}
}

func TestHideEnv(t *testing.T) {
	p := &Profile{HideEnv: []string{"*_token", "AWS_*", "["}, PassEnv: []string{"KEEP_TOKEN", "ssh_auth_sock"}}
	env := []string{"GITHUB_TOKEN=a", "KEEP_TOKEN=b", "aws_region=c", "PATH=/bin", "[=d", "ssh_auth_sock=e", "NOEQUALS"}
	got := HideEnv(p, env)
	// "[" is no pattern path.Match reads: it hides every name, but the
	// ones PassEnv names exactly and the essential ones (PATH).
	if want := []string{"KEEP_TOKEN=b", "PATH=/bin", "ssh_auth_sock=e"}; !slices.Equal(got, want) {
		t.Errorf("HideEnv = %v, want %v", got, want)
	}
	// A workspace's "*" hides every secret but cannot break every
	// command: PATH, HOME, the locale stay.
	all := &Profile{HideEnv: []string{"*"}}
	if got, want := HideEnv(all, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GH_TOKEN=x", "X=y"}), []string{"PATH=/bin", "HOME=/h", "LC_ALL=C"}; !slices.Equal(got, want) {
		t.Errorf("HideEnv(*) = %v, want %v", got, want)
	}
	p.HideEnv = p.HideEnv[:2]
	if want := []string{"KEEP_TOKEN=b", "PATH=/bin", "[=d", "ssh_auth_sock=e", "NOEQUALS"}; !slices.Equal(HideEnv(p, env), want) {
		t.Errorf("HideEnv = %v, want %v (case folded, exact pass names)", HideEnv(p, env), want)
	}
	// A read-only call's command goes without them too, keeps the
	// proxy variables it had (it has no network to use them), and gets
	// the private /tmp.
	ro := &Profile{HideEnv: []string{"*_TOKEN"}, Egress: &Egress{Socket: "/s", User: "u", Password: "p"}}
	if got, want := CommandEnv(ro, []string{"GH_TOKEN=x", "http_proxy=http://corp:1", "TMPDIR=/home/u/tmp"}), []string{"http_proxy=http://corp:1", "TMPDIR=/tmp"}; !slices.Equal(got, want) {
		t.Errorf("CommandEnv(read-only) = %v, want %v", got, want)
	}
}

// The command line in proxy mode: the sandbox's own network namespace, the
// proxy's socket bound read-only at the fixed path; a proxy whose socket
// the wire dropped leaves loopback alone and binds nothing.
func TestProxyModeArgs(t *testing.T) {
	p := &Profile{Writable: true, Network: true, Egress: &Egress{Socket: "/state/egress.sock", User: "u", Password: "p w"}}
	args := mountArgs(p, "")
	if !slices.Contains(args, "--unshare-net") || index(args, "--ro-bind-try", egressSocket) < 0 || args[index(args, "--ro-bind-try", egressSocket)+1] != "/state/egress.sock" {
		t.Errorf("proxy mode: %v", args)
	}
	env := CommandEnv(p, []string{})
	if !slices.Contains(env, "http_proxy=http://u:p%20w@127.0.0.1:3128") {
		t.Errorf("the credentials are not escaped in the proxy URL: %v", env)
	}
	p.Egress.Socket = ""
	args = mountArgs(p, "")
	if !slices.Contains(args, "--unshare-net") || slices.Contains(args, egressSocket) {
		t.Errorf("a proxy without a socket: %v", args)
	}
	cmd := exec.Command("/bin/true")
	Wrap(p, "/usr/bin/bwrap", cmd)()
	if slices.Contains(cmd.Args, egressArg) || len(cmd.ExtraFiles) != 0 {
		t.Errorf("a proxy without a socket got a forwarder: %v", cmd.Args)
	}
}
