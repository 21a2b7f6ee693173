package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

// version is riot's release version.
const version = "0.1.0"

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "riot %s (plugin protocol %d, SDK %s, %s %s/%s)\n",
				version, shared.ProtocolVersion, plugin.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	}
}
