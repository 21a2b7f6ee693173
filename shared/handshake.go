package shared

import (
	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the one wire protocol this build speaks: the
// ToolPlugin service's plain RPCs, Manifest, Prepare and a streamed Call.
// The host offers no other, so go-plugin refuses a plugin that serves only
// others (core explains it: rebuild it with this riot's SDK). Versions 2
// (a gRPC Session stream) and 3 (a Unix socket link beside gRPC) are gone:
// per warm call through the host they saved 12% and 28% (BENCHMARKS.md,
// "One protocol (issue 31)"), not worth a second and third protocol.
const ProtocolVersion = 1

// PluginName is the single go-plugin plugin a riot tool binary dispenses.
const PluginName = "tool"

// Handshake is a UX feature, not security: it stops a user from running a
// plugin binary by hand, and stops riot from starting a binary that is not
// a riot plugin. The cookie is riot's own so no other go-plugin host's
// plugins can be confused with riot's.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "RIOT_TOOL_PLUGIN",
	MagicCookieValue: "8d3c0f0e-riot-tool-plugin-b1f6a7e2",
}

// VersionedPlugins maps the one protocol version to the plugin served
// under it: impl on the plugin side, nil on the host's.
func VersionedPlugins(impl ToolPlugin) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{ProtocolVersion: {PluginName: &GRPCPlugin{Impl: impl}}}
}

// SDKModule is the Go module a plugin is built against.
const SDKModule = "github.com/riot-tools/riot"
