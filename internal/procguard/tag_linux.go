package procguard

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// tagKillBound is how long a Guard keeps killing tagged processes that
// will not die (uninterruptible sleep) or keep forking before it gives up.
const tagKillBound = 5 * time.Second

// killTagged kills every process whose environment carries the tag name,
// and the process group of each that leads one (a group a tagged process
// made is the command's; a group it merely joined may be anyone's, its
// owner's host included, so it is not killed). It goes round after round
// until none is left: a process forked during a round, or still dying, is
// found in the next. Zombies have no environment left and are not found.
func killTagged(name string) {
	self := os.Getpid()
	deadline := time.Now().Add(tagKillBound)
	for {
		found := tagged(name, self)
		if len(found) == 0 || time.Now().After(deadline) {
			return
		}
		for _, p := range found {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			if p.leader {
				_ = syscall.Kill(-p.pid, syscall.SIGKILL)
			}
		}
		// SIGKILL takes effect asynchronously; a moment lets the round's
		// processes exit before the next scan finds them again.
		time.Sleep(5 * time.Millisecond)
	}
}

type taggedProc struct {
	pid    int
	leader bool
}

// tagged lists the processes other than self whose environment holds
// name. Processes whose environment this one may not read (other users',
// non-dumpable ones) are skipped: a Guard could not kill them anyway.
func tagged(name string, self int) []taggedProc {
	var out []taggedProc
	for _, pid := range allPIDs() {
		if pid == self {
			continue
		}
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !hasTag(environ, name) {
			continue
		}
		pgid, err := syscall.Getpgid(pid)
		out = append(out, taggedProc{pid: pid, leader: err == nil && pgid == pid})
	}
	return out
}
