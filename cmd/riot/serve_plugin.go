package main

import (
	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/plugin"
)

// readOnlyBuiltins never write, start processes or connect, so their
// processes restrict themselves with Landlock.
var readOnlyBuiltins = map[string]bool{"grep": true, "read": true}

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
			if readOnlyBuiltins[args[0]] {
				plugin.ServeReadOnly(tools()...)
			} else {
				plugin.Serve(tools()...)
			}
			return nil
		},
	}
}
