// Command badcookie is a go-plugin plugin built for another host: it
// expects a different magic cookie.
package main

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

func main() {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion:  1,
			MagicCookieKey:   "OTHER_HOST_PLUGIN",
			MagicCookieValue: "not-riot",
		},
		VersionedPlugins: shared.VersionedPlugins(nil),
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
