package sandbox

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/riot-tools/riot/shared"
)

// In proxy mode (Profile.EgressOn) a command has a network namespace of its
// own, with loopback alone, and reaches the outside only through riot's
// proxy: the host's Unix socket is bound at egressSocket, and a forwarder,
// this binary again, listens on ProxyAddr in the sandbox's namespace and
// relays each connection to it. In a long-lived sandbox the init starts the
// forwarder beside itself (init_linux.go); a command in a bwrap of its own
// runs under the forwarder, which starts it and exits with its status
// (forward_linux.go). Either way the forwarder lives in the sandbox's PID
// namespace and ends with it.

const (
	// egressSocket is where the host's proxy socket is bound in the
	// sandbox; bwrap makes the directories above it in its own root.
	egressSocket = "/run/riot/egress.sock"
	// proxyPort is the forwarder's port on the sandbox's loopback.
	proxyPort = 3128
	// ProxyAddr is where a command in proxy mode reaches riot's proxy.
	ProxyAddr = "127.0.0.1:3128"
	// initEnv marks this binary as a sandbox's init, probe or forwarder,
	// with the argument that says which (init_linux.go).
	initEnv = "RIOT_SANDBOX_INIT"
	// egressArg marks this binary as the forwarder.
	egressArg = "__riot_sandbox_egress"
	// egressEnv tells a long-lived sandbox's init to start the forwarder.
	egressEnv = "RIOT_SANDBOX_EGRESS"
	// sharedTmpEnv tells a long-lived sandbox's init that /tmp is the
	// session's, which it must not empty between commands.
	sharedTmpEnv = "RIOT_SANDBOX_SHARED_TMP"
)

// forwarded: commands in p reach riot's proxy through a forwarder. A proxy
// whose socket is not an absolute path (shared drops it to "") gets none:
// the command has loopback alone, never the host's network.
func forwarded(p *Profile) bool { return p.EgressOn() && p.Egress.Socket != "" }

// proxyVarNames are the variables that point programs at a proxy, in
// lower case; in proxy mode riot's replace any the environment had.
var proxyVarNames = []string{"http_proxy", "https_proxy", "all_proxy", "no_proxy"}

// proxyEnv are the variables that point a command at riot's proxy with the
// call's credentials: HTTP (CONNECT for https) and SOCKS5 with names
// resolved by the proxy, which tells them apart on the one port.
func proxyEnv(e *Egress) []string {
	cred := url.UserPassword(e.User, e.Password).String()
	httpURL := "http://" + cred + "@" + ProxyAddr
	socksURL := "socks5h://" + cred + "@" + ProxyAddr
	const local = "localhost,127.0.0.1,::1"
	return []string{
		"http_proxy=" + httpURL, "HTTP_PROXY=" + httpURL,
		"https_proxy=" + httpURL, "HTTPS_PROXY=" + httpURL,
		"ALL_PROXY=" + socksURL, "all_proxy=" + socksURL,
		"NO_PROXY=" + local, "no_proxy=" + local,
	}
}

// Egress is a call's proxy as the host sends it (shared.Egress).
type Egress = shared.Egress

// HideEnv is env without the variables p hides: a name that matches one
// of p.HideEnv (path.Match, case folded) unless p.PassEnv names it
// exactly. A pattern path.Match cannot read hides every name it is tried
// on: it is a secret pattern, and failing open would show the secret.
func HideEnv(p *Profile, env []string) []string {
	if p == nil || len(p.HideEnv) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !hiddenVar(p, name) {
			out = append(out, kv)
		}
	}
	return out
}

func hiddenVar(p *Profile, name string) bool {
	if slices.Contains(p.PassEnv, name) || essentialVar(name) {
		return false
	}
	upper := strings.ToUpper(name)
	for _, pat := range p.HideEnv {
		if ok, err := path.Match(strings.ToUpper(pat), upper); ok || err != nil {
			return true
		}
	}
	return false
}

// essentialVar: a variable no command runs without and no secret is kept
// in. A secret pattern never hides it, so that a workspace's own
// secret_env (which only tightens, and so applies untrusted) cannot break
// every command with a pattern such as "*".
func essentialVar(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "PWD":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// CommandEnv is env as a command in p's sandbox gets it: without what p
// hides, with the sandbox's temporary directory (TempEnv; TMPDIR named a
// directory outside, which the sandbox does not show), and in proxy
// mode with riot's proxy variables instead of any it had. A nil env is
// this process's, as exec's.
func CommandEnv(p *Profile, env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	env = HideEnv(p, env)
	egress := p.EgressOn()
	out := make([]string, 0, len(env)+len(proxyVarNames)*2+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMPDIR" || egress && slices.Contains(proxyVarNames, strings.ToLower(name)) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR="+TempEnv(p))
	if egress {
		out = append(out, proxyEnv(p.Egress)...)
	}
	return out
}

// withDaemonMasks is p with the host daemons' sockets that p would show
// added to its masks: a command must not drive docker, podman or the
// user's ssh-agent, whose sockets give what the sandbox takes away.
// Only what exists and something p shows covers is added, so a profile
// that shows none of them mounts nothing more; a path the profile lists
// exactly is the user's to show (allow_read, allow_write).
func withDaemonMasks(p *Profile) *Profile {
	extra := daemonMasks(p)
	if len(extra) == 0 {
		return p
	}
	q := *p
	q.MaskedPaths = slices.Concat(p.MaskedPaths, extra)
	return &q
}

func daemonMasks(p *Profile) []string {
	listed := slices.Concat(p.ReadPaths, p.WritePaths)
	visible := slices.Concat(listed, systemDirs)
	var out []string
	add := func(c string) {
		if !filepath.IsAbs(c) {
			return
		}
		c = filepath.Clean(c)
		forms := []string{c}
		if phys, err := filepath.EvalSymlinks(c); err == nil && phys != c {
			forms = append(forms, phys)
		}
		for _, f := range forms {
			if _, err := os.Lstat(f); err != nil || slices.Contains(listed, f) ||
				slices.ContainsFunc(systemDirs, func(d string) bool { return within(d, f) }) ||
				!covers(visible, f) || slices.Contains(out, f) {
				continue
			}
			out = append(out, f)
		}
	}
	for _, c := range []string{
		"/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/var/run/podman",
		"/run/containerd", "/var/run/containerd", "/run/user/" + strconv.Itoa(os.Getuid()),
	} {
		add(c)
	}
	add(os.Getenv("XDG_RUNTIME_DIR"))
	if s, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		add(s)
	}
	// ssh-agent's socket, and the directory it is in when that holds
	// nothing the profile lists: an agent restarted there makes a new
	// name. A directory the profile lists, or one above something it
	// lists (an agent in the home directory), keeps its other files.
	if sock := os.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(sock) {
		sock = filepath.Clean(sock)
		dir := filepath.Dir(sock)
		switch {
		case slices.Contains(listed, dir):
		case slices.ContainsFunc(listed, func(l string) bool { return within(l, dir) }):
			add(sock)
		default:
			add(dir)
		}
	}
	return out
}
