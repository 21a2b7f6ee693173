package bash

import (
	"reflect"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Canonical is the command as riot runs it: the syntax tree the analyzer judged, printed back by mvdan.cc/sh's
// printer without its comments. Where the parser and bash would read the same text differently (mvdan.cc/sh ends
// a comment at a backslash-newline and takes a carriage return for a blank; bash does neither), bash then runs
// what the analyzer saw, not the other reading: the printed form holds no comment, no carriage return outside
// quotes, and only constructs the printer spells the one way both read alike. ok is false when the command does
// not parse; it is then run as written, since the analysis treated it as opaque and only the user (or
// bypassPermissions) can have let it run.
func Canonical(command string) (string, bool) {
	f, err := parse(command)
	if err != nil {
		return command, false
	}
	dropComments(f)
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return command, false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

var commentsType = reflect.TypeOf([]syntax.Comment(nil))

// dropComments clears every comment of the tree: whatever a comment holds is not run, by either reading.
func dropComments(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return true
		}
		s := v.Elem()
		for i := 0; i < s.NumField(); i++ {
			if fld := s.Field(i); fld.Type() == commentsType && fld.CanSet() {
				fld.Set(reflect.Zero(commentsType))
			}
		}
		return true
	})
}
