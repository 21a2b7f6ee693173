package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// probeTimeout bounds the check that bwrap works; a sandbox that takes
// longer to start than this is not one to run every command in.
const probeTimeout = 5 * time.Second

// Probe finds out once whether bubblewrap can run a command here, with the
// namespaces every profile uses. It is safe for concurrent use.
type Probe struct {
	// LookPath finds bwrap; nil means exec.LookPath.
	LookPath func(string) (string, error)

	once sync.Once
	path string
	err  error
}

// Check returns bwrap's path, or why the sandbox cannot start here.
func (p *Probe) Check(ctx context.Context) (string, error) {
	p.once.Do(func() { p.path, p.err = p.run(ctx) })
	return p.path, p.err
}

func (p *Probe) run(ctx context.Context) (string, error) {
	look := p.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look("bwrap")
	if err != nil {
		return "", errNoBwrap
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	args := append((&Profile{}).Args("/"), "true")
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			why = fmt.Sprintf("bwrap did not finish a test run in %s", probeTimeout)
		}
		if why == "" {
			why = "bwrap failed a test run: " + err.Error()
		}
		return "", fmt.Errorf("%s (user namespaces may be disabled: check kernel.unprivileged_userns_clone and user.max_user_namespaces)", firstLine(why))
	}
	return path, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
