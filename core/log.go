package core

import (
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
)

// newLogger logs to stderr at level and to file at debug, so the file
// keeps plugin stack traces that stderr does not show. A file that cannot
// be opened leaves stderr alone.
func newLogger(level, file string) (hclog.Logger, func() error) {
	stderrLevel := hclog.LevelFromString(level)
	if stderrLevel == hclog.NoLevel {
		stderrLevel = hclog.Warn
	}
	if env := os.Getenv("RIOT_LOG_LEVEL"); env != "" {
		if l := hclog.LevelFromString(env); l != hclog.NoLevel {
			stderrLevel = l
		}
	}
	var f *os.File
	if file != "" {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err == nil {
			f, _ = os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		}
	}
	fileLevel := min(stderrLevel, hclog.Debug)
	var out io.Writer = f
	if f == nil {
		out = io.Discard
	}
	log := hclog.NewInterceptLogger(&hclog.LoggerOptions{
		Name:   "riot",
		Level:  fileLevel,
		Output: out,
	})
	log.RegisterSink(hclog.NewSinkAdapter(&hclog.LoggerOptions{
		Level:  stderrLevel,
		Output: os.Stderr,
	}))
	closer := func() error { return nil }
	if f != nil {
		closer = f.Close
	}
	return log, closer
}
