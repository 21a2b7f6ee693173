package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

func (a *app) configCommand() *cobra.Command {
	var defaults, check bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective config and where each value came from",
		Long: "Show the effective config and where each value came from. With --check, check the permission rules " +
			"against the tools they name instead (this starts the plugins and MCP servers to read their schemas), " +
			"and exit 2 if one does not fit.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if check {
				return a.checkRules(cmd)
			}
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
	cmd.Flags().BoolVar(&check, "check", false, "check the permission rules against the tools' parameters")
	cmd.MarkFlagsMutuallyExclusive("defaults", "check")
	return cmd
}

// checkRules reports each permission rule or hook's if that does not fit
// the tool it names (core.Host.RuleProblems).
// The host's own warning of them at start is left out, so that each is
// said once.
func (a *app) checkRules(cmd *cobra.Command) error {
	logger := hclog.New(&hclog.LoggerOptions{Name: "riot", Level: hclog.Error, Output: cmd.ErrOrStderr()})
	h, err := a.host(cmd.Context(), core.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer h.Close()
	problems := h.RuleProblems()
	for _, p := range problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "riot: %v\n", p)
	}
	switch n := len(problems); {
	case n == 1:
		return &exitError{code: exitUsage, msg: "1 rule does not fit the tool it names; fix it (until then a permission rule refuses each call of its tool, and a hook's if runs its hook on each call, its allow counting for nothing)"}
	case n > 1:
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d rules do not fit the tools they name; fix them (until then a permission rule refuses each call of its tool, and a hook's if runs its hook on each call, its allow counting for nothing)", n)}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "the permission rules fit the %d tools they may name\n", len(h.Tools()))
	return nil
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
	for _, e := range c.Entries() {
		switch e.Key {
		case "state_dir":
			e.Value += " (" + c.ResolvedStateDir(nil) + ")"
		case "log.file":
			e.Value += " (" + c.ResolvedLogFile(nil) + ")"
		}
		fmt.Fprintf(tw, "%s %s %s\t# %s\n", e.Key, e.Op, e.Value, e.Source)
	}
	printSandboxStatus(tw, c)
	_ = tw.Flush()
}

// untrustedNote says what was ignored in file for lack of trust.
func untrustedNote(t config.Trust, file string) string {
	keys := t.IgnoredKeys(file)
	if len(keys) == 0 {
		return ""
	}
	if t.ChangedSince(file) {
		return fmt.Sprintf(" (changed since you trusted the workspace: ignored %s; riot trust %s shows the change and applies them)", strings.Join(keys, ", "), shellQuote(t.Workspace))
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
