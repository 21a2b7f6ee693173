//go:build !riot_protocol1 && !riot_protocol2

package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

// servedProtocols are the protocol versions Serve offers the host, which
// picks the newest it speaks too.
func servedProtocols(srv shared.ToolPlugin) map[int]goplugin.PluginSet {
	return shared.VersionedPlugins(srv)
}

// declaresDefaultPrepare: the manifest marks the tools whose Prepare
// answer is the default one (ToolSpec.default_prepare).
const declaresDefaultPrepare = true

// declaresStartsNoProcesses: the manifest of a plugin that starts no
// processes says so (ManifestResponse.starts_no_processes).
const declaresStartsNoProcesses = true
