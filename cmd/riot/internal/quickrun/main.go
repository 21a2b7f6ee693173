package quickrun

import (
	"os"

	"github.com/riot-tools/riot/cmd/riot/internal/quick"
)

// Main runs args, os.Args[1:], when they are a `riot run` or `riot call`
// attached to a session host that takes the turn: ok says it did, and
// code is the exit status. When ok is false it printed nothing, and the
// full command runs; Declined says what it learned.
func Main(args []string) (code int, ok bool) {
	if quick.Off(os.Getenv) {
		return 0, false
	}
	inv, ok := Parse(args)
	if !ok {
		return 0, false
	}
	p := process{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ}
	code, ok, h := p.attach(inv)
	if !ok {
		declined = h
	}
	return code, ok
}

// process is what the quick path reads and writes: the process's own
// streams and environment.
type process struct {
	stdin, stdout, stderr *os.File
	getenv                func(string) string
	environ               func() []string
}
