package core

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/riot-tools/riot/config/lock"
	"github.com/riot-tools/riot/shared"
)

// Crash limits: after maxCrashes crashes within crashWindow, a plugin's
// tools are unavailable for the rest of the session.
const (
	maxCrashes  = 3
	crashWindow = 60 * time.Second
	// defaultStartTimeout bounds a plugin's handshake unless
	// limits.start_timeout says otherwise. A riot plugin answers in a few
	// milliseconds; one that takes seconds is stuck, and every call and
	// listing waiting for it would wait as long.
	defaultStartTimeout = 5 * time.Second
	// exitWait bounds how long the host waits to learn how a plugin that
	// dropped its connection exited.
	exitWait = 2 * time.Second
)

// go-plugin v1.8 gives a typed error for a checksum mismatch only; its
// other start failures are text. These are the texts riot tells apart;
// TestGoPluginMessages fails when an upgrade of go-plugin changes one.
const (
	gpTimeout      = "timeout while waiting for plugin to start"
	gpExited       = "plugin exited before we could connect"
	gpUnrecognized = "Unrecognized remote plugin message: "
	gpVersion      = "incompatible API version with plugin"
	gpCoreVersion  = "incompatible core API version with plugin"
	// gpNotForHumans is what a go-plugin plugin prints to stderr when it is
	// started without its host's magic cookie.
	gpNotForHumans = "This binary is a plugin"
)

// PluginSpec is one plugin the host may start.
type PluginSpec struct {
	Name string
	// Path and Args are the command that serves the plugin.
	Path string
	Args []string
	// Env is added to the plugin's environment.
	Env map[string]string
	// SHA256, if set, pins the binary at Path.
	SHA256 string
	// Timeout is the deadline of one call; zero means the host's default.
	Timeout time.Duration
	// Builtin marks a tool set compiled into riot.
	Builtin bool
	// Standalone is a builtin's riot-tool-NAME binary, which serves it in
	// place of `riot __plugin NAME` (Path and Args) when it is the same
	// build as Path: it starts faster.
	Standalone string
	// Lock is what .riot/plugins.lock pins of the plugin, if it is locked:
	// SHA256 then comes from the lock, and its tools are held to the lock's.
	Lock *LockPin
	// Refused, if set, is why the resolver will not let the plugin start:
	// declared but not installed, or installed from another source than
	// the config declares. It is the plugin's start error.
	Refused string

	// impl serves a host tool in-process.
	impl shared.ToolPlugin
}

// LockPin is a locked plugin's entry in the lock, as the core checks it.
type LockPin struct {
	// File is the lock file, for messages.
	File string
	// Tools are the plugin's tools in the order the lock records.
	Tools []string
}

// pluginProc supervises one plugin: it starts it on first use, restarts it
// after a crash, and disables it after too many.
type pluginProc struct {
	h    *Host
	spec PluginSpec
	// log reaches stderr at the configured level; fileLog reaches only the
	// log file, for what a plugin prints (its panics' stacks among it).
	log, fileLog hclog.Logger

	mu     sync.Mutex
	gen    int
	client *goplugin.Client
	cmd    *exec.Cmd
	stub   shared.ToolPlugin
	// killProc ends the current generation's process at once, and
	// startKill a process still starting, through its
	// exec.CommandContext: the one way to stop a plugin in its handshake,
	// which go-plugin holds a lock over.
	killProc, startKill func()
	starting            chan struct{}
	startErr            error
	crashes             []time.Time
	disabled            bool
	closed              bool
	stderr              *tailBuffer
	sock                string // the current generation's Unix socket
	// exits remembers how each generation ended, for calls that raced.
	exits map[int]string
	// regID and regManifest are the binary and manifest the registry's
	// tools came from; a restart that finds another binary must serve the
	// same manifest, since tools[] is fixed for the host's lifetime.
	regID       binaryID
	regManifest *shared.Manifest
	// regChecked: every input schema in regManifest passed its meta-schema
	// check, in this process or the one that cached it (compileValidator).
	regChecked bool
	// startID is the binary of the running generation, and protocol the
	// protocol version it negotiated.
	startID  binaryID
	protocol int

	cmdOnce sync.Once
	path    string
	args    []string
}

// command is what serves the plugin: a builtin's standalone binary when it
// is the same build as riot, the spec's command otherwise. It is decided
// at the first start, from the cache while neither binary changes.
func (p *pluginProc) command() (string, []string) {
	p.cmdOnce.Do(func() {
		p.path, p.args = p.spec.Path, p.spec.Args
		// A builtin's Args are BuiltinCommand, NAME and then its own.
		if p.spec.Standalone == "" || len(p.spec.Args) < 2 || p.spec.Args[0] != BuiltinCommand {
			return
		}
		if err := p.h.cache.sameBuild(p.spec.Path, p.spec.Standalone); err != nil {
			p.log.Debug("serving the builtin from riot: its standalone binary is not the same build", "standalone", p.spec.Standalone, "reason", err)
			return
		}
		p.path, p.args = p.spec.Standalone, p.spec.Args[2:]
	})
	return p.path, p.args
}

// startError is a plugin that could not start; Msg is for the model and
// the user alike.
type startError struct{ Msg string }

func (e *startError) Error() string { return e.Msg }

// unavailableError is a plugin disabled for the session.
type unavailableError struct{ Msg string }

func (e *unavailableError) Error() string { return e.Msg }

// errHostClosed is a start the host's Close stopped.
var errHostClosed = errors.New("the host is closed")

// conn returns a live connection, starting the plugin if needed. Calls
// waiting for the same start share it.
func (p *pluginProc) conn(ctx context.Context) (shared.ToolPlugin, int, error) {
	if p.spec.impl != nil {
		return p.spec.impl, 0, nil
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, 0, errHostClosed
		}
		if p.disabled {
			p.mu.Unlock()
			return nil, 0, &unavailableError{Msg: p.unavailableMessage()}
		}
		if p.stub != nil {
			stub, gen := p.stub, p.gen
			p.mu.Unlock()
			return stub, gen, nil
		}
		p.startLocked()
		ch := p.starting
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
		p.mu.Lock()
		err := p.startErr
		p.mu.Unlock()
		if err != nil {
			return nil, 0, err
		}
	}
}

// prestart starts the plugin if it is not running or starting, without
// waiting for it.
func (p *pluginProc) prestart() {
	if p.spec.impl != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.disabled && !p.closed && p.stub == nil {
		p.startLocked()
	}
}

// startLocked starts the plugin unless a start is under way; p.mu is held.
func (p *pluginProc) startLocked() {
	if p.starting == nil {
		p.starting = make(chan struct{})
		p.startErr = nil
		go p.start()
	}
}

// launched is a plugin process that completed its handshake.
type launched struct {
	stub   shared.ToolPlugin
	client *goplugin.Client
	cmd    *exec.Cmd
	tail   *tailBuffer
	kill   func()
	id     binaryID
}

func (p *pluginProc) start() {
	l, err := p.launch()
	if err == nil {
		err = p.checkRestarted(l)
	}
	p.mu.Lock()
	if err == nil && p.closed {
		// Close came during the handshake: this process is not to live.
		p.mu.Unlock()
		l.client.Kill()
		l.kill()
		p.mu.Lock()
		err = errHostClosed
	}
	p.startKill = nil
	if err != nil {
		p.startErr = err
	} else {
		p.gen++
		p.stub, p.client, p.cmd, p.stderr, p.killProc, p.startID = l.stub, l.client, l.cmd, l.tail, l.kill, l.id
		p.protocol = l.client.NegotiatedVersion()
		p.sock = socketOf(l.client)
	}
	close(p.starting)
	p.starting = nil
	p.mu.Unlock()
}

// checkRestarted holds a plugin whose binary changed since the registry
// was built to the manifest the registry came from.
func (p *pluginProc) checkRestarted(l *launched) error {
	p.mu.Lock()
	reg, regID := p.regManifest, p.regID
	p.mu.Unlock()
	if reg == nil || l.id == regID {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.h.startTimeout)
	defer cancel()
	m, err := l.stub.Manifest(ctx)
	if err == nil && sameManifest(m, *reg) {
		p.h.cache.put(p.spec, l.id, &m)
		p.h.cache.setProtocol(p.spec, l.id, l.client.NegotiatedVersion())
		p.mu.Lock()
		p.regID = l.id
		p.mu.Unlock()
		return nil
	}
	l.client.Kill()
	l.kill()
	p.log.Warn("the plugin's binary changed while riot ran and serves other tools now; its tools are unavailable until riot restarts", "path", p.spec.Path)
	return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s was replaced while riot was running, and the new one serves different tools than this session listed. Its tools are unavailable until riot restarts; use another tool, and tell the user to restart riot to use the new version.", p.spec.Name, p.spec.Path)}
}

// sameManifest reports whether two manifests are the same on the wire:
// compared as the cache keeps them, so that every field counts.
func sameManifest(a, b shared.Manifest) bool {
	ea, errA := shared.MarshalManifest(a)
	eb, errB := shared.MarshalManifest(b)
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}

// setRegistered records the binary and manifest the registry came from,
// and whether the manifest's schemas passed their meta-schema check.
func (p *pluginProc) setRegistered(m *shared.Manifest, id binaryID, checked bool) {
	p.mu.Lock()
	p.regManifest, p.regID, p.regChecked = m, id, checked
	p.mu.Unlock()
}

// schemasChecked is the registered manifest's regChecked.
func (p *pluginProc) schemasChecked() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.regChecked
}

func (p *pluginProc) launch() (*launched, error) {
	if p.spec.Refused != "" {
		return nil, &startError{Msg: p.spec.Refused}
	}
	path, args := p.command()
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s does not exist. Install it there, or fix [plugins.%s] path in the riot config.", p.spec.Name, path, p.spec.Name)}
	case err != nil:
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s cannot be read (%s). Fix its permissions.", p.spec.Name, path, errText(err))}
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s is not an executable file. Make it executable (chmod +x) or fix [plugins.%s] path.", p.spec.Name, path, p.spec.Name)}
	}
	id, err := identify(p.spec.Path)
	if err != nil {
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s cannot be read (%s). Fix its permissions.", p.spec.Name, p.spec.Path, errText(err))}
	}
	if f, ok := p.h.cache.failure(p.spec, id); ok {
		return nil, &startError{Msg: f.Message + " riot remembers this and does not start the binary again until it changes."}
	}
	// The process lives as long as this context: cancelling it is how
	// Close stops a plugin still in its handshake.
	pctx, kill := context.WithCancel(context.Background())
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		kill()
		return nil, errHostClosed
	}
	p.startKill = kill
	p.mu.Unlock()
	tlsm, err := p.h.tls()
	if err != nil {
		kill()
		return nil, &startError{Msg: fmt.Sprintf("riot could not make the TLS keys to start the %s plugin (%s). Retry the call; if it fails again, report it.", p.spec.Name, errText(err))}
	}
	cmd := exec.CommandContext(pctx, path, args...)
	cmd.Env = append(os.Environ(), tlsm.PluginEnv(), "RIOT_LOG_LEVEL="+p.h.pluginLogLevel)
	if dir := p.h.socketDir(); dir != "" {
		cmd.Env = append(cmd.Env, goplugin.EnvUnixSocketDir+"="+dir)
	}
	if p.h.opts.OneShot {
		cmd.Env = append(cmd.Env, shared.OneShotEnv+"=1")
	}
	for k, v := range p.spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setDeathSignal(cmd.SysProcAttr)
	tail := newTailBuffer(8 << 10)
	var secure *goplugin.SecureConfig
	if p.spec.SHA256 != "" {
		sum, _ := hex.DecodeString(p.spec.SHA256)
		secure = &goplugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	// What the plugin prints, and go-plugin's own account of it, go to the
	// log file only: a plugin's panic would otherwise reach the user's
	// terminal stack and all. The host logs what the user needs to know.
	logw := p.fileLog.StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		SecureConfig:     secure,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		TLSConfig:        tlsm.ClientConfig(),
		Logger:           p.fileLog,
		StartTimeout:     p.h.startTimeout,
		Stderr:           tail,
		SyncStdout:       logw,
		SyncStderr:       logw,
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(shared.MaxMessageSize),
			grpc.MaxCallSendMsgSize(shared.MaxMessageSize)),
			// Fixed flow-control windows bound what a plugin can have in
			// flight to riot, and so riot's memory while it spills a
			// stream: gRPC's dynamic window grows to 16 MiB per stream when
			// riot falls behind, as it does on a loaded machine.
			grpc.WithInitialWindowSize(shared.StreamWindow),
			grpc.WithInitialConnWindowSize(shared.ConnWindow)},
	})
	fail := func(err error) (*launched, error) {
		client.Kill()
		kill()
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return nil, errHostClosed
		}
		return nil, err
	}
	rpc, err := client.Client()
	if err != nil {
		// Kill first: it waits for the plugin's stderr to be read whole,
		// which the explanation reads.
		client.Kill()
		return fail(p.explainStartError(err, cmd, tail, id))
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		return fail(&startError{Msg: fmt.Sprintf("The %s plugin started but serves no riot tools (%s). Rebuild it with riot's plugin SDK.", p.spec.Name, errText(err))})
	}
	stub, ok := raw.(shared.ToolPlugin)
	if !ok {
		return fail(&startError{Msg: fmt.Sprintf("The %s plugin serves an unknown interface. Rebuild it with riot's plugin SDK.", p.spec.Name)})
	}
	p.log.Debug("plugin started", "path", cmd.Path, "pid", cmd.Process.Pid, "protocol", client.NegotiatedVersion())
	return &launched{stub: stub, client: client, cmd: cmd, tail: tail, kill: kill, id: id}, nil
}

// explainStartError turns go-plugin's start errors into something a user
// can act on.
func (p *pluginProc) explainStartError(err error, cmd *exec.Cmd, tail *tailBuffer, id binaryID) error {
	name, msg := p.spec.Name, err.Error()
	p.fileLog.Error("plugin failed to start", "error", err, "stderr", tail.String())
	switch {
	case errors.Is(err, goplugin.ErrChecksumsDoNotMatch):
		actual := "unknown"
		if sum, herr := lock.FileSHA256(p.spec.Path); herr == nil {
			actual = sum
		}
		if p.spec.Lock != nil {
			return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s does not match %s (the lock pins sha256 %s, the file has %s), so riot did not run it. Run `riot plugins install %s` to reinstall the locked version, or `riot plugins upgrade %s` if the new binary is meant.", name, p.spec.Path, p.spec.Lock.File, short(p.spec.SHA256), short(actual), name, name)}
		}
		return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s does not match its pinned sha256 (the config pins %s, the file has %s). If you trust the new binary, update [plugins.%s] sha256; otherwise reinstall the plugin.", name, p.spec.Path, short(p.spec.SHA256), short(actual), name)}
	case errors.Is(err, syscall.ENOEXEC) || strings.Contains(msg, syscall.ENOEXEC.Error()):
		return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s is not a program this machine can run (exec format error): it was built for another platform or is not a program. riot runs plugins built for %s/%s; install the binary built for it (GOOS=%s GOARCH=%s go build).", name, p.spec.Path, runtime.GOOS, runtime.GOARCH, runtime.GOOS, runtime.GOARCH)}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s cannot be run (%s). Install it there, or point [plugins.%s] path at it.", name, p.spec.Path, errText(err), name)}
	case strings.Contains(tail.String(), gpNotForHumans):
		return &startError{Msg: fmt.Sprintf("The %s plugin did not accept riot's handshake (%s: it expects another host's magic cookie). It is not a riot plugin, or was built for another host.", name, exitState(cmd))}
	case strings.Contains(msg, gpUnrecognized) && garbageLine(msg) != "":
		return &startError{Msg: fmt.Sprintf("The %s plugin wrote to stdout before the handshake (%q). A plugin's stdout is the protocol: it must log to stderr. Fix the plugin or build it with riot's plugin SDK, whose Serve protects stdout.", name, clip(garbageLine(msg), 60))}
	case strings.Contains(msg, gpVersion), strings.Contains(msg, gpCoreVersion):
		return &startError{Msg: protocolMessage(name, msg)}
	case strings.Contains(msg, gpExited), strings.Contains(msg, gpUnrecognized):
		if detail := firstLine(tail.String()); detail != "" {
			return &startError{Msg: fmt.Sprintf("The %s plugin did not complete the handshake: %s; its last words: %q. See the log for more.", name, exitState(cmd), clip(detail, 200))}
		}
		return &startError{Msg: fmt.Sprintf("The %s plugin did not complete the handshake: %s without a word. Check that %s is a riot plugin.", name, exitState(cmd), cmd.Path)}
	case strings.Contains(msg, gpTimeout):
		text := fmt.Sprintf("The %s plugin did not complete the handshake within %s: %s hangs at start. Fix or reinstall it (any change to the file makes riot try it again), or disable [plugins.%s] in the riot config.", name, secondsText(p.h.startTimeout), cmd.Path, name)
		p.h.cache.putFailure(p.spec, id, text, p.h.now())
		return &startError{Msg: text}
	default:
		return &startError{Msg: fmt.Sprintf("The %s plugin could not start. See the log at %s for why.", name, p.h.logFile)}
	}
}

// socketOf is the Unix socket a plugin listens on, if it does.
func socketOf(client *goplugin.Client) string {
	if rc := client.ReattachConfig(); rc != nil && rc.Addr != nil && rc.Addr.Network() == "unix" {
		return rc.Addr.String()
	}
	return ""
}

// garbageLine is the first line a plugin wrote to stdout instead of the
// handshake, as go-plugin reports it.
func garbageLine(msg string) string {
	_, after, _ := strings.Cut(msg, gpUnrecognized)
	line, _, _ := strings.Cut(after, "\n")
	return strings.TrimSpace(line)
}

// exitState says how a plugin that failed to start ended, if it has.
func exitState(cmd *exec.Cmd) string {
	if cmd.ProcessState != nil {
		return "it exited with " + cmd.ProcessState.String()
	}
	return "it exited"
}

// crashed records that the connection of generation gen broke, learns how
// the process ended, and returns that as a phrase such as "exit status 3"
// or "signal: killed". The next call restarts the plugin.
func (p *pluginProc) crashed(gen int) string {
	p.mu.Lock()
	if gen != p.gen || p.stub == nil {
		// Another call already handled this crash.
		p.mu.Unlock()
		return p.lastExit(gen)
	}
	client, cmd, tail, kill, sock := p.client, p.cmd, p.stderr, p.killProc, p.sock
	p.stub, p.client, p.cmd, p.killProc, p.sock = nil, nil, nil, nil, ""
	now := p.h.now()
	p.crashes = append(p.crashes, now)
	recent := p.crashes[:0]
	for _, t := range p.crashes {
		if now.Sub(t) < crashWindow {
			recent = append(recent, t)
		}
	}
	p.crashes = recent
	if len(recent) >= maxCrashes {
		p.disabled = true
	}
	p.mu.Unlock()

	state := waitExit(client, cmd, exitWait)
	if state == "" {
		// The connection broke but the process lives: it is not to be
		// trusted with more calls.
		if kill != nil {
			kill()
		}
		state = "it stopped responding"
	}
	client.Kill()
	if kill != nil {
		kill()
	}
	p.removeSocket(sock)
	p.log.Warn("plugin crashed; its output is in the log file", "how", state)
	p.fileLog.Error("plugin crashed", "how", state, "stderr", tail.String())
	p.recordExit(gen, state)
	return state
}

// retire stops generation gen, which is alive but broke the protocol in a
// way that leaves it useless; it is no crash, and the next use restarts
// the plugin.
func (p *pluginProc) retire(gen int) {
	p.mu.Lock()
	if gen != p.gen || p.stub == nil {
		p.mu.Unlock()
		return
	}
	client, kill, sock := p.client, p.killProc, p.sock
	p.stub, p.client, p.cmd, p.killProc, p.sock = nil, nil, nil, nil, ""
	p.mu.Unlock()
	client.Kill()
	if kill != nil {
		kill()
	}
	p.removeSocket(sock)
}

// removeSocket removes a dead generation's socket, which a killed plugin
// leaves behind; only sockets in the host's own directory are touched. The
// generation's start made that directory, so this makes none.
func (p *pluginProc) removeSocket(sock string) {
	dir := p.h.socketDir()
	if sock == "" || dir == "" || filepath.Dir(sock) != dir {
		return
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		p.log.Debug("cannot remove a dead plugin's socket", "socket", sock, "error", err)
	}
}

// kill stops the plugin's process now, for a call that hung.
func (p *pluginProc) kill(gen int) {
	p.mu.Lock()
	kill := p.killProc
	cur := p.gen
	p.mu.Unlock()
	if kill != nil && cur == gen {
		kill()
	}
}

func (p *pluginProc) unavailableMessage() string {
	return fmt.Sprintf("The %s plugin's tools are unavailable for the rest of this session: the plugin crashed %d times within %d s. Do not call them again; use another tool. The log is at %s.",
		p.spec.Name, maxCrashes, int(crashWindow.Seconds()), p.h.logFile)
}

// close stops the plugin, gracefully first, and a start under way at
// once; it returns when no process of this plugin is left.
func (p *pluginProc) close() {
	p.mu.Lock()
	client, kill, startKill, starting := p.client, p.killProc, p.startKill, p.starting
	p.stub, p.client, p.cmd, p.killProc = nil, nil, nil, nil
	p.disabled, p.closed = true, true
	p.mu.Unlock()
	if startKill != nil {
		startKill()
	}
	if client != nil {
		client.Kill()
	}
	if kill != nil {
		kill()
	}
	if starting != nil {
		<-starting
	}
}

// keptExits is how many generations' exits are remembered: only calls
// of a generation that just died can still ask.
const keptExits = 4

func (p *pluginProc) recordExit(gen int, state string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exits == nil {
		p.exits = map[int]string{}
	}
	p.exits[gen] = state
	// A session that outlives many crashes, each more than a minute apart,
	// must not keep them all.
	for g := range p.exits {
		if g <= gen-keptExits {
			delete(p.exits, g)
		}
	}
}

func (p *pluginProc) lastExit(gen int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.exits[gen]; ok {
		return s
	}
	return "it stopped"
}

// waitExit waits up to d for the plugin process to be reaped and returns
// how it ended, or "" if it is still running.
func waitExit(client *goplugin.Client, cmd *exec.Cmd, d time.Duration) string {
	deadline := time.Now().Add(d)
	for !client.Exited() {
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(5 * time.Millisecond)
	}
	if cmd.ProcessState == nil {
		return "it exited"
	}
	return cmd.ProcessState.String()
}
