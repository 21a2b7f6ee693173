// Package testplugins holds plugin binaries that misbehave on purpose, for
// the host's integration tests: testkit serves tools that panic, exit,
// hang, block, stream and meet at barriers; garbage writes to stdout
// before the handshake; badcookie expects another host's handshake.
package testplugins
