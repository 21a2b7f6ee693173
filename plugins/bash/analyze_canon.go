package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Canonical is the command as riot runs it: the syntax tree the analyzer judged, printed back by mvdan.cc/sh's
// printer. Where the parser and bash would read the same text differently (mvdan.cc/sh continues a comment's line
// at a backslash-newline; bash ends the comment at the newline), bash then runs what the analyzer saw, not the other
// reading: the parser keeps no comment, so the printed form has none, and the characters on which the two differ
// outright (a carriage return, which mvdan.cc/sh takes for a blank) are refused by parse. ok is false when the
// command does not parse; it is then run as written, since the analysis treated it as opaque and only the user
// (or bypassPermissions) can have let it run.
func Canonical(command string) (string, bool) {
	f, err := parse(command)
	if err != nil {
		return command, false
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return command, false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}
