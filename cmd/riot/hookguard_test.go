package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// hookEscapes are the ways a hook detaches a process from itself; each
// starts `sleep 300` that writes its pid to the FIFO at F first.
var hookEscapes = map[string]string{
	"setsid":       `setsid sh -c 'echo $$ > "F"; exec sleep 300' &`,
	"double fork":  `(sh -c 'echo $$ > "F"; exec sleep 300' &) &`,
	"nohup":        `nohup sh -c 'echo $$ > "F"; exec sleep 300' >/dev/null 2>&1 &`,
	"ignored TERM": `(trap '' TERM; sh -c 'echo $$ > "F"; exec sleep 300') &`,
}

// Killing riot with SIGKILL while a hook runs leaves nothing the hook
// started, however it detached: hooks run under a tree guard, which
// outlives riot by a moment to end the hook's whole tree.
func TestHookLeavesNoOrphans(t *testing.T) {
	for name, escape := range hookEscapes {
		t.Run(name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pid")
			hook := "cat >/dev/null\n" + strings.ReplaceAll(escape, "F", fifo) + "\nsleep 300\n"
			e := hookEnv(t, map[string]string{"detach.sh": hook}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/detach.sh"
`)
			e.sandboxOff()
			riotPID, sleepPID := readPID(t, e, fifo, "call", "Bash", `{"command":"true"}`, "--mode", "bypassPermissions")
			if err := syscall.Kill(riotPID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if !proctest.WaitExit(sleepPID, 3*time.Second) {
				_ = syscall.Kill(sleepPID, syscall.SIGKILL)
				t.Fatalf("%s: sleep %d outlived riot by 3 s", name, sleepPID)
			}
		})
	}
}

// A hook that exits leaves nothing behind either: what it detached ends
// with it, before the call goes on.
func TestHookLeftoversEnd(t *testing.T) {
	n := 300000 + 3*(time.Now().Nanosecond()%100000)
	e := hookEnv(t, map[string]string{"leave.sh": fmt.Sprintf("cat >/dev/null\nsetsid sleep %d >/dev/null 2>&1 &\nexit 0\n", n)}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/leave.sh"
`)
	e.riot("", "call", "Bash", `{"command":"echo went on"}`, "--mode", "bypassPermissions").want(t, 0, "went on")
	assertNoProcess(t, fmt.Sprintf("sleep %d", n))
}
