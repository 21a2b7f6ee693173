package bash

import "strings"

// Inputs and small helpers shared by the tests.

func run(cmd string) map[string]any { return map[string]any{"command": cmd} }

func runT(cmd string, timeoutMs int) map[string]any {
	return map[string]any{"command": cmd, "timeout": timeoutMs}
}

func background(cmd string) map[string]any {
	return map[string]any{"command": cmd, "run_in_background": true}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
