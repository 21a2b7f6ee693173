package main

import (
	"context"
	"os"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

// serveUndeclared serves the tools as a plugin whose manifest declares
// nothing optional: no tool's default Prepare answer, no honoured guess, no
// plugin that starts no processes (with RIOT_TESTKIT_READ_ONLY=1 its tools
// still start none). It is what a plugin not built on the SDK may send, and
// the host must then ask every Prepare and sandbox every call: the host's
// tests hold it beside testkit's own manifest.
func serveUndeclared(handlers ...plugin.Handler) {
	log := hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: os.Stderr, JSONFormat: true})
	rt := plugin.Runtime{Clock: plugin.SystemClock{}, Log: log, StartsNoProcesses: os.Getenv("RIOT_TESTKIT_READ_ONLY") == "1"}
	srv, err := plugin.NewServer(rt, handlers...)
	if err != nil {
		log.Error("invalid plugin", "error", err)
		os.Exit(1)
	}
	// The SDK's init pointed stdout at stderr and kept the real one, the
	// handshake's, on a descriptor of its own; go-plugin prints there.
	os.Stdout = handshakeOut()
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(undeclared{srv}),
		TLSProvider:      shared.ServerTLSFromEnv,
		GRPCServer:       goplugin.DefaultGRPCServer,
		Logger:           log,
	})
}

// undeclared is the SDK's server with the declarations cleared from its
// manifest.
type undeclared struct{ *plugin.Server }

func (u undeclared) Manifest(ctx context.Context) (shared.Manifest, error) {
	m, err := u.Server.Manifest(ctx)
	if err != nil {
		return shared.Manifest{}, err
	}
	m.StartsNoProcesses = false
	for i := range m.Tools {
		m.Tools[i].DefaultPrepare, m.Tools[i].HonoursExpect = false, false
	}
	return m, nil
}

// handshakeOut finds the descriptor the SDK's init kept stdout on: the
// first after stderr that is write-only and not stderr itself (it was
// the first free one when the init ran, before anything else opened).
func handshakeOut() *os.File {
	var errStat unix.Stat_t
	if unix.Fstat(2, &errStat) != nil {
		return os.Stdout
	}
	for fd := 3; fd < 64; fd++ {
		var st unix.Stat_t
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil || flags&unix.O_ACCMODE != unix.O_WRONLY || unix.Fstat(fd, &st) != nil {
			continue
		}
		if st.Dev != errStat.Dev || st.Ino != errStat.Ino {
			return os.NewFile(uintptr(fd), "handshake")
		}
	}
	return os.Stdout
}
