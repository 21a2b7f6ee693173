package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/plugin"
)

// servePluginCommand is how riot serves its builtins: the host re-executes
// riot as `riot __plugin NAME`, as Packer and Waypoint do.
func (a *app) servePluginCommand() *cobra.Command {
	return &cobra.Command{
		Use:    core.BuiltinCommand + " NAME",
		Short:  "Serve a builtin tool set as a plugin (used by riot itself)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			tools, ok := builtins()[args[0]]
			if !ok {
				return usageErr("no builtin tool set named %q; riot has %v", args[0], builtinNames())
			}
			var b config.Builtin
			if i := slices.IndexFunc(config.Builtins(), func(b config.Builtin) bool { return b.Name == args[0] }); i >= 0 {
				b = config.Builtins()[i]
			}
			switch {
			case b.ReadOnly:
				plugin.ServeReadOnly(tools()...)
			case b.NoProcesses:
				plugin.ServeWithoutProcesses(tools()...)
			default:
				plugin.Serve(tools()...)
			}
			return nil
		},
	}
}
