package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/sessionhost"
)

func (a *app) serveCommand() *cobra.Command {
	var foreground, stop, list bool
	cmd := &cobra.Command{
		Use:   "serve --session ID",
		Short: "Run a session host that `riot run` and `riot call` with --session ID attach to",
		Long: `Run a long-lived host for one session and workspace, in the background (or the foreground with
--foreground). While it runs, riot run --session ID and riot call --session ID in the same workspace
send their turns to it: plugins stay warm, background jobs outlive each invocation, and the host is
the one writer of the session's state. It exits after [serve] idle_timeout without a turn (default
30m), killing its plugins and their jobs. --stop stops it; --list lists the running hosts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if list {
				return a.listHosts(cmd.OutOrStdout())
			}
			if a.session == "" {
				return usageErr("riot serve needs --session ID: a session host serves one session")
			}
			cfg, ws, err := a.trustedConfig()
			if err != nil {
				return err
			}
			paths := a.hostPaths(cfg, ws)
			switch {
			case stop:
				if err := sessionhost.Stop(paths.Socket); err != nil {
					if errors.Is(err, sessionhost.ErrNoHost) {
						return &exitError{code: exitOutcome, msg: fmt.Sprintf("no session host serves session %s in %s", a.session, ws)}
					}
					return &exitError{code: exitOutcome, msg: err.Error()}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Stopped the session host of %s in %s.\n", a.session, ws)
				return nil
			case !foreground:
				if err := a.startDaemon(cmd.Context(), ws, paths); err != nil {
					return &exitError{code: exitOutcome, msg: err.Error()}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "A session host serves %s in %s (socket %s).\n", a.session, ws, paths.Socket)
				return nil
			}
			return a.serveForeground(cmd.Context(), ws, paths, cfg.ResolvedStateDir(nil), cfg.Serve.IdleTimeout)
		},
	}
	cmd.Flags().BoolVar(&foreground, "foreground", false, "serve in this process until stopped or idle")
	cmd.Flags().BoolVar(&stop, "stop", false, "stop the session host of --session in this workspace")
	cmd.Flags().BoolVar(&list, "list", false, "list the running session hosts")
	return cmd
}

func (a *app) serveForeground(ctx context.Context, ws string, paths sessionhost.Paths, stateDir string, idle time.Duration) error {
	a.lifetime = hostLifetime
	// The config each turn runs with, for the client's untrusted warning;
	// and the state dir the socket lives in, which a reload cannot move.
	var cur *config.Config
	// built is the host of the turns, whose lines about the session's
	// state go to the client of the turn they happened in.
	var built *core.Host
	// Before each turn the host looks at the files its config was read
	// from, and reads it again only when one changed.
	var watch sessionhost.ConfigWatch
	logger := hclog.New(&hclog.LoggerOptions{Name: "riot-serve", Output: a.stderr, Level: hclog.Info})
	srv := &sessionhost.Server{
		Paths: paths,
		Self:  sessionhost.Hello{Build: ident.Build(), Session: a.session, Workspace: ws, Inputs: a.configInputs()},
		Idle:  idle,
		Build: func(ctx context.Context, relay *sessionhost.Relay) (*core.Host, string, error) {
			h, err := a.host(ctx, core.Options{Prompter: relay, OnProgress: relay.Progress, WriteBehind: true})
			if err != nil {
				return nil, "", err
			}
			cur, built = a.cfg, h
			return h, fingerprint(a.cfg, a.specs), nil
		},
		Current: func() (string, error) {
			return watch.Current(func() (string, []string, error) {
				cfg, fp, paths, err := a.hostConfig(stateDir)
				if err == nil {
					cur = cfg
				}
				return fp, paths, err
			})
		},
		Warning: func() string {
			var lines []string
			if cur != nil && len(cur.Trust.Ignored) > 0 {
				lines = append(lines, untrustedLine(cur.Trust))
			}
			if built != nil {
				if w := built.TakeSessionWarnings(); w != "" {
					lines = append(lines, w)
				}
			}
			return strings.Join(lines, "\n")
		},
		Render: func(format string, results []core.ToolResult) ([]byte, error) {
			if err := checkFormat(format); err != nil {
				return nil, err
			}
			return turnio.Render(results, format)
		},
		Logf: func(format string, args ...any) { logger.Info(fmt.Sprintf(format, args...)) },
		Ready: func() {
			if fd := os.Getenv(riotenv.ReadyEnv); fd == "3" {
				f := os.NewFile(3, "ready")
				_, _ = io.WriteString(f, "ready\n")
				_ = f.Close()
			}
		},
	}
	if err := srv.Serve(ctx); err != nil {
		if errors.Is(err, sessionhost.ErrRunning) {
			return &exitError{code: exitOutcome, msg: fmt.Sprintf("a session host already serves %s in %s; stop it with `riot serve --stop --session %s`", a.session, ws, a.session)}
		}
		return &exitError{code: exitOutcome, msg: "the session host cannot serve: " + err.Error()}
	}
	return nil
}

// hostConfig reads the config as a host's next turn would run with it:
// its fingerprint, and the paths it was read from for the ConfigWatch.
func (a *app) hostConfig(stateDir string) (*config.Config, string, []string, error) {
	cfg, ws, err := a.loadConfig()
	if err != nil {
		return nil, "", nil, err
	}
	if d := cfg.ResolvedStateDir(nil); d != stateDir {
		return nil, "", nil, &sessionhost.RestartError{Reason: fmt.Sprintf("the state directory changed from %s to %s since the session host started, and a host cannot move, so it exits; start one again with `riot serve --session %s`", stateDir, d, a.session)}
	}
	specs, _, err := a.resolved(cfg, ws)
	if err != nil {
		return nil, "", nil, err
	}
	a.setLifetime(specs)
	return cfg, fingerprint(cfg, specs), a.configPaths(cfg, ws, specs), nil
}

// startDaemon starts `riot serve --foreground` detached, with this
// invocation's flags, and waits until it serves or has failed.
func (a *app) startDaemon(ctx context.Context, ws string, paths sessionhost.Paths) error {
	if err := sessionhost.EnsureDir(filepath.Dir(paths.Socket)); err != nil {
		return fmt.Errorf("cannot start a session host: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the riot executable: %w", err)
	}
	args := []string{"serve", "--foreground", "--session", a.session, "--cwd", ws}
	if a.mode != "" {
		args = append(args, "--mode", a.mode)
	}
	for _, f := range []struct {
		name string
		vals []string
	}{{"--allow", a.allow}, {"--deny", a.deny}, {"--ask", a.ask}, {"--add-dir", a.addDirs}} {
		for _, v := range f.vals {
			args = append(args, f.name, v)
		}
	}
	if a.configFile != "" {
		args = append(args, "--config", a.configFile)
	}
	logPath := strings.TrimSuffix(paths.Socket, ".sock") + ".log"
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("cannot create the session host's log %s: %w", logPath, err)
	}
	defer func() { _ = logf.Close() }()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), riotenv.ReadyEnv+"=3")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return fmt.Errorf("cannot start a session host: %w", err)
	}
	_ = w.Close()
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ready <- line == "ready\n"
	}()
	var ok bool
	select {
	case ok = <-ready:
	case <-ctx.Done():
	}
	if !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tail, _ := os.ReadFile(logPath)
		return fmt.Errorf("the session host did not start: %s", strings.TrimSpace(lastLine(string(tail))))
	}
	// The host outlives this invocation; init reaps it.
	_ = cmd.Process.Release()
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	if s == "" {
		return "it exited without saying why"
	}
	return s
}

func (a *app) listHosts(w io.Writer) error {
	cfg, _, err := a.loadConfig()
	if err != nil {
		return err
	}
	hosts, err := sessionhost.List(sessionhost.Dir(cfg.ResolvedStateDir(nil)))
	if err != nil {
		return &exitError{code: exitOutcome, msg: err.Error()}
	}
	if len(hosts) == 0 {
		fmt.Fprintln(w, "No session hosts are running; start one with `riot serve --session ID`.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tPID\tSTARTED\tWORKSPACE")
	for _, h := range hosts {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", h.Session, h.Pid, h.Started, h.Workspace)
	}
	return tw.Flush()
}
