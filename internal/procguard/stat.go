package procguard

import (
	"bytes"
	"strconv"
)

// parseStatPPID reads the parent pid from a /proc/PID/stat line:
// "pid (comm) state ppid ...". The command name is the process's own to
// set and may hold spaces and parentheses, so the fields are read after
// the last ')', which the kernel writes after it; a name crafted to look
// like other fields cannot move them.
func parseStatPPID(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	return atoiPID(string(f[1]))
}

// atoiPID parses a positive pid.
func atoiPID(s string) (int, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
