// Package shared is riot's wire contract and nothing else: the generated gRPC
// code of the ToolPlugin service (in proto/), the go-plugin handshake, the
// plugin map, the gRPC client stub and server shim that adapt the service to
// the ToolPlugin interface, the Prepare answers both sides compare
// (expect.go), the message limits, and the mutual TLS material both sides
// use.
//
// Both the host (core) and the plugin SDK (plugin) import this package; it
// imports neither.
package shared
