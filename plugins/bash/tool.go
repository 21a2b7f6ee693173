// Package bash is riot's shell tool set. Bash runs a command under `bash -c`
// in a process group of its own: it streams stdout and stderr interleaved,
// keeps the working directory across calls through session state, enforces
// a timeout and kills the whole group on timeout, cancellation or plugin
// death. BashOutput and KillShell serve the background jobs Bash starts with
// run_in_background; those jobs are the only state the plugin keeps, and
// they die with it.
//
// The command analyzer (analyze*.go) decides whether a command is read-only
// and which commands and paths it names; this package turns that into the
// tool's properties and permission subjects.
package bash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/riot-tools/riot/plugin"
)

// cwdStateKey is the session state key holding the directory the last
// command ended in.
const cwdStateKey = "bash.cwd"

// Timeouts, in milliseconds as the model sends them.
const (
	defaultTimeoutMs = 120_000
	maxTimeoutMs     = 600_000
)

// describeMax is how many characters of a command Describe shows.
const describeMax = 60

// Input is a Bash call.
type Input struct {
	Command string `json:"command" jsonschema_description:"The command to run."`
	// Timeout is a pointer so that an explicit 0 is told apart from absent.
	Timeout         *int64 `json:"timeout,omitempty" jsonschema_description:"Optional timeout in milliseconds, from 1 to 600000 (10 minutes). Default 120000 (2 minutes)."`
	Description     string `json:"description,omitempty" jsonschema_description:"A clear, concise description of what this command does in 5-10 words, in active voice, such as 'List files in current directory' or 'Install package dependencies'."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema_description:"Set to true to run this command in the background. Read its output later with BashOutput; stop it with KillShell."`
}

// config holds what tests change; Tools uses the defaults.
type config struct {
	// killGrace is how long a process group has between SIGTERM and SIGKILL
	// after a timeout or KillShell.
	killGrace time.Duration
	// drainGrace is how long output may keep arriving after bash exits
	// before the processes still holding the output pipe are stopped.
	drainGrace time.Duration
	// abandonAfter is how long to wait for the output pipe to close after
	// the group was killed; past it, a process that left the group holds
	// the pipe and its output is dropped.
	abandonAfter time.Duration
	// tempDir holds the per-call files that report the final directory and
	// the background jobs' output directory.
	tempDir string
	// lookPath finds bash.
	lookPath func(string) (string, error)
}

func defaultConfig() config {
	return config{
		killGrace:    2 * time.Second,
		drainGrace:   200 * time.Millisecond,
		abandonAfter: 500 * time.Millisecond,
		tempDir:      os.TempDir(),
		lookPath:     exec.LookPath,
	}
}

// Tools returns Bash, BashOutput and KillShell, in the order the model sees
// them. They share the plugin's background jobs.
func Tools() []plugin.Handler { return newToolSet(defaultConfig()).handlers }

// toolSet is the three tools and what they share.
type toolSet struct {
	handlers []plugin.Handler
	bash     *Bash
	jobs     *jobTable
}

func newToolSet(cfg config) toolSet {
	jobs := newJobTable(cfg)
	bash := &Bash{cfg: cfg, jobs: jobs}
	return toolSet{
		handlers: []plugin.Handler{
			bashHandler(bash),
			plugin.New[OutputInput](&BashOutput{jobs: jobs}),
			plugin.New[KillInput](&KillShell{cfg: cfg, jobs: jobs}),
		},
		bash: bash,
		jobs: jobs,
	}
}

// Bash runs shell commands.
type Bash struct {
	cfg  config
	jobs *jobTable
	// calls counts the calls in progress, so a test can wait for a
	// cancelled call to finish on the plugin's side.
	calls callCount
}

// callCount counts calls in progress. Unlike a WaitGroup, it may be waited
// on while calls start.
type callCount struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

func (c *callCount) add(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += delta
	if c.n == 0 && c.idle != nil {
		c.idle.Broadcast()
	}
}

// wait returns once no call is in progress.
func (c *callCount) wait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle == nil {
		c.idle = sync.NewCond(&c.mu)
	}
	for c.n > 0 {
		c.idle.Wait()
	}
}

// Name implements plugin.Tool.
func (*Bash) Name() string { return "Bash" }

// Prompt implements plugin.Tool.
func (*Bash) Prompt() string { return bashPrompt }

// Describe is the description when the model gave one, else the command on
// one line, shortened.
func (*Bash) Describe(in Input) string {
	if d := strings.TrimSpace(in.Description); d != "" {
		return oneLine(d, 200)
	}
	return oneLine(in.Command, describeMax)
}

// oneLine collapses runs of white space, newlines included, and cuts s to
// max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max]), " ") + "…"
}

// ValidateInput rejects an empty command and a timeout out of range.
func (*Bash) ValidateInput(_ context.Context, in Input, _ *plugin.Env) plugin.Validation {
	if strings.TrimSpace(in.Command) == "" {
		return plugin.Rejected("`command` must not be empty; pass the shell command to run, such as `ls -la`.")
	}
	if in.Timeout != nil {
		t := *in.Timeout
		switch {
		case t > maxTimeoutMs:
			return plugin.Rejected(fmt.Sprintf("`timeout` is %d ms, above the limit of %d ms (10 minutes). Use a timeout from 1 to %d, or set `run_in_background` and read the output with BashOutput.", t, maxTimeoutMs, maxTimeoutMs))
		case t <= 0:
			return plugin.Rejected(fmt.Sprintf("`timeout` must be from 1 to %d milliseconds; leave it out for the default of %d.", maxTimeoutMs, defaultTimeoutMs))
		}
	}
	return plugin.Accepted()
}

func (in Input) timeout() time.Duration {
	if in.Timeout == nil {
		return defaultTimeoutMs * time.Millisecond
	}
	return time.Duration(*in.Timeout) * time.Millisecond
}

// IsReadOnly is the analyzer's verdict, for a command in the foreground
// only: a background job outlives its call, which the analyzer counts
// against `cmd &` too.
func (*Bash) IsReadOnly(in Input) bool {
	return !in.RunInBackground && Analyze(in.Command).ReadOnly
}

// IsConcurrencySafe equals IsReadOnly: a command that changes nothing may
// run beside others; anything else runs alone.
func (b *Bash) IsConcurrencySafe(in Input) bool { return b.IsReadOnly(in) }

// CascadesOnFailure is true: shell commands depend on each other
// implicitly, so when one fails the rest of the turn should not run.
func (*Bash) CascadesOnFailure() bool { return true }

// ClassifierInput is the sentence auto mode judges when it has no session.
func (*Bash) ClassifierInput(in Input) string {
	return "Run shell command: " + in.Command
}

// ClassifierInputEnv adds the directory the command runs in.
func (b *Bash) ClassifierInputEnv(in Input, env *plugin.Env) string {
	dir, _ := sessionDir(env)
	return fmt.Sprintf("Run shell command: %s (in %s)", in.Command, dir)
}

// Call runs the command in the foreground, or starts it as a background job.
func (b *Bash) Call(ctx context.Context, in Input, env *plugin.Env) plugin.Outcome {
	b.calls.add(1)
	defer b.calls.add(-1)
	bash, err := b.cfg.lookPath("bash")
	if err != nil {
		return plugin.Failed("bash was not found on the PATH riot runs with, so no command can run. Tell the user to install bash or add it to that PATH; do not retry.")
	}
	// Run the tree the analyzer judged, printed back, so that bash cannot read the text another way.
	in.Command, _ = Canonical(in.Command)
	if in.RunInBackground {
		return b.jobs.start(bash, in, env)
	}
	return runForeground(ctx, b.cfg, bash, in, env)
}
