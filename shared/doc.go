// Package shared is riot's wire contract and nothing else: the generated gRPC
// code of the ToolPlugin service (in proto/), the go-plugin handshake, the
// plugin map, the gRPC client stub and server shim that adapt the service to
// the ToolPlugin interface, the session exchanges of protocols 2 and 3 (the
// gRPC stream, and the framed Unix socket link with its admission check,
// its state deltas and its held outcome: HoldUntilFinal), the message
// limits, and the mutual TLS material both sides use.
//
// Both the host (core) and the plugin SDK (plugin) import this package; it
// imports neither.
package shared
