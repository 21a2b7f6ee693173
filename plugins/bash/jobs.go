package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// jobTable is the plugin's background jobs: the one state it keeps, since
// the processes live in it. Jobs are scoped to the session that started
// them and die with the plugin.
type jobTable struct {
	cfg config

	mu     sync.Mutex
	next   int
	byID   map[string]*job
	order  []*job
	logDir string
}

// job is one background command. Its output goes straight to a file, so
// nothing in the plugin copies it while it runs.
type job struct {
	id, command, session, path string
	proc                       plugin.Process

	done chan struct{}
	// code, sig and ended are set before done closes.
	code int
	sig  string
	// ended is riot's sentence for a job that did not run to an exit
	// status (its sandbox could not be set up, or ended under it), or "".
	ended string
	// killed is set when KillShell stopped it.
	killed atomic.Bool

	// readMu serialises reads, which advance offset: each BashOutput call
	// returns only what no earlier one returned.
	readMu sync.Mutex
	offset int64
}

func newJobTable(cfg config) *jobTable {
	return &jobTable{cfg: cfg, byID: map[string]*job{}}
}

// jobUI is the UI payload of a started job.
type jobUI struct {
	JobID      string `json:"job_id"`
	OutputPath string `json:"output_path"`
	Pid        int    `json:"pid"`
	Cwd        string `json:"cwd"`
}

// start starts a command as a background job and returns at once. The job
// is not tied to the call: it runs until it exits, KillShell stops it, or
// the plugin dies (the process guard then kills its group).
func (t *jobTable) start(bash string, in Input, env *plugin.Env) plugin.Outcome {
	dir, dirNote := sessionDir(env)
	if msg := dirProblem(dir); msg != "" {
		return plugin.Failed(msg)
	}
	logDir, err := t.ensureLogDir()
	if err != nil {
		return plugin.Failed(fmt.Sprintf("Could not create a directory for background job output in %s. Run the command in the foreground instead, redirecting its output to a file.", t.cfg.tempDir))
	}
	t.mu.Lock()
	t.next++
	id := fmt.Sprintf("bash_%d", t.next)
	t.mu.Unlock()
	path := filepath.Join(logDir, id+".log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return plugin.Failed(fmt.Sprintf("Could not create the output file %s for the background job. Run the command in the foreground instead.", path))
	}
	cmd := shellCommand(bash, in.Command, dir, nil)
	cmd.Stdout, cmd.Stderr = f, f
	// The plugin's lifetime, not the call's: the call returns at once.
	proc, err := plugin.StartShared(context.Background(), env.Proc, cmd)
	_ = f.Close()
	if err != nil {
		_ = os.Remove(path)
		return startFailed(err)
	}
	j := &job{id: id, command: in.Command, session: env.SessionID, path: path, proc: proc, done: make(chan struct{})}
	go func() {
		err := proc.Wait()
		j.code, j.sig = exitStatus(err)
		if errors.As(err, new(*sandbox.SetupError)) || errors.As(err, new(*sandbox.LostError)) {
			j.ended = err.Error()
		}
		close(j.done)
	}()
	t.mu.Lock()
	t.byID[id] = j
	t.order = append(t.order, j)
	t.mu.Unlock()

	text := fmt.Sprintf("Started background job %s.\nOutput file: %s\nRead its new output with BashOutput (bash_id %q) and stop it with KillShell (shell_id %q). %s", id, path, id, id, t.lifetimeNote())
	if env.OneShotHost {
		text = fmt.Sprintf("Started background job %s.\nOutput file: %s\nThis riot invocation is one-shot (riot call or riot run without a session host): the job is stopped when that invocation exits, right after this turn, so BashOutput and KillShell in a later invocation will not find it. Read its output in this same turn with BashOutput (bash_id %q), or later with Read on the output file. To keep a process running across invocations, use a session host (`riot serve --session ID`, or --daemon), or run the command in the foreground.", id, path, id)
	}
	return plugin.Ok(plugin.Text(text)).
		WithNote(dirNote).
		WithUI(jobUI{JobID: id, OutputPath: path, Pid: proc.Pid(), Cwd: dir})
}

// lifetimeNote says how long a job lives: as long as the session host
// when one runs the plugin, otherwise as long as the plugin's host, which
// for a one-shot `riot run` or `riot call` is that invocation.
func (t *jobTable) lifetimeNote() string {
	if t.cfg.lifetime == "session-host" {
		return "It keeps running across riot invocations of this session until it exits, KillShell stops it, or the session host stops (`riot serve --stop`, or its idle timeout)."
	}
	return "It runs until it exits, KillShell stops it, or riot's host of this session ends."
}

// ensureLogDir creates the directory for job output on first use: private
// to the user, named after the plugin's pid. It is left in place when the
// plugin exits, so the output stays readable with Read.
func (t *jobTable) ensureLogDir() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.logDir != "" {
		return t.logDir, nil
	}
	dir, err := os.MkdirTemp(t.cfg.tempDir, fmt.Sprintf("riot-bash-jobs-%d-", os.Getpid()))
	if err != nil {
		return "", err
	}
	t.logDir = dir
	return dir, nil
}

// lookup finds a job of the session, or returns the Failed message that
// lists the session's running jobs.
func (t *jobTable) lookup(id, session string) (*job, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.byID[id]; ok && j.session == session {
		return j, ""
	}
	var running []string
	for _, j := range t.order {
		if j.session == session && !j.finished() {
			running = append(running, fmt.Sprintf("%s (`%s`)", j.id, oneLine(j.command, describeMax)))
		}
	}
	list := "No background jobs are running in this session; start one with Bash and `run_in_background`."
	if len(running) > 0 {
		list = "Running jobs: " + strings.Join(running, ", ") + ". Use one of these ids."
	}
	return nil, fmt.Sprintf("There is no background job %q in this session. %s Jobs do not survive a restart of the plugin.", id, list)
}

func (j *job) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// status is a sentence saying whether the job runs and how it ended.
func (j *job) status() string {
	switch {
	case !j.finished():
		return fmt.Sprintf("Job %s is running.", j.id)
	case j.killed.Load():
		return fmt.Sprintf("Job %s was stopped with KillShell.", j.id)
	case j.sig != "":
		return fmt.Sprintf("Job %s was killed by signal %s.", j.id, j.sig)
	case j.ended != "":
		return fmt.Sprintf("Job %s ended: %s", j.id, j.ended)
	default:
		return fmt.Sprintf("Job %s exited with status %d.", j.id, j.code)
	}
}

// stop stops the job's group: SIGTERM, then SIGKILL after the grace. It
// returns once bash has exited, or soon after SIGKILL.
func (j *job) stop(clock plugin.Clock, grace time.Duration) {
	if !j.finished() {
		j.killed.Store(true)
	} else if !leftRunning(j.proc) {
		return
	}
	killed := stopGroup(clock, j.proc, grace)
	select {
	case <-j.done:
	case <-killed:
		select {
		case <-j.done:
		case <-time.After(time.Second):
		}
	}
}

// readResult is what one BashOutput read found.
type readResult struct {
	bytes   int64
	matched int
	skipped int
	// partial: a running job's last line is incomplete, so a filtered
	// read left it for next time.
	partial bool
}

// read writes the output added since the last read to out, keeping only
// lines that match filter when there is one, and advances the offset past
// what it consumed.
func (j *job) read(out io.Writer, filter *lineFilter) (readResult, error) {
	j.readMu.Lock()
	defer j.readMu.Unlock()
	// Checked first: output the job wrote before it ended is then all
	// within the size read below.
	final := j.finished()
	f, err := os.Open(j.path)
	if err != nil {
		return readResult{}, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return readResult{}, err
	}
	size := fi.Size()
	if size < j.offset {
		// Truncated by someone; start over.
		j.offset = 0
	}
	section := io.NewSectionReader(f, j.offset, size-j.offset)
	var res readResult
	if filter == nil {
		res.bytes, err = io.Copy(out, section)
		j.offset += res.bytes
		return res, err
	}
	consumed, err := filter.copy(out, section, final, &res)
	j.offset += consumed
	return res, err
}
