package core

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/shared"
)

// Inspection is what a plugin binary said when it was started alone.
type Inspection struct {
	// Protocol is the protocol version it negotiated.
	Protocol int
	// Tools are its tools in its manifest's order.
	Tools []string
}

// InspectPlugin starts the plugin binary at path once, outside any
// session, and returns its protocol version and tools: what `riot plugins
// install` records in the lock. Its failure is the message a session would
// show. The process is gone when InspectPlugin returns.
// What the plugin prints goes to cfg's log file, which its messages name.
func InspectPlugin(ctx context.Context, cfg *config.Config, name, path string) (Inspection, error) {
	timeout := cfg.Limits.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	logFile := cfg.ResolvedLogFile(nil)
	_, fileLog, closeLog := newLogger(cfg.Log.Level, logFile, int64(cfg.Log.MaxSizeMB)<<20, io.Discard)
	defer func() { _ = closeLog() }()
	h := &Host{
		cfg: cfg, log: fileLog, fileLog: fileLog, logFile: logFile,
		tls: sync.OnceValues(shared.NewTLSMaterial), cache: &manifestCache{entries: map[string]cacheEntry{}, builds: map[string]string{}, failures: map[string]failureEntry{}},
		now: time.Now, pluginLogLevel: "warn", startTimeout: timeout,
	}
	p := &pluginProc{h: h, spec: PluginSpec{Name: name, Path: path}, log: h.log.Named(name), fileLog: h.fileLog.Named(name)}
	defer func() {
		p.close()
		h.sockOnce.Do(func() {})
		if h.sockDir != "" {
			_ = os.RemoveAll(h.sockDir)
		}
	}()
	m, err := h.fetchManifest(ctx, p)
	if err != nil {
		return Inspection{}, err
	}
	out := Inspection{Protocol: p.protocol}
	for _, t := range m.Tools {
		out.Tools = append(out.Tools, t.Name)
	}
	if len(out.Tools) == 0 {
		return Inspection{}, &startError{Msg: fmt.Sprintf("The %s plugin started but serves no tools. Fix the plugin: a riot plugin serves at least one tool.", name)}
	}
	return out, nil
}
