package core

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/shared"
)

// Probed is what a plugin binary said when it was started alone.
type Probed struct {
	// Protocol is the protocol version it negotiated.
	Protocol int
	// Tools are its tools in its manifest's order.
	Tools []string
}

// Probe starts the plugin binary at path once, outside any session, and
// returns its protocol version and tools: what `riot plugins install`
// records in the lock. Its failure is the message a session would show.
// The process is gone when Probe returns.
func Probe(ctx context.Context, name, path string, timeout time.Duration) (Probed, error) {
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	tls, err := shared.NewTLSMaterial()
	if err != nil {
		return Probed{}, fmt.Errorf("TLS material: %w", err)
	}
	h := &Host{
		cfg: nil, log: hclog.NewNullLogger(), fileLog: hclog.NewNullLogger(), logFile: os.DevNull,
		tls: tls, cache: &manifestCache{entries: map[string]cacheEntry{}, builds: map[string]string{}, failures: map[string]failureEntry{}},
		now: time.Now, pluginLogLevel: "warn", startTimeout: timeout,
	}
	p := &pluginProc{h: h, spec: PluginSpec{Name: name, Path: path}, log: h.log, fileLog: h.fileLog}
	defer func() {
		p.close()
		h.sockOnce.Do(func() {})
		if h.sockDir != "" {
			_ = os.RemoveAll(h.sockDir)
		}
	}()
	m, err := h.fetchManifest(ctx, p)
	if err != nil {
		return Probed{}, err
	}
	out := Probed{Protocol: p.protocol}
	for _, t := range m.GetTools() {
		out.Tools = append(out.Tools, t.GetName())
	}
	if len(out.Tools) == 0 {
		return Probed{}, &startError{Msg: fmt.Sprintf("The %s plugin started but serves no tools. Fix the plugin: a riot plugin serves at least one tool.", name)}
	}
	return out, nil
}
