// Package procguard owns the process guards that end what a process
// started when that process dies by any means, SIGKILL included, which no
// deferred cleanup survives. Both the SDK (a plugin's tool commands) and
// the core (hook commands) use it.
//
// A guard is the binary itself, re-executed with Env set: a binary that
// starts guards calls Main first thing in main (plugin.Serve does so for
// every plugin). Two kinds:
//
//   - Guard watches from the side: its owner tells it, over a pipe, which
//     process groups it started and which are gone, and marks the
//     commands it starts with the Guard's tag, a variable they pass on to
//     all they fork. When the pipe closes it kills the groups still
//     registered and every process carrying the tag. A process that
//     leaves its group (setsid) and drops the variable escapes it; the
//     SDK's kernel sandbox covers that.
//   - Tree runs one command as its child and stays its parent, as a child
//     subreaper (Linux): whatever the command forks, however it detaches
//     (setsid, double fork, nohup, ignored SIGTERM), stays a descendant of
//     the guard, which kills all of them when the command exits, when its
//     owner asks, or when its owner dies.
package procguard

import "os"

// Env marks a re-executed binary as a guard: "1" for a Guard, "tree" for
// a Tree. Commands a guard starts never inherit it.
const Env = "RIOT_PROC_GUARD"

// Main runs this process as the guard it was started as, and exits; it
// returns at once in any other process.
func Main() {
	switch os.Getenv(Env) {
	case "1":
		RunGuard(os.Stdin)
		os.Exit(0)
	case "tree":
		os.Exit(runTree(os.Args[1:]))
	}
}
