package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
)

func (a *app) configCommand() *cobra.Command {
	var defaults bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective config and where each value came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if defaults {
				_, err := cmd.OutOrStdout().Write(config.Defaults())
				return err
			}
			cfg, _, err := a.loadConfig()
			if err != nil {
				return err
			}
			a.warnUntrusted(cfg)
			printConfig(cmd.OutOrStdout(), cfg)
			return nil
		},
	}
	cmd.Flags().BoolVar(&defaults, "defaults", false, "print the embedded defaults")
	return cmd
}

// printConfig prints every effective value, each with where it came from:
// empty lists and unset plugin keys included, so that the listing is the
// whole configuration riot runs with.
func printConfig(w io.Writer, c *config.Config) {
	fmt.Fprintln(w, "# files read, in layer order:")
	if len(c.Files) == 0 {
		fmt.Fprintln(w, "#   (none: embedded defaults only)")
	}
	for _, f := range c.Files {
		fmt.Fprintf(w, "#   %s%s\n", f, untrustedNote(c.Trust, f))
	}
	if dirs := ignoredDirs(c.Trust); len(dirs) > 0 {
		fmt.Fprintf(w, "# not searched for plugins, as the workspace is not trusted: %s\n", strings.Join(dirs, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	entry := func(key, value string, src config.Source) {
		fmt.Fprintf(tw, "%s = %s\t# %s\n", key, value, src)
	}
	line := func(key, value string) { entry(key, value, source(c, key)) }
	list := func(key string, values []string) {
		if len(values) == 0 {
			line(key, "[]")
			return
		}
		for _, v := range values {
			fmt.Fprintf(tw, "%s += %s\t# %s\n", key, quote(v), source(c, key))
		}
	}
	line("state_dir", quote(c.StateDir)+" ("+c.ResolvedStateDir(nil)+")")
	list("plugin_dirs", c.PluginDirs)
	line("permissions.mode", quote(c.Permissions.Mode))
	for _, l := range []struct {
		key   string
		rules []config.Rule
	}{{"allow", c.Permissions.Allow}, {"ask", c.Permissions.Ask}, {"deny", c.Permissions.Deny}} {
		key := "permissions." + l.key
		if len(l.rules) == 0 {
			line(key, "[]")
		}
		for _, r := range l.rules {
			fmt.Fprintf(tw, "%s += %s\t# %s\n", key, quote(r.Text), r.Source)
		}
	}
	list("permissions.additional_dirs", c.Permissions.AdditionalDirs)
	line("permissions.classifier.url", quote(c.Permissions.Classifier.URL))
	line("permissions.classifier.model", quote(c.Permissions.Classifier.Model))
	line("permissions.classifier.timeout", quote(dur(c.Permissions.Classifier.Timeout)))
	line("limits.max_parallel", strconv.Itoa(c.Limits.MaxParallel))
	line("limits.turn_budget_chars", strconv.Itoa(c.Limits.TurnBudgetChars))
	line("limits.call_timeout", quote(dur(c.Limits.CallTimeout)))
	line("limits.start_timeout", quote(dur(c.Limits.StartTimeout)))
	line("results.max_age", quote(dur(c.Results.MaxAge)))
	line("results.max_total_mb", strconv.Itoa(c.Results.MaxTotalMB))
	line("log.level", quote(c.Log.Level))
	line("log.file", quote(c.Log.File)+" ("+c.ResolvedLogFile(nil)+")")
	printSandboxConfig(tw, c)
	line("log.max_size_mb", strconv.Itoa(c.Log.MaxSizeMB))
	for _, p := range c.Plugins {
		k := "plugins." + p.Name + "."
		line(k+"enabled", strconv.FormatBool(p.Enabled))
		line(k+"path", quote(p.Path))
		line(k+"sha256", quote(p.SHA256))
		line(k+"args", "["+strings.Join(quoteAll(p.Args), ", ")+"]")
		if len(p.Env) == 0 {
			line(k+"env", "{}")
		}
		names := make([]string, 0, len(p.Env))
		for name := range p.Env {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			fmt.Fprintf(tw, "%senv.%s = %s\t# %s\n", k, name, quote(p.Env[name]), source(c, k+"env"))
		}
		if p.Timeout > 0 {
			line(k+"timeout", quote(dur(p.Timeout)))
		} else {
			// Unset: the call timeout applies, and that is the value.
			entry(k+"timeout", quote(dur(c.Limits.CallTimeout)), config.Source{Layer: "limits.call_timeout"})
		}
	}
	for _, ev := range []struct {
		name  string
		hooks []config.Hook
	}{{"PreToolUse", c.Hooks.PreToolUse}, {"PostToolUse", c.Hooks.PostToolUse}} {
		for _, h := range ev.hooks {
			fmt.Fprintf(tw, "hooks.%s += {matcher = %s, command = %s, timeout = %s, fail_closed = %v}\t# %s\n",
				ev.name, quote(h.Matcher), quote(h.Command), quote(dur(h.Timeout)), h.FailClosed, h.Source)
		}
	}
	_ = tw.Flush()
}

// source is where key's value came from; a key no layer set (an empty
// list, an unset plugin key) is the default.
func source(c *config.Config, key string) config.Source {
	if s, ok := c.Sources[key]; ok {
		return s
	}
	return config.Source{Layer: "default"}
}

// untrustedNote says what was ignored in file for lack of trust.
func untrustedNote(t config.Trust, file string) string {
	keys := t.IgnoredKeys(file)
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf(" (not trusted: ignored %s; riot trust %s applies them)", strings.Join(keys, ", "), shellQuote(t.Workspace))
}

// ignoredDirs are the plugin directories not searched for lack of trust.
func ignoredDirs(t config.Trust) []string {
	var dirs []string
	for _, ig := range t.Ignored {
		if ig.Key == "discovery" {
			dirs = append(dirs, ig.Source.File)
		}
	}
	return dirs
}

func quote(s string) string { return strconv.Quote(s) }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

// dur is d as a config file would say it, in time.ParseDuration's terms:
// 10m, 10s, 1m30s, 1h, never 10m0s.
func dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
