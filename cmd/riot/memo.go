package main

import (
	"io"
	"os"
	"time"

	"github.com/riot-tools/riot/cmd/riot/internal/memo"
	"github.com/riot-tools/riot/cmd/riot/internal/quick"
	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
)

// memoAge is how long an entry of the memo is kept after it was written.
const memoAge = 30 * 24 * time.Hour

// storeMemo records what the invocation args printed, out, made from the
// files at paths by an invocation that began at start, for the quick path
// to print again while they stay unchanged (package memo). It is best
// effort: an entry not stored is a slower next invocation.
func storeMemo(args, paths []string, start time.Time, out []byte) {
	state, ok := riotenv.StateDir(os.Getenv)
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	dir := memo.Dir(state)
	if memo.Store(dir, quick.MemoKey(exe, wd, os.Environ(), args), paths, start, out) == nil {
		memo.Prune(dir, time.Now(), memoAge)
	}
}

// versionMemo stores `riot version`'s line: it depends on the executable
// alone.
func versionMemo(args []string, line string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	storeMemo(args, []string{exe}, time.Now(), []byte(line))
}

// countingWriter counts what goes through it: a command whose stderr got
// anything (a warning, a prompt) is not memoized.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
