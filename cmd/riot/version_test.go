package main

import (
	"runtime/debug"
	"testing"
)

// The commit comes from the toolchain's stamp, with +dirty for a modified
// tree; a binary without a stamp says why it cannot name one.
func TestCommitFromBuildInfo(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}}, "commit " + rev},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}, "commit " + rev + "+dirty"},
		{&debug.BuildInfo{}, "commit unknown: built without VCS information (-buildvcs=false or outside a git checkout)"},
		{nil, "commit unknown: built without module information"},
	} {
		if got := commit(tc.info); got != tc.want {
			t.Errorf("commit = %q, want %q", got, tc.want)
		}
	}
}
