// Package testplugins holds plugin binaries that misbehave on purpose, for
// the host's integration tests: testkit serves tools that panic, exit,
// hang, block, stream and meet at barriers, and hangs before its handshake
// when told to; garbage writes to stdout before the handshake; badcookie
// expects another host's handshake; wirefault breaks the wire protocol
// itself (streams without a Final, error statuses, messages over the
// limit, unknown chunk kinds, text that is not UTF-8, huge manifests).
package testplugins
