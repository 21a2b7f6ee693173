//go:build riot_protocol2 && !riot_protocol1

package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

// servedProtocols, built with the riot_protocol2 tag, is protocol versions
// 1 and 2, as a plugin built against an SDK before version 3 serves them:
// the host's tests build their test plugins so to prove that such plugins
// keep working over the Session stream.
func servedProtocols(srv shared.ToolPlugin) map[int]goplugin.PluginSet {
	all := shared.VersionedPlugins(srv)
	return map[int]goplugin.PluginSet{1: all[1], 2: all[2]}
}

// declaresDefaultPrepare is false, as in an SDK before
// ToolSpec.default_prepare: the host sends every call's Prepare.
const declaresDefaultPrepare = false

// declaresStartsNoProcesses is false, as in an SDK before
// ManifestResponse.starts_no_processes: a read-only plugin's calls get a
// sandbox profile.
const declaresStartsNoProcesses = false
