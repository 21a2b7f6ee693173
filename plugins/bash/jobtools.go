package bash

import (
	"context"
	"fmt"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// OutputInput is a BashOutput call.
type OutputInput struct {
	BashID string `json:"bash_id" jsonschema_description:"The id of the background job to read, such as bash_1, as Bash returned it."`
	Filter string `json:"filter,omitempty" jsonschema_description:"Optional regular expression (RE2 syntax). Only new lines that match it are returned; the lines that do not match are skipped and cannot be read again."`
}

// BashOutput reads a background job's new output.
type BashOutput struct {
	jobs *jobTable
}

// Name implements plugin.Tool.
func (*BashOutput) Name() string { return "BashOutput" }

// Prompt implements plugin.Tool.
func (*BashOutput) Prompt() string { return bashOutputPrompt }

// Describe implements plugin.Tool.
func (*BashOutput) Describe(in OutputInput) string {
	if in.Filter != "" {
		return fmt.Sprintf("Read output of %s matching %s", in.BashID, oneLine(in.Filter, 40))
	}
	return "Read output of " + in.BashID
}

// ValidateInput rejects an empty id and a filter that does not compile.
func (*BashOutput) ValidateInput(_ context.Context, in OutputInput, _ *plugin.Env) plugin.Validation {
	if strings.TrimSpace(in.BashID) == "" {
		return plugin.Rejected("`bash_id` must not be empty; pass the id Bash returned when it started the job, such as bash_1.")
	}
	if in.Filter != "" {
		if _, why := compileFilter(in.Filter); why != "" {
			return plugin.Rejected(why)
		}
	}
	return plugin.Accepted()
}

// IsReadOnly is true: reading a job's output changes nothing but this
// tool's own read offset.
func (*BashOutput) IsReadOnly(OutputInput) bool { return true }

// IsConcurrencySafe is true, like every read.
func (*BashOutput) IsConcurrencySafe(OutputInput) bool { return true }

// ClassifierInput implements plugin.Classifiable.
func (*BashOutput) ClassifierInput(in OutputInput) string {
	return "Read the new output of background shell job " + in.BashID
}

// Call streams the new output and says how the job stands.
func (t *BashOutput) Call(_ context.Context, in OutputInput, env *plugin.Env) plugin.Outcome {
	j, unknown := t.jobs.lookup(in.BashID, env.SessionID)
	if j == nil {
		return plugin.Failed(unknown)
	}
	var filter *lineFilter
	if in.Filter != "" {
		var why string
		if filter, why = compileFilter(in.Filter); why != "" {
			return plugin.Failed(why)
		}
	}
	res, err := j.read(env.Output(), filter)
	if err != nil {
		return plugin.Failed(fmt.Sprintf("Could not read the output file %s of job %s (it may have been deleted). %s", j.path, j.id, j.status()))
	}
	notes := []string{j.status()}
	switch {
	case filter != nil:
		notes = append(notes, fmt.Sprintf("(%d new lines matched the filter; %d did not and are skipped for good.)", res.matched, res.skipped))
		if res.partial {
			notes = append(notes, "(The last line is still being written; it is read once it ends.)")
		}
	case res.bytes == 0:
		notes = append(notes, "(No new output.)")
	}
	return plugin.Ok().WithNote(strings.Join(notes, "\n")).WithUI(outputUI{
		JobID: j.id, Running: !j.finished(), Status: j.status(), NewBytes: res.bytes, OutputPath: j.path,
	})
}

// outputUI is the UI payload of BashOutput.
type outputUI struct {
	JobID      string `json:"job_id"`
	Running    bool   `json:"running"`
	Status     string `json:"status"`
	NewBytes   int64  `json:"new_bytes"`
	OutputPath string `json:"output_path"`
}

// KillInput is a KillShell call.
type KillInput struct {
	ShellID string `json:"shell_id" jsonschema_description:"The id of the background job to stop, such as bash_1."`
}

// KillShell stops a background job.
type KillShell struct {
	cfg  config
	jobs *jobTable
}

// Name implements plugin.Tool.
func (*KillShell) Name() string { return "KillShell" }

// Prompt implements plugin.Tool.
func (*KillShell) Prompt() string { return killShellPrompt }

// Describe implements plugin.Tool.
func (*KillShell) Describe(in KillInput) string { return "Stop background job " + in.ShellID }

// ValidateInput rejects an empty id.
func (*KillShell) ValidateInput(_ context.Context, in KillInput, _ *plugin.Env) plugin.Validation {
	if strings.TrimSpace(in.ShellID) == "" {
		return plugin.Rejected("`shell_id` must not be empty; pass the id Bash returned when it started the job, such as bash_1.")
	}
	return plugin.Accepted()
}

// ClassifierInput implements plugin.Classifiable. KillShell is not
// read-only: it kills processes.
func (*KillShell) ClassifierInput(in KillInput) string {
	return "Stop background shell job " + in.ShellID
}

// Call stops the job's process group.
func (t *KillShell) Call(_ context.Context, in KillInput, env *plugin.Env) plugin.Outcome {
	j, unknown := t.jobs.lookup(in.ShellID, env.SessionID)
	if j == nil {
		return plugin.Failed(unknown)
	}
	if j.finished() && !leftRunning(j.proc) {
		return plugin.Ok(plugin.Text(fmt.Sprintf("%s Nothing to stop. Its output stays readable with BashOutput.", j.status())))
	}
	j.stop(env.Clock, t.cfg.killGrace)
	return plugin.Ok(plugin.Text(fmt.Sprintf("Stopped background job %s (`%s`). Output it wrote before it stopped stays readable with BashOutput or in %s.", j.id, oneLine(j.command, describeMax), j.path)))
}
