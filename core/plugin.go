package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/riot-tools/riot/shared"
)

// Crash limits: after maxCrashes crashes within crashWindow, a plugin's
// tools are unavailable for the rest of the session.
const (
	maxCrashes  = 3
	crashWindow = 60 * time.Second
	// startTimeout bounds a plugin's handshake.
	startTimeout = 20 * time.Second
	// exitWait bounds how long the host waits to learn how a plugin that
	// dropped its connection exited.
	exitWait = 2 * time.Second
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

	// impl serves a host tool in-process.
	impl shared.ToolPlugin
}

// pluginProc supervises one plugin: it starts it on first use, restarts it
// after a crash, and disables it after too many.
type pluginProc struct {
	h    *Host
	spec PluginSpec
	log  hclog.Logger

	mu       sync.Mutex
	gen      int
	client   *goplugin.Client
	cmd      *exec.Cmd
	stub     shared.ToolPlugin
	starting chan struct{}
	startErr error
	crashes  []time.Time
	disabled bool
	stderr   *tailBuffer
	// exits remembers how each generation ended, for calls that raced.
	exits map[int]string

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

// conn returns a live connection, starting the plugin if needed. Calls
// waiting for the same start share it.
func (p *pluginProc) conn(ctx context.Context) (shared.ToolPlugin, int, error) {
	if p.spec.impl != nil {
		return p.spec.impl, 0, nil
	}
	for {
		p.mu.Lock()
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
	if !p.disabled && p.stub == nil {
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

func (p *pluginProc) start() {
	stub, client, cmd, tail, err := p.launch()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.startErr = err
	} else {
		p.gen++
		p.stub, p.client, p.cmd, p.stderr = stub, client, cmd, tail
	}
	close(p.starting)
	p.starting = nil
}

func (p *pluginProc) launch() (shared.ToolPlugin, *goplugin.Client, *exec.Cmd, *tailBuffer, error) {
	path, args := p.command()
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, nil, nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s does not exist. Install it there, or fix [plugins.%s] path in the riot config.", p.spec.Name, path, p.spec.Name)}
	case err != nil:
		return nil, nil, nil, nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s cannot be read (%s). Fix its permissions.", p.spec.Name, path, errText(err))}
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return nil, nil, nil, nil, &startError{Msg: fmt.Sprintf("The %s plugin's binary %s is not an executable file. Make it executable (chmod +x) or fix [plugins.%s] path.", p.spec.Name, path, p.spec.Name)}
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), p.h.tls.PluginEnv(), "RIOT_LOG_LEVEL="+p.h.pluginLogLevel)
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
	logw := p.log.StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		SecureConfig:     secure,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		TLSConfig:        p.h.tls.ClientConfig(),
		Logger:           p.log,
		StartTimeout:     startTimeout,
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
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, nil, nil, nil, p.explainStartError(err, cmd, tail)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		client.Kill()
		return nil, nil, nil, nil, &startError{Msg: fmt.Sprintf("The %s plugin started but serves no riot tools (%s). Rebuild it with riot's plugin SDK.", p.spec.Name, errText(err))}
	}
	stub, ok := raw.(shared.ToolPlugin)
	if !ok {
		client.Kill()
		return nil, nil, nil, nil, &startError{Msg: fmt.Sprintf("The %s plugin serves an unknown interface. Rebuild it with riot's plugin SDK.", p.spec.Name)}
	}
	p.log.Debug("plugin started", "path", cmd.Path, "pid", cmd.Process.Pid, "protocol", client.NegotiatedVersion())
	return stub, client, cmd, tail, nil
}

// explainStartError turns go-plugin's start errors into something a user
// can act on.
func (p *pluginProc) explainStartError(err error, cmd *exec.Cmd, tail *tailBuffer) error {
	name, msg := p.spec.Name, err.Error()
	p.log.Error("plugin failed to start", "error", err, "stderr", tail.String())
	switch {
	case errors.Is(err, goplugin.ErrChecksumsDoNotMatch):
		actual := "unknown"
		if sum, herr := fileSHA256(p.spec.Path); herr == nil {
			actual = sum
		}
		return &startError{Msg: fmt.Sprintf("The %s plugin's binary %s does not match its pinned sha256 (the config pins %s, the file has %s). If you trust the new binary, update [plugins.%s] sha256; otherwise reinstall the plugin.", name, p.spec.Path, short(p.spec.SHA256), short(actual), name)}
	case strings.Contains(tail.String(), "This binary is a plugin"):
		return &startError{Msg: fmt.Sprintf("The %s plugin did not accept riot's handshake (%s: it expects another host's magic cookie). It is not a riot plugin, or was built for another host.", name, exitState(cmd))}
	case strings.Contains(msg, "Unrecognized remote plugin message: ") && garbageLine(msg) != "":
		return &startError{Msg: fmt.Sprintf("The %s plugin wrote to stdout before the handshake (%q). A plugin's stdout is the protocol: it must log to stderr. Fix the plugin or build it with riot's plugin SDK, whose Serve protects stdout.", name, clip(garbageLine(msg), 60))}
	case strings.Contains(msg, "Incompatible API version"), strings.Contains(msg, "Incompatible core API version"):
		return &startError{Msg: fmt.Sprintf("The %s plugin speaks another protocol version than this riot (which speaks %d). Rebuild the plugin against this riot's SDK.", name, shared.ProtocolVersion)}
	case strings.Contains(msg, "exited before we could connect"), strings.Contains(msg, "plugin exited"), strings.Contains(msg, "Unrecognized remote plugin message"):
		if detail := firstLine(tail.String()); detail != "" {
			return &startError{Msg: fmt.Sprintf("The %s plugin did not complete the handshake: %s; its last words: %q. See the log for more.", name, exitState(cmd), clip(detail, 200))}
		}
		return &startError{Msg: fmt.Sprintf("The %s plugin did not complete the handshake: %s without a word. Check that %s is a riot plugin.", name, exitState(cmd), cmd.Path)}
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		return &startError{Msg: fmt.Sprintf("The %s plugin did not complete the handshake within %s. Check that %s is a riot plugin and is not stuck at start.", name, startTimeout, cmd.Path)}
	default:
		return &startError{Msg: fmt.Sprintf("The %s plugin could not start. See the log at %s for why.", name, p.h.logFile)}
	}
}

// garbageLine is the first line a plugin wrote to stdout instead of the
// handshake, as go-plugin reports it.
func garbageLine(msg string) string {
	_, after, _ := strings.Cut(msg, "Unrecognized remote plugin message: ")
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
	client, cmd, tail := p.client, p.cmd, p.stderr
	p.stub, p.client, p.cmd = nil, nil, nil
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
		_ = cmd.Process.Kill()
		state = "it stopped responding"
	}
	client.Kill()
	p.log.Error("plugin crashed", "how", state, "stderr", tail.String())
	p.recordExit(gen, state)
	return state
}

// kill stops the plugin's process now, for a call that hung.
func (p *pluginProc) kill(gen int) {
	p.mu.Lock()
	cmd := p.cmd
	cur := p.gen
	p.mu.Unlock()
	if cmd != nil && cmd.Process != nil && cur == gen {
		_ = cmd.Process.Kill()
	}
}

func (p *pluginProc) unavailableMessage() string {
	return fmt.Sprintf("The %s plugin's tools are unavailable for the rest of this session: the plugin crashed %d times within %d s. Do not call them again; use another tool. The log is at %s.",
		p.spec.Name, maxCrashes, int(crashWindow.Seconds()), p.h.logFile)
}

// close stops the plugin, gracefully first.
func (p *pluginProc) close() {
	p.mu.Lock()
	client := p.client
	p.stub, p.client, p.cmd = nil, nil, nil
	p.disabled = true
	p.mu.Unlock()
	if client != nil {
		client.Kill()
	}
}

func (p *pluginProc) recordExit(gen int, state string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exits == nil {
		p.exits = map[int]string{}
	}
	p.exits[gen] = state
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

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
