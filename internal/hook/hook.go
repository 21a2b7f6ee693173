// Package hook runs hook handlers with Claude Code's protocol: a handler
// reads one event's JSON and answers with an exit status and, optionally,
// JSON on its stdout (or in an HTTP response). The package knows the three
// handler forms, their timeouts, the fail-closed rule, output caps and the
// output's shape; what each event's answer means is the caller's.
package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// OutputCap bounds what riot reads of one run's stdout, stderr or HTTP
// body: a handler is the user's program, but a broken one must not fill
// memory.
const OutputCap = 1 << 20

// DefaultTimeout bounds a run of a handler that sets no timeout.
const DefaultTimeout = 60 * time.Second

// Handler is one configured hook.
type Handler struct {
	// Command is run with `sh -c`.
	Command string
	// Args is the exec form: a program and its arguments, no shell, so
	// nothing in them is expanded.
	Args []string
	// URL, for an HTTP hook, receives the event as a POST of JSON.
	URL string
	// Headers are sent with the POST, after Expand.
	Headers map[string]string
	// AllowedEnvVars are the environment variables $NAME and ${NAME} may
	// name in Headers; any other expands to nothing.
	AllowedEnvVars []string
	Timeout        time.Duration
	// FailClosed makes a run that fails (an exit other than 0 or 2, a
	// status other than 2xx, a timeout, output riot cannot read) block.
	FailClosed bool
}

// Name is how messages name the handler: its command, program or URL, cut
// short, in backquotes.
func (h Handler) Name() string {
	s := h.Command
	switch {
	case len(h.Args) > 0:
		s = strings.Join(h.Args, " ")
	case h.URL != "":
		s = h.URL
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return "`" + s + "`"
}

// Status is how a run ended.
type Status int

const (
	// Done: exit 0 or a 2xx answer; Output holds any JSON it printed.
	Done Status = iota
	// Blocked: exit 2, or a fail_closed handler that failed. Reason says
	// why.
	Blocked
	// Failed: a handler that is not fail_closed failed; Reason says how.
	// The event goes on as if it had not run.
	Failed
	// Cancelled: the caller's context ended first.
	Cancelled
)

// Result is one run of a handler.
type Result struct {
	Status Status
	// Reason is a Blocked run's stderr (or failure), a Failed run's
	// failure.
	Reason string
	// Output is the JSON the handler answered with; JSON says there was
	// some.
	Output Output
	JSON   bool
	// Plain is an answer that is not JSON: for the user's log.
	Plain string
}

// Fail is the result of a run that failed for why: Blocked when the
// handler is fail_closed, else Failed. The caller uses it too when an
// answer is valid JSON but not a valid answer to its event.
func Fail(h Handler, why string) Result {
	if h.FailClosed {
		return Result{Status: Blocked, Reason: fmt.Sprintf("the hook failed (%s), and it is fail_closed", why)}
	}
	return Result{Status: Failed, Reason: why}
}

// Guard runs a command under a process-tree guard (procguard.Tree).
type Guard interface {
	Enabled() bool
	Wrap(cmd *exec.Cmd) (release func(), err error)
}

// Runner runs handlers.
type Runner struct {
	// Dir is the working directory of command hooks.
	Dir string
	// Env is the environment of command hooks; nil inherits riot's.
	Env []string
	// Guard, if set, runs command hooks under it.
	Guard Guard
	// Network decides where HTTP hooks may connect; nil refuses every
	// destination.
	Network Network
	// Getenv reads the variables Headers name; nil refuses them all.
	Getenv func(string) string
}

// Run runs h on input, the event's JSON.
func (r *Runner) Run(ctx context.Context, h Handler, input []byte) Result {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res Result
	var answer []byte
	var over bool
	if h.URL != "" {
		res, answer, over = r.post(hctx, h, input)
	} else {
		res, answer, over = r.exec(hctx, h, input)
	}
	switch {
	case ctx.Err() != nil:
		return Result{Status: Cancelled, Reason: "the call was cancelled while the hook ran"}
	case hctx.Err() != nil:
		return Fail(h, fmt.Sprintf("it timed out after %s and was stopped", seconds(timeout)))
	case res.Status != Done:
		return res
	}
	return read(h, answer, over)
}

// read parses a Done run's answer: JSON when it starts like JSON, else
// plain text for the log.
func read(h Handler, answer []byte, over bool) Result {
	out := strings.TrimSpace(string(answer))
	if out == "" || out[0] != '{' {
		return Result{Status: Done, Plain: out}
	}
	var o Output
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		if over {
			return Fail(h, fmt.Sprintf("its JSON output is longer than the %s riot reads of a hook's output", size(OutputCap)))
		}
		return Fail(h, "its output starts like JSON but is not valid JSON")
	}
	return Result{Status: Done, Output: o, JSON: true}
}

func seconds(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// note is a short, one-line form of a handler's stderr for a message.
func note(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return ": " + s
}
