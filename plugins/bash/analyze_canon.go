package bash

import (
	"slices"
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
	out := strings.TrimSuffix(b.String(), "\n")
	if strings.IndexByte(command, '\r') >= 0 { // a carriage return parse let through inside single quotes
		again, err := parse(out)
		if err != nil || !slices.Equal(sglQuoted(again), sglQuoted(f)) {
			return command, false // printing changed a quoted string: run nothing the analysis did not see
		}
	}
	return out, true
}

// sglQuoted are the values of f's single-quoted strings, in order.
func sglQuoted(f *syntax.File) []string {
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if q, ok := n.(*syntax.SglQuoted); ok {
			out = append(out, q.Value)
		}
		return true
	})
	return out
}
