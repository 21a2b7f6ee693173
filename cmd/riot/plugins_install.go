package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/lock"
	"github.com/riot-tools/riot/config/trust"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/install"
)

// pluginLifecycle holds what install, upgrade, verify and remove share:
// the workspace, its config and its lock.
type pluginLifecycle struct {
	a        *app
	ws       string
	cfg      *config.Config
	lockPath string
	lk       *lock.File
	out      io.Writer
	// release ends the command's hold on the workspace's plugins.
	release func()
	// user installs into $XDG_DATA_HOME/riot/plugins instead of
	// .riot/plugins; acceptTools lets a new version remove or reorder the
	// tools the lock records.
	user, acceptTools bool
	hinted            bool
}

func (a *app) lifecycle(cmd *cobra.Command) (*pluginLifecycle, error) {
	cfg, ws, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	l := &pluginLifecycle{a: a, ws: ws, cfg: cfg, lockPath: lock.Path(ws), out: cmd.OutOrStdout(), release: func() {}}
	// One lifecycle command at a time per workspace: each reads the lock,
	// changes it and writes it whole. The lock is on the .riot directory,
	// so it leaves no file behind.
	if dir, err := os.Open(filepath.Dir(l.lockPath)); err == nil {
		if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			dir.Close()
			return nil, &exitError{code: exitOutcome, msg: fmt.Sprintf("another riot plugins command is changing %s; run this one when it has finished", l.lockPath)}
		}
		l.release = func() { dir.Close() }
	}
	if l.lk, err = lock.Read(l.lockPath); err != nil {
		l.release()
		return nil, usageErr("%v", err)
	}
	return l, nil
}

func (a *app) pluginsSubcommands() []*cobra.Command {
	return []*cobra.Command{a.pluginsInstallCommand(), a.pluginsUpgradeCommand(), a.pluginsVerifyCommand(), a.pluginsRemoveCommand()}
}

func (a *app) pluginsInstallCommand() *cobra.Command {
	var name, version string
	var user, accept bool
	cmd := &cobra.Command{
		Use:   "install [SOURCE|NAME]",
		Short: "Install a plugin from its source and lock it, or every declared plugin that is missing or out of date",
		Long: "With SOURCE (a Go package path[@version], a local directory or binary, or an https:// or file:// URL),\n" +
			"declare it in .riot/config.toml and install it; with the NAME of a plugin declared with a source, or\n" +
			"without an argument, install what [plugins.NAME] source declares (that one, or all),\n" +
			"as .riot/plugins.lock pins it. Binaries go to .riot/plugins (or $XDG_DATA_HOME/riot/plugins with --user).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.lifecycle(cmd)
			if err != nil {
				return err
			}
			defer l.release()
			l.user, l.acceptTools = user, accept
			if len(args) == 0 {
				if name != "" || version != "" {
					return usageErr("--name and --version go with a SOURCE; without one, install installs what the config declares")
				}
				return l.installDeclared(cmd.Context())
			}
			if p, ok := l.declaredByName(args[0]); ok && name == "" && version == "" {
				// The remedies riot prints name a declared plugin:
				// install it as the config declares and the lock pins.
				return l.installOne(cmd.Context(), p, false)
			}
			return l.installSource(cmd.Context(), args[0], name, version)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the plugin's name (default: from the source, without riot-tool-)")
	f.StringVar(&version, "version", "", "a Go package's version or constraint, such as v1.2.3, \"~> 1.2\" or latest")
	f.BoolVar(&user, "user", false, "install into $XDG_DATA_HOME/riot/plugins instead of .riot/plugins")
	f.BoolVar(&accept, "accept-tools-change", false, "record a new version that removes or reorders the tools the lock records")
	return cmd
}

func (a *app) pluginsUpgradeCommand() *cobra.Command {
	var user, accept bool
	cmd := &cobra.Command{
		Use:   "upgrade [NAME]",
		Short: "Install the newest version the config's constraint allows and record it, with its tools[] change, in the lock",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.lifecycle(cmd)
			if err != nil {
				return err
			}
			defer l.release()
			l.user, l.acceptTools = user, accept
			plugins, err := l.sourced(args)
			if err != nil {
				return err
			}
			var failed []string
			for _, p := range plugins {
				if err := l.installOne(cmd.Context(), p, true); err != nil {
					if len(plugins) == 1 {
						return err
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "riot: %s\n", err)
					failed = append(failed, p.Name)
				}
			}
			if len(failed) > 0 {
				return &exitError{code: exitOutcome, msg: "not upgraded: " + strings.Join(failed, ", ")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "install into $XDG_DATA_HOME/riot/plugins instead of .riot/plugins")
	cmd.Flags().BoolVar(&accept, "accept-tools-change", false, "record a new version that removes or reorders the tools the lock records")
	return cmd
}

// sourced are the plugins with a source, all or those named.
func (l *pluginLifecycle) sourced(names []string) ([]config.Plugin, error) {
	var out []config.Plugin
	for _, p := range l.cfg.Plugins {
		if p.Source != "" && (len(names) == 0 || slices.Contains(names, p.Name)) {
			out = append(out, p)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(p config.Plugin) bool { return p.Name == n }) {
			return nil, usageErr("no plugin %q is declared with a source; declare it with `riot plugins install SOURCE --name %s`", n, n)
		}
	}
	return out, nil
}

func (l *pluginLifecycle) installDeclared(ctx context.Context) error {
	plugins, err := l.sourced(nil)
	if err != nil {
		return err
	}
	if len(plugins) == 0 {
		fmt.Fprintln(l.out, "no plugin declares a source; install one with `riot plugins install SOURCE`")
		if len(l.cfg.Trust.Ignored) > 0 {
			l.untrustedHint()
		}
		return nil
	}
	var failed []string
	for _, p := range plugins {
		if err := l.installOne(ctx, p, false); err != nil {
			if len(plugins) == 1 {
				return err
			}
			fmt.Fprintf(l.a.stderr, "riot: %s\n", err)
			failed = append(failed, p.Name)
		}
	}
	if len(failed) > 0 {
		return &exitError{code: exitOutcome, msg: "not installed: " + strings.Join(failed, ", ")}
	}
	return nil
}

// declaredByName is the plugin declared with a source under arg's name,
// when arg can only be a name: a source has a dot, a slash or a scheme.
func (l *pluginLifecycle) declaredByName(arg string) (config.Plugin, bool) {
	if strings.ContainsAny(arg, "./:") {
		return config.Plugin{}, false
	}
	p, ok := l.cfg.Plugin(arg)
	return p, ok && p.Source != ""
}

func (l *pluginLifecycle) installSource(ctx context.Context, raw, name, version string) error {
	if pkg, v, ok := strings.Cut(raw, "@"); ok && !strings.Contains(raw, "://") && !strings.HasPrefix(raw, ".") && !filepath.IsAbs(raw) {
		// A Go package's version, as go install writes it.
		if version != "" && version != v {
			return usageErr("%s names version %s and --version %s; give one", raw, v, version)
		}
		raw, version = pkg, v
	}
	src, err := install.ParseSource(raw, l.ws)
	if err != nil {
		return installExit(err)
	}
	if name == "" {
		name = install.NameOf(src)
	}
	if !config.ValidPluginName(name) {
		return usageErr("%q is no plugin name (lowercase letters, digits, - and _); give one with --name", name)
	}
	if p, ok := l.cfg.Plugin(name); ok && p.Source != "" && p.Source != raw {
		return usageErr("the %s plugin is declared with source %q (%s); change it there, or choose another name with --name", name, p.Source, l.cfg.Sources["plugins."+name+".source"])
	}
	if _, err := canDeclare(l.ws, name, raw); err != nil {
		return err
	}
	p := config.Plugin{Name: name, Enabled: true, Source: raw, Version: version}
	if prev, ok := l.cfg.Plugin(name); ok && prev.Source == raw {
		p = prev
		if version != "" {
			p.Version = version
		}
	}
	return l.install(ctx, p, false, func() error { return declarePlugin(l.ws, name, raw, version) })
}

func (l *pluginLifecycle) installOne(ctx context.Context, p config.Plugin, upgrade bool) error {
	return l.install(ctx, p, upgrade, nil)
}

// install gets, inspects and installs one plugin and records it in the lock;
// declare, if set, adds it to the config once the binary is known good.
// On any failure the previous binary, config and lock entry stay.
func (l *pluginLifecycle) install(ctx context.Context, p config.Plugin, upgrade bool, declare func() error) error {
	src, err := install.ParseSource(p.Source, l.ws)
	if err != nil {
		return installExit(fmt.Errorf("[plugins.%s]: %w", p.Name, err))
	}
	if src.Kind == install.GoPackage {
		if _, err := install.ParseConstraint(p.Version); err != nil {
			return installExit(fmt.Errorf("[plugins.%s]: %w", p.Name, err))
		}
	}
	dir := l.pluginDir()
	dst := filepath.Join(dir, config.PluginPrefix+p.Name)
	prev := l.lk.Plugins[p.Name]
	if prev != nil && prev.Source != p.Source {
		prev = nil // another source: nothing of the old entry carries over
	}
	req := install.Request{Name: p.Name, Source: src, Version: p.Version, Progress: l.a.stderr}
	if prev != nil && !upgrade {
		if sum, err := lock.FileSHA256(dst); err == nil && sum == prev.BinarySHA256() && l.allows(src, p, prev) && declare == nil {
			fmt.Fprintf(l.out, "%s %s is installed as %s locks it\n", p.Name, prev.Version, l.lockPath)
			return nil
		}
		if l.allows(src, p, prev) {
			// Reproduce what the lock pins.
			req.Pinned, req.Sum = prev.Version, prev.Sum
			if src.Kind == install.URL || src.Kind == install.LocalBinary {
				req.SHA256 = prev.BinarySHA256()
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &exitError{code: exitOutcome, msg: fmt.Sprintf("cannot make the plugin directory %s: %v", dir, err)}
	}
	scratch, err := os.MkdirTemp(dir, ".install-")
	if err != nil {
		return &exitError{code: exitOutcome, msg: fmt.Sprintf("cannot make a scratch directory in %s: %v", dir, err)}
	}
	defer os.RemoveAll(scratch)
	req.Scratch = scratch
	got, err := install.Get(ctx, req)
	if err != nil {
		return installExit(err)
	}
	seen, err := core.InspectPlugin(ctx, l.cfg, p.Name, got.Binary)
	if err != nil {
		return &exitError{code: exitOutcome, msg: fmt.Sprintf("the new binary of %s does not work as a riot plugin, so nothing was installed: %v", p.Name, err)}
	}
	entry := &lock.Entry{Source: p.Source, Constraint: p.Version, Version: got.Version, Sum: got.Sum, Protocol: seen.Protocol, SHA256: map[string]string{lock.Platform(): got.SHA256}}
	var change string
	if old := l.lk.Plugins[p.Name]; old != nil {
		var err error
		if entry.Tools, change, err = toolsChange(p.Name, old.Tools, seen.Tools, l.acceptTools); err != nil {
			return err
		}
		if old.Version == entry.Version && old.Sum == entry.Sum && old.Source == entry.Source {
			// The same code: other platforms' builds stay pinned.
			for k, v := range old.SHA256 {
				if k != lock.Platform() {
					entry.SHA256[k] = v
				}
			}
		}
	} else {
		entry.Tools = seen.Tools
	}
	before := l.pluginsSum()
	installed, err := install.Put(got, dir, p.Name)
	if err != nil {
		return installExit(err)
	}
	if declare != nil {
		if err := declare(); err != nil {
			_ = installed.Undo()
			return err
		}
	}
	old := l.lk.Plugins[p.Name]
	l.lk.Plugins[p.Name] = entry
	if err := l.lk.Write(l.lockPath); err != nil {
		l.lk.Plugins[p.Name] = old
		_ = installed.Undo()
		return &exitError{code: exitOutcome, msg: fmt.Sprintf("cannot write %s (%v); the previous binary is back in place", l.lockPath, err)}
	}
	installed.Keep()
	l.revouchPlugins(before)
	fmt.Fprintf(l.out, "%s %s installed as %s (protocol %d); tools: %s\n", p.Name, entry.Version, installed.Path, entry.Protocol, strings.Join(entry.Tools, ", "))
	if change != "" {
		fmt.Fprintf(l.out, "  tools[] change recorded in %s: %s\n", l.lockPath, change)
	}
	l.untrustedHint()
	return nil
}

// untrustedHint says, once, that an untrusted workspace's config and
// .riot/plugins are ignored, so what was installed there does not run yet.
func (l *pluginLifecycle) untrustedHint() {
	if l.cfg.Trust.Trusted() || l.hinted {
		return
	}
	// A workspace with no file of its own when the config was read had no
	// trust to look up; the record still says whether it is trusted.
	if st, err := l.a.trustStore().Lookup(l.ws); err == nil && st.State == trust.Trusted {
		return
	}
	l.hinted = true
	fmt.Fprintf(l.out, "  this workspace is not trusted, so riot ignores its .riot/config.toml and .riot/plugins; run `riot trust` to use its plugins\n")
}

// allows reports whether the locked version still meets the declaration.
func (l *pluginLifecycle) allows(src install.Source, p config.Plugin, prev *lock.Entry) bool {
	if src.Kind != install.GoPackage {
		return src.Kind != install.URL || p.Version == "" || p.Version == prev.Version
	}
	c, err := install.ParseConstraint(p.Version)
	return err == nil && c.Allows(prev.Version)
}

// pluginsSum is the sum of the workspace's .riot/plugins as the trust
// record keeps it, before riot changes it; "" with --user, which leaves
// it alone.
func (l *pluginLifecycle) pluginsSum() string {
	if l.user {
		return ""
	}
	sum, _ := config.ContentSum(l.ws, config.PluginsDirName)
	return sum
}

// revouchPlugins records the workspace's .riot/plugins, which riot just
// changed on the user's command, as trusted in place of its content
// before, when the workspace is trusted with that content; otherwise the
// change waits for riot trust, as anyone else's does.
func (l *pluginLifecycle) revouchPlugins(before string) {
	if l.user {
		return
	}
	after, err := config.ContentSum(l.ws, config.PluginsDirName)
	if err == nil {
		err = l.a.trustStore().Revouch(l.ws, config.PluginsDirName, before, after, time.Now())
	}
	if err != nil && !errors.Is(err, trust.ErrNotVouched) {
		fmt.Fprintf(l.a.stderr, "riot: .riot/plugins changed, but the trust record cannot say so (%v); run: riot trust %s\n", err, shellQuote(l.ws))
	}
}

func (l *pluginLifecycle) pluginDir() string {
	if l.user {
		data := os.Getenv("XDG_DATA_HOME")
		if data == "" {
			home, _ := os.UserHomeDir()
			data = filepath.Join(home, ".local", "share")
		}
		return filepath.Join(data, "riot", "plugins")
	}
	return filepath.Join(l.ws, ".riot", "plugins")
}

// toolsChange orders a new version's tools for the lock: the locked ones
// where they were, new ones after them. A tool removed or moved is
// refused unless accepted, since tools[] is part of every session's
// prompt-cache prefix.
func toolsChange(name string, locked, served []string, accept bool) ([]string, string, error) {
	var removed, added, kept []string
	for _, t := range locked {
		if !slices.Contains(served, t) {
			removed = append(removed, t)
		}
	}
	for _, t := range served {
		if slices.Contains(locked, t) {
			kept = append(kept, t)
		} else {
			added = append(added, t)
		}
	}
	reordered := len(removed) == 0 && !slices.Equal(kept, locked)
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, "removes "+strings.Join(removed, ", "))
	}
	if reordered {
		parts = append(parts, fmt.Sprintf("reorders them (%s, locked as %s)", strings.Join(kept, ", "), strings.Join(locked, ", ")))
	}
	if (len(removed) > 0 || reordered) && !accept {
		return nil, "", &exitError{code: exitOutcome, msg: fmt.Sprintf("the new version of %s %s; tools[] is part of every session's prompt-cache prefix, so nothing was installed. Run again with --accept-tools-change to record the change.", name, strings.Join(parts, " and "))}
	}
	var out []string
	if len(removed) > 0 || reordered {
		out = served
	} else {
		out = append(slices.Clone(locked), added...)
	}
	if len(added) > 0 {
		parts = append(parts, "appends "+strings.Join(added, ", "))
	}
	change := strings.Join(parts, "; ")
	if change != "" {
		change += " (now " + strings.Join(out, ", ") + ")"
	}
	return out, change, nil
}

func (a *app) pluginsVerifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check every installed plugin against .riot/plugins.lock: its binary's sha256, protocol and tools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.lifecycle(cmd)
			if err != nil {
				return err
			}
			defer l.release()
			exe, _ := os.Executable()
			specs, _ := core.Resolver{Workspace: l.ws, Exe: exe, Builtins: builtinNames()}.ResolvePlugins(l.cfg)
			var problems []string
			checked := 0
			for _, p := range l.cfg.Plugins {
				if p.Source == "" {
					continue
				}
				checked++
				i := slices.IndexFunc(specs, func(s core.PluginSpec) bool { return s.Name == p.Name })
				if i < 0 {
					continue // disabled
				}
				if msg := l.verifyOne(cmd.Context(), specs[i]); msg != "" {
					problems = append(problems, p.Name+": "+msg)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(l.lk.Plugins)) {
				if p, ok := l.cfg.Plugin(name); !ok || p.Source == "" {
					problems = append(problems, fmt.Sprintf("%s: %s has an entry no [plugins.%s] source declares; run `riot plugins remove %s`", name, l.lockPath, name, name))
				}
			}
			for _, pr := range problems {
				fmt.Fprintln(l.out, pr)
			}
			if len(problems) > 0 {
				return &exitError{code: exitOutcome, msg: fmt.Sprintf("%d problem(s) with the plugins %s locks", len(problems), l.lockPath)}
			}
			fmt.Fprintf(l.out, "%d plugin(s) match %s\n", checked, l.lockPath)
			return nil
		},
	}
}

// verifyOne is what is wrong with one locked plugin, or "".
func (l *pluginLifecycle) verifyOne(ctx context.Context, spec core.PluginSpec) string {
	if spec.Refused != "" {
		return spec.Refused
	}
	entry := l.lk.Plugins[spec.Name]
	sum, err := lock.FileSHA256(spec.Path)
	if err != nil {
		return fmt.Sprintf("its binary %s cannot be read (%v); run `riot plugins install`", spec.Path, err)
	}
	if sum != spec.SHA256 {
		return fmt.Sprintf("its binary %s has sha256 %s, the lock pins %s; run `riot plugins install %s` to reinstall the locked version", spec.Path, sum, spec.SHA256, spec.Name)
	}
	seen, err := core.InspectPlugin(ctx, l.cfg, spec.Name, spec.Path)
	if err != nil {
		return err.Error()
	}
	if seen.Protocol != entry.Protocol {
		return fmt.Sprintf("it negotiated protocol %d, the lock records %d; run `riot plugins upgrade %s` to record it", seen.Protocol, entry.Protocol, spec.Name)
	}
	if _, change, err := toolsChange(spec.Name, entry.Tools, seen.Tools, false); err != nil || change != "" {
		return fmt.Sprintf("it serves %s, the lock records %s; run `riot plugins upgrade %s` to record it", strings.Join(seen.Tools, ", "), strings.Join(entry.Tools, ", "), spec.Name)
	}
	return ""
}

func (a *app) pluginsRemoveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an installed plugin: its binary, its lock entry and its [plugins.NAME] in .riot/config.toml",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.lifecycle(cmd)
			if err != nil {
				return err
			}
			defer l.release()
			name := args[0]
			_, locked := l.lk.Plugins[name]
			p, declared := l.cfg.Plugin(name)
			if !locked && (!declared || p.Source == "") {
				return usageErr("no plugin %q is installed from a source (neither %s nor the config has it)", name, l.lockPath)
			}
			undeclared, err := undeclarePlugin(l.ws, name)
			if err != nil {
				return err
			}
			if locked {
				delete(l.lk.Plugins, name)
				if err := l.lk.Write(l.lockPath); err != nil {
					return &exitError{code: exitOutcome, msg: fmt.Sprintf("cannot write %s: %v", l.lockPath, err)}
				}
			}
			var removed []string
			l.user = false
			before := l.pluginsSum()
			defer l.revouchPlugins(before)
			for _, user := range []bool{false, true} {
				l.user = user
				path := filepath.Join(l.pluginDir(), config.PluginPrefix+name)
				if err := os.Remove(path); err == nil {
					removed = append(removed, path)
				} else if !errors.Is(err, os.ErrNotExist) {
					return &exitError{code: exitOutcome, msg: fmt.Sprintf("cannot remove %s: %v", path, err)}
				}
			}
			fmt.Fprintf(l.out, "removed %s", name)
			if len(removed) > 0 {
				fmt.Fprintf(l.out, ": %s", strings.Join(removed, ", "))
			}
			fmt.Fprintln(l.out)
			if declared && p.Source != "" && !undeclared {
				fmt.Fprintf(l.out, "  [plugins.%s] is declared in %s, not the workspace config; remove it there\n", name, l.cfg.Sources["plugins."+name+".source"])
			}
			return nil
		},
	}
}

// installExit is an install error as an exit: 2 for input, 1 otherwise.
func installExit(err error) error {
	var ie *install.Error
	if errors.As(err, &ie) && !ie.Usage {
		return &exitError{code: exitOutcome, msg: err.Error()}
	}
	return &exitError{code: exitUsage, msg: err.Error()}
}

// printLocked adds to `riot plugins` a plugin's protocol version and, for
// an installed one, its source and locked version.
func printLocked(w io.Writer, st core.PluginStatus, info core.PluginInfo) {
	if st.Source != "" {
		fmt.Fprintf(w, "  source:   %s (locked at %s)\n", st.Source, cmp.Or(st.Version, "nothing: not installed"))
	}
	if info.Protocol > 0 {
		fmt.Fprintf(w, "  protocol: %d\n", info.Protocol)
	}
}
