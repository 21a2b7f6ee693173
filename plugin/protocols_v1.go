//go:build riot_protocol1

package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

// servedProtocols, built with the riot_protocol1 tag, is protocol version
// 1 alone, as a plugin built against an SDK before version 2 serves it:
// the host's tests build their test plugins so to prove that such plugins
// keep working.
func servedProtocols(srv shared.ToolPlugin) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{1: shared.VersionedPlugins(srv)[1]}
}

// declaresDefaultPrepare is false, as in an SDK before
// ToolSpec.default_prepare: the host sends every call's Prepare.
const declaresDefaultPrepare = false

// declaresStartsNoProcesses is false, as in an SDK before
// ManifestResponse.starts_no_processes: a read-only plugin's calls get a
// sandbox profile.
const declaresStartsNoProcesses = false
