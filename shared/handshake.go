package shared

import (
	"maps"
	"slices"

	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the newest wire protocol this build speaks.
const ProtocolVersion = 3

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

// VersionedPlugins maps each protocol version to the plugins served under
// it. Version 1 is the first; a later version is added beside it, never in
// its place, so old plugins keep working. go-plugin picks the newest
// version both sides serve: 3, the link, between this build's host and
// SDK; 2, the Session stream, or 1 with a plugin built before them.
func VersionedPlugins(impl ToolPlugin) map[int]goplugin.PluginSet {
	return versioned(impl, HostOptions{})
}

// HostVersionedPlugins is VersionedPlugins as the host dispenses them,
// with its settings.
func HostVersionedPlugins(o HostOptions) map[int]goplugin.PluginSet {
	return versioned(nil, o)
}

func versioned(impl ToolPlugin, o HostOptions) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{
		1: {PluginName: &GRPCPlugin{Impl: impl, Host: o}},
		2: {PluginName: &GRPCPlugin{Impl: impl, Protocol: 2, Host: o}},
		3: {PluginName: &GRPCPlugin{Impl: impl, Protocol: 3, Host: o}},
	}
}

// SupportedProtocols are the protocol versions this build speaks, oldest
// first.
func SupportedProtocols() []int { return slices.Sorted(maps.Keys(VersionedPlugins(nil))) }

// SDKModule is the Go module a plugin is built against.
const SDKModule = "github.com/riot-tools/riot"
