// Package plugin is the SDK a riot tool author imports: the Tool contract,
// the Outcome a call returns, validation and permission types, typed inputs
// whose JSON Schema is reflected from a Go struct, and Serve, which turns a
// binary into a riot plugin in one line:
//
//	func main() { plugin.Serve(plugin.New[Input](&Hello{})) }
//
// A Tool must have the five required members (Name, an input type, Prompt,
// Describe and Call); leaving one out is a compile error. Every other
// property is an optional interface discovered by type assertion, in the
// style of net/http, and each one's default fails closed: a tool that says
// nothing is not read-only, not concurrency-safe, asks in auto mode and has
// a 50,000-character result budget. CascadesOnFailure is the one default
// that points the other way: false, because a cascade cancels unrelated
// calls. A tool that implements none of the interfaces that shape
// Prepare's answer is declared in its manifest as having the default
// Prepare (defaultprepare.go), and the host may then skip that exchange.
//
// A tool never returns an error. Inside Call it may use errors freely, but
// at the boundary every error becomes Failed, with a message addressed to
// the model telling it what to do next.
package plugin
