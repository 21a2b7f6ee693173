//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// While a command runs, the init's threads other than the one that serves
// sleep: the runtime's monitor takes the serving thread's P as soon as it
// waits in ppoll, instead of polling every 20 µs for up to 10 ms, which it
// does when the init has a second P (23-37 wake-ups a command, measured
// with the line that sets one P removed; 3-5 with it).
func TestInitRuntimeSleepsWhileACommandRuns(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	if out, err := f.run(t, p, "true"); err != nil {
		t.Fatalf("the first command: %v (%s)", err, out)
	}
	boxes := f.boxes()
	if len(boxes) != 1 {
		t.Fatalf("want one sandbox, got %d", len(boxes))
	}
	initPid := initOf(t, boxes[0].pgid)
	const commands = 10
	woke := 0
	for range commands {
		// From the start's reply to the end's: the init waits in ppoll
		// but for its reply and its reap, so its own work, which a busy
		// machine stretches, hardly counts. The command is long enough
		// for the monitor's backoff to reach its 10 ms ceiling if it
		// polls.
		proc, out := f.start(t, p, "sleep 0.03")
		before := helperSwitches(t, initPid)
		if err := proc.Wait(); err != nil {
			b, _ := os.ReadFile(out.Name())
			t.Fatalf("sleep: %v (%s)", err, b)
		}
		woke += helperSwitches(t, initPid) - before
	}
	t.Logf("%d wake-ups a command", woke/commands)
	if per := woke / commands; per > 15 {
		t.Errorf("the init's helper threads woke %d times a command; its runtime polls while commands run (one P not set?)", per)
	}
}

// initOf is the init of the sandbox whose bwrap is pid: the descendant
// that runs this binary through /proc/self/fd.
func initOf(t *testing.T, bwrap int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		argv, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(argv), "/proc/self/fd/"+strconv.Itoa(exeFD)+"\x00"+initArg) {
			continue
		}
		for anc := parentOf(pid); anc > 1; anc = parentOf(anc) {
			if anc == bwrap {
				return pid
			}
		}
	}
	t.Fatalf("no init found under bwrap %d", bwrap)
	return 0
}

func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "pid (comm) S ppid ...": comm may hold spaces.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// helperSwitches sums the voluntary context switches of pid's threads
// other than its main thread: each is a wake-up after a sleep. Involuntary
// ones (the machine's other load) are not counted.
func helperSwitches(t *testing.T, pid int) int {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, task := range tasks {
		if task.Name() == strconv.Itoa(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "status"))
		if err != nil {
			continue // a thread that exited
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				sum += n
			}
		}
	}
	return sum
}
