package plugin

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"

	"github.com/riot-tools/riot/internal/procguard"
	"github.com/riot-tools/riot/shared"
)

// parentPollEvery is how often the watchdog checks that the host is alive.
const parentPollEvery = 500 * time.Millisecond

// Serve serves the handlers as a riot plugin and returns when the host
// closes it. It is the whole of a plugin's main:
//
//	func main() { plugin.Serve(plugin.New[Input](&Hello{})) }
//
// Before the handshake it points file descriptor 1 at stderr, so a stray
// print, in an init function, a library or a child process, lands in the
// host's log instead of breaking the protocol. It exits when the host
// process dies, and a process guard kills every process group a tool
// started when the plugin exits by any means.
func Serve(handlers ...Handler) { serve(serveProcesses, handlers) }

// ServeReadOnly is Serve for a plugin whose tools never write a file, start
// a process or open a connection, such as Grep and Read. Its manifest tells
// the host that it starts no processes, so the host sends its calls no
// sandbox and never checks for bubblewrap for them, and its tools' Proc
// refuses every start (*NoProcessError). Once its socket listens, the
// process restricts itself with Landlock: no writes and no execve
// anywhere, and no TCP or UDP where the kernel's Landlock ABI has network
// rights. It is best effort where the kernel lacks Landlock. Reads stay as
// the permission chain decides per call.
func ServeReadOnly(handlers ...Handler) { serve(serveReadOnly, handlers) }

// ServeWithoutProcesses is Serve for a plugin whose tools start no
// processes but may write files, such as Edit and Write: its manifest tells
// the host so, and its tools' Proc refuses every start, as ServeReadOnly's
// does, without Landlock's ban on writes. The host's permission chain
// decides each write; a sandbox has nothing to confine.
func ServeWithoutProcesses(handlers ...Handler) { serve(serveNoProcesses, handlers) }

// serveMode is what a plugin's process may do, from most to least.
type serveMode int

const (
	serveProcesses serveMode = iota
	serveNoProcesses
	serveReadOnly
)

func serve(mode serveMode, handlers []Handler) {
	readOnly := mode == serveReadOnly
	if procguard.IsGuard() {
		procguard.RunGuard(os.Stdin)
		return
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name:       "plugin",
		Level:      hclog.LevelFromString(envOr("RIOT_LOG_LEVEL", "info")),
		Output:     os.Stderr,
		JSONFormat: true, // the host re-levels JSON lines into its own log
	})
	handshake := earlyHandshake
	if handshake == nil {
		var err error
		if handshake, err = redirectStdout(); err != nil {
			log.Error("cannot protect stdout", "error", err)
			os.Exit(1)
		}
	}
	srv, err := NewServer(serveRuntime(mode, log), handlers...)
	if err != nil {
		log.Error("invalid plugin", "error", err)
		os.Exit(1)
	}
	go watchParent(log)
	// go-plugin prints the handshake line to os.Stdout and then replaces
	// os.Stdout with its own pipe.
	os.Stdout = handshake
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(srv),
		TLSProvider:      shared.ServerTLSFromEnv,
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			// Called once the listener exists, which creating the socket
			// file needed.
			if readOnly {
				if cfg, err := confineReadOnly(); err != nil {
					log.Warn("cannot restrict this read-only plugin with Landlock; it runs unrestricted", "error", err)
				} else {
					log.Debug("restricted with Landlock", "config", cfg)
				}
			}
			return grpc.NewServer(append(opts,
				grpc.MaxRecvMsgSize(shared.MaxMessageSize),
				grpc.MaxSendMsgSize(shared.MaxMessageSize),
				// Fixed windows turn off gRPC's bandwidth estimator, which
				// answers every message from the host with a PING: two
				// more frames and wake-ups on each side per exchange, to
				// size windows for a network a Unix socket is not.
				grpc.InitialWindowSize(shared.StreamWindow),
				grpc.InitialConnWindowSize(shared.ConnWindow))...)
		},
		Logger: log,
	})
}

// serveRuntime is what Serve, ServeWithoutProcesses and ServeReadOnly give
// the tools.
func serveRuntime(mode serveMode, log hclog.Logger) Runtime {
	rt := Runtime{
		Clock: SystemClock{},
		Net:   http.DefaultClient,
		Log:   log,
		// The host's one-shot mark, read once at start.
		OneShotHost:       os.Getenv(shared.OneShotEnv) == "1",
		StartsNoProcesses: mode != serveProcesses,
	}
	if mode == serveProcesses {
		// A plugin that starts no processes has no process guard: it
		// starts nothing to guard, and Landlock would refuse the guard's
		// own start.
		rt.Proc = newOSProc(newGuard(log), log)
	}
	return rt
}

// earlyHandshake is the real stdout, saved when the process started as a
// plugin. Serve runs too late for prints in init functions, so the SDK's own
// init points stdout at stderr first: packages initialise after the
// packages they import, so the init of a tool's package and of its main
// come after this one. It is set once, before main, and only read after.
var earlyHandshake *os.File

func init() {
	if os.Getenv(shared.Handshake.MagicCookieKey) == shared.Handshake.MagicCookieValue && !procguard.IsGuard() {
		earlyHandshake, _ = redirectStdout()
	}
}

// redirectStdout duplicates the real stdout for the handshake and points
// file descriptor 1 at stderr.
func redirectStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "handshake"), nil
}

// watchParent exits when the host is gone: Pdeathsig covers Linux, this
// covers everything else, and a host that died before Pdeathsig was set.
func watchParent(log hclog.Logger) {
	ppid := os.Getppid()
	for range time.Tick(parentPollEvery) {
		if os.Getppid() != ppid {
			log.Warn("host process is gone; exiting", "host_pid", ppid)
			os.Exit(2)
		}
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
