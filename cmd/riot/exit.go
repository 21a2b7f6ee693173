package main

import (
	"errors"
	"fmt"
)

// riot's exit statuses, its one table of them: 0 ok; 1 a call ended
// failed, denied or cancelled, or a command's own operation failed (a
// plugin install, a session host, an MCP server); 2 a usage or config
// error, and any error not given a status of its own.
const (
	exitOK      = 0
	exitOutcome = 1
	exitUsage   = 2
)

// exitError carries an exit status out of a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// errOutcome is a call that ran and did not end ok; its result is already
// printed.
var errOutcome = &exitError{code: exitOutcome}

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}
