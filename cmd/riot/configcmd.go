package main

import (
	"fmt"
	"io"
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
			printConfig(cmd.OutOrStdout(), cfg)
			return nil
		},
	}
	cmd.Flags().BoolVar(&defaults, "defaults", false, "print the embedded defaults")
	return cmd
}

func printConfig(w io.Writer, c *config.Config) {
	fmt.Fprintln(w, "# files read, in layer order:")
	if len(c.Files) == 0 {
		fmt.Fprintln(w, "#   (none: embedded defaults only)")
	}
	for _, f := range c.Files {
		fmt.Fprintf(w, "#   %s\n", f)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(key, value string) {
		fmt.Fprintf(tw, "%s = %s\t# %s\n", key, value, c.Sources[key])
	}
	line("state_dir", quote(c.StateDir)+" ("+c.ResolvedStateDir(nil)+")")
	for _, d := range c.PluginDirs {
		fmt.Fprintf(tw, "plugin_dirs += %s\t# %s\n", quote(d), c.Sources["plugin_dirs"])
	}
	line("permissions.mode", quote(c.Permissions.Mode))
	for _, l := range []struct {
		key   string
		rules []config.Rule
	}{{"allow", c.Permissions.Allow}, {"ask", c.Permissions.Ask}, {"deny", c.Permissions.Deny}} {
		for _, r := range l.rules {
			fmt.Fprintf(tw, "permissions.%s += %s\t# %s\n", l.key, quote(r.Text), r.Source)
		}
	}
	for _, d := range c.Permissions.AdditionalDirs {
		fmt.Fprintf(tw, "permissions.additional_dirs += %s\t#\n", quote(d))
	}
	line("permissions.classifier.url", quote(c.Permissions.Classifier.URL))
	line("permissions.classifier.model", quote(c.Permissions.Classifier.Model))
	line("permissions.classifier.timeout", quote(dur(c.Permissions.Classifier.Timeout)))
	line("limits.max_parallel", strconv.Itoa(c.Limits.MaxParallel))
	line("limits.turn_budget_chars", strconv.Itoa(c.Limits.TurnBudgetChars))
	line("limits.call_timeout", quote(dur(c.Limits.CallTimeout)))
	line("log.level", quote(c.Log.Level))
	line("log.file", quote(c.Log.File)+" ("+c.ResolvedLogFile(nil)+")")
	printSandboxConfig(tw, c)
	for _, p := range c.Plugins {
		k := "plugins." + p.Name + "."
		line(k+"enabled", strconv.FormatBool(p.Enabled))
		if p.Path != "" {
			line(k+"path", quote(p.Path))
		}
		if p.SHA256 != "" {
			line(k+"sha256", quote(p.SHA256))
		}
		if len(p.Args) > 0 {
			line(k+"args", "["+strings.Join(quoteAll(p.Args), ", ")+"]")
		}
		for name, v := range p.Env {
			fmt.Fprintf(tw, "%senv.%s = %s\t# %s\n", k, name, quote(v), c.Sources[k+"env"])
		}
		if p.Timeout > 0 {
			line(k+"timeout", quote(dur(p.Timeout)))
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

func quote(s string) string { return strconv.Quote(s) }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

func dur(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "m") || strings.HasSuffix(s, "h") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
