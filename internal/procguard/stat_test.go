package procguard

import (
	"fmt"
	"testing"
)

// A command name is the process's to choose; one that imitates the stat
// fields after it cannot change the parent read.
func TestParseStatPPID(t *testing.T) {
	for _, tc := range []struct {
		line string
		ppid int
		ok   bool
	}{
		{"42 (sleep) S 7 42 42 0 -1", 7, true},
		{"42 (a) S 1 (b) R 99 1) S 8 42 42", 8, true},
		{"42 (x y) Z 12 0 0", 12, true},
		{"42 (init) S 0 0 0", 0, false},
		{"42 (x) S 1 0 0", 1, true},
		{"42 (x) S 7", 7, true},
		{") S 7 0", 7, true},
		{"42 (x) S 9 0 0", 9, true},
		{"42 (x) S 19x 0 0", 0, false},
		{"42 (x) S :1 0 0", 0, false},
		{"42 (sleep S 7", 0, false},
		{"42 (sleep) S", 0, false},
		{"42 (sleep) S -3", 0, false},
		{"", 0, false},
	} {
		ppid, ok := parseStatPPID([]byte(tc.line))
		if ppid != tc.ppid || ok != tc.ok {
			t.Errorf("%q: got %d %v, want %d %v", tc.line, ppid, ok, tc.ppid, tc.ok)
		}
	}
}

// Whatever a process names itself, the parent read is the one the kernel
// wrote after the name.
func FuzzParseStatPPID(f *testing.F) {
	f.Add("sleep", 7)
	f.Add("a) S 1 (b", 99)
	f.Add(") ) )", 1)
	f.Fuzz(func(t *testing.T, comm string, ppid int) {
		if ppid <= 0 {
			return
		}
		line := fmt.Sprintf("4242 (%s) S %d 4242 4242 0 -1 4194304", comm, ppid)
		got, ok := parseStatPPID([]byte(line))
		if !ok || got != ppid {
			t.Fatalf("%q: got %d %v, want %d", line, got, ok, ppid)
		}
	})
}
