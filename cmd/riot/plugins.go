package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/lock"
	"github.com/riot-tools/riot/core"
)

func (a *app) pluginsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins discovered and configured, and what each serves",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := a.loadConfig()
			if err != nil {
				return err
			}
			exe, _ := os.Executable()
			_, statuses := core.Resolver{Workspace: ws, Exe: exe, Builtins: builtinNames()}.ResolvePlugins(cfg)
			a.noPluginWarnings = true // each problem is in the listing
			h, err := a.host(cmd.Context(), core.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			infos := map[string]core.PluginInfo{}
			for _, p := range h.Plugins() {
				infos[p.Name] = p
			}
			out := cmd.OutOrStdout()
			for _, st := range statuses {
				printPlugin(out, st, infos[st.Name], ident.Version, ws)
			}
			printMCPServers(out, cfg, h.MCPServers())
			return nil
		},
	}
	cmd.AddCommand(a.pluginsSubcommands()...)
	return cmd
}

func printPlugin(w io.Writer, st core.PluginStatus, info core.PluginInfo, riotVersion, ws string) {
	state := "disabled"
	switch {
	case st.Enabled:
		state = "enabled"
	case st.Discovered != "":
		state = "discovered, not enabled"
	}
	kind := "plugin"
	if st.Builtin {
		kind = "builtin"
	}
	fmt.Fprintf(w, "%s (%s, %s)\n", st.Name, kind, state)
	if st.Path != "" {
		fmt.Fprintf(w, "  path:     %s\n", st.Path)
		if sum, err := lock.FileSHA256(st.Path); err == nil {
			fmt.Fprintf(w, "  sha256:   %s\n", sum)
		}
	}
	if st.Builtin {
		fmt.Fprintf(w, "  version:  riot %s\n", riotVersion)
		if st.Standalone != "" {
			if err := core.SameBuild(st.Path, st.Standalone); err != nil {
				fmt.Fprintf(w, "  standalone: %s, not used: %s\n", st.Standalone, err)
			} else {
				fmt.Fprintf(w, "  standalone: %s, which serves it (the same build; it starts faster)\n", st.Standalone)
			}
		}
	}
	if st.Discovered != "" {
		fmt.Fprintf(w, "  found in: %s\n", st.Discovered)
	}
	if len(info.Tools) > 0 {
		fmt.Fprintf(w, "  tools:    %s\n", strings.Join(info.Tools, ", "))
	}
	if len(info.Unfenced) > 0 && !st.Builtin {
		verb := "declares"
		if len(info.Unfenced) > 1 {
			verb = "declare"
		}
		fmt.Fprintf(w, "  warning:  %s can be read-only but %s no permission subjects: such calls are allowed in every mode, and neither the workspace fence nor a deny rule sees what they read. Trust the plugin, or deny the tool (docs/permissions.md, \"Tools without subjects\").\n",
			strings.Join(info.Unfenced, ", "), verb)
	}
	printLocked(w, st, info)
	switch {
	case info.Problem != "":
		fmt.Fprintf(w, "  problem:  %s\n", info.Problem)
	case st.Problem != "":
		fmt.Fprintf(w, "  problem:  %s\n", st.Problem)
	}
	if !st.Enabled && st.Discovered != "" {
		fmt.Fprintf(w, "  enable:   %s\n", strings.ReplaceAll(enableHint(ws, st.Name), "\n", "\n            "))
	}
}

// enableHint says how to enable a discovered plugin in the workspace ws.
// The workspace's own config applies only as riot trust saw it, so the
// table is added first and riot trust run after, whether or not the
// workspace was trusted before; the user's own config needs no trust.
func enableHint(ws, name string) string {
	return fmt.Sprintf("add to .riot/config.toml:\n  [plugins.%s]\n  enabled = true\nthen run: riot trust %s\n(a workspace's config applies only as riot trust last saw it; in your own config, %s, it needs no trust)",
		name, shellQuote(ws), userConfigHint())
}

// userConfigHint names the user's own config file, with ~ for the home
// directory.
func userConfigHint() string {
	p := filepath.Join(config.UserConfigDir(os.Getenv), "config.toml")
	if home, err := config.HomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
	}
	return p
}

// printMCPServers lists each configured MCP server, its state, its tools
// and any problem, in config order.
func printMCPServers(w io.Writer, cfg *config.Config, running []core.MCPServerInfo) {
	byName := map[string]core.MCPServerInfo{}
	for _, s := range running {
		byName[s.Name] = s
	}
	for _, srv := range cfg.MCPServers {
		info, ok := byName[srv.Name]
		state := "disabled"
		if ok {
			state = "enabled, " + info.State
		}
		fmt.Fprintf(w, "%s (MCP server, %s)\n", srv.Name, state)
		if srv.URL != "" {
			fmt.Fprintf(w, "  url:      %s\n", srv.URL)
		} else {
			fmt.Fprintf(w, "  command:  %s\n", strings.Join(append([]string{srv.Command}, srv.Args...), " "))
		}
		fmt.Fprintf(w, "  from:     %s\n", srv.Source)
		if len(info.Tools) > 0 {
			fmt.Fprintf(w, "  tools:    %s\n", strings.Join(info.Tools, ", "))
		}
		if len(srv.ReadOnlyTools) > 0 {
			fmt.Fprintf(w, "  read-only (read_only_tools): %s\n", strings.Join(srv.ReadOnlyTools, ", "))
		}
		if info.Problem != "" {
			fmt.Fprintf(w, "  problem:  %s\n", info.Problem)
		}
	}
}
