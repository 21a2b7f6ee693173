// Package shared is riot's wire contract and nothing else: the generated gRPC
// code of the ToolPlugin service (in proto/), the Go model of its messages
// with the conversions between the two, the go-plugin handshake, the plugin
// map, the gRPC client stub and server shim that adapt the service to the
// ToolPlugin interface (plugin.go), the Prepare answers both sides compare
// (expect.go), the message limits, and the mutual TLS material both sides
// use.
//
// Both the host (core) and the plugin SDK (plugin) import this package and
// see only the model; the generated types stay here, converted by the stub
// and the shim at the edge. Each group of messages has one file holding its
// model types and both conversions (xFromProto, xToProto): spec.go (the
// manifest), prepare.go, call.go, context.go, with the sandbox profile in
// sandbox.go. A field's meaning is documented once, in tool.proto; its zero
// value is the fail-closed reading. TestConversionsKeepEveryField holds
// model and conversions to the proto by reflection.
//
// It imports neither core nor plugin.
package shared
