package plugin

import (
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// writeAccess is every Landlock right that changes the filesystem. Reads
// are not handled, so they stay as they were: which paths a call reads is
// the permission chain's decision, call by call.
const writeAccess = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// readOnlyAccess is what a read-only plugin is refused: every write, and
// execution, since its manifest told the host that it starts no processes
// (noproc.go). Execute is in every Landlock ABI, so BestEffort keeps it
// wherever Landlock exists.
const readOnlyAccess = writeAccess | ll.AccessFSExecute

// netAccess is every Landlock network right: binding and connecting, TCP
// and UDP.
const netAccess = ll.AccessNetBindTCP | ll.AccessNetConnectTCP | ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP

// confineReadOnly restricts this process and all its threads, so that it
// can execute nothing, open nothing for writing, create or remove nothing,
// and bind or connect no TCP or UDP socket. It is best effort:
// what the kernel's Landlock ABI lacks is left unrestricted, and a kernel
// without Landlock restricts nothing. Already open descriptors (stderr,
// the accepted gRPC connection) keep working.
func confineReadOnly() (landlock.Config, error) {
	cfg := landlock.Config{HandledAccessFS: readOnlyAccess, HandledAccessNet: netAccess}.BestEffort()
	return cfg, cfg.Restrict()
}
