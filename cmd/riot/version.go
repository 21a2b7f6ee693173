package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from, and the plugin protocol",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
		},
	}
}

// versionOnly reports whether args ask for the version and nothing else,
// as `riot version` and `riot --version` do; any other spelling goes
// through the command tree, which prints the same line.
func versionOnly(args []string) bool {
	return len(args) == 1 && (args[0] == "version" || args[0] == "--version")
}

// versionLine is what `riot version` and `riot --version` print.
func versionLine() string {
	return fmt.Sprintf("riot %s (%s, plugin protocol %d, SDK %s, %s %s/%s)",
		ident.Version, commit(readBuildInfo()), shared.ProtocolVersion, plugin.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// commit names the commit the binary was built from, as the Go toolchain
// stamped it, with "+dirty" for a tree with uncommitted changes.
func commit(info *debug.BuildInfo) string {
	if info == nil {
		return "commit unknown: built without module information"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "commit unknown: built without VCS information (-buildvcs=false or outside a git checkout)"
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return "commit " + rev
}

func readBuildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}
