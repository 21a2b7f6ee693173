package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// Hooks are user programs run before and after calls, with Claude Code's
// JSON protocol, so that existing hook scripts work unchanged. They run in
// the core, for every call the host runs, whatever its source: builtins,
// plugins, host tools, and calls arriving through `riot mcp`.

// hookOutputCap bounds what one hook run may print on each stream; a hook
// is a program of the user's, but a broken one must not fill memory.
const hookOutputCap = 1 << 20

// hookInput is what a hook reads on stdin.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // riot keeps no transcript
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`
	ToolName       string `json:"tool_name"`
	// ToolInput is the call's input, which validation has checked is a
	// JSON object.
	ToolInput    json.RawMessage   `json:"tool_input"`
	ToolUseID    string            `json:"tool_use_id"`
	ToolResponse *hookToolResponse `json:"tool_response,omitempty"`
}

// hookToolResponse is a PostToolUse hook's view of the result.
type hookToolResponse struct {
	Status  string `json:"status"`
	IsError bool   `json:"is_error"`
	// Content is the model content's text, as the model would see it (a
	// spilled result's preview; the whole is at SpillPath).
	Content   string          `json:"content"`
	UI        json.RawMessage `json:"ui,omitempty"`
	SpillPath string          `json:"spill_path,omitempty"`
}

// hookOutput is the JSON a hook may print on stdout. Both the current
// hookSpecificOutput form and the older top-level decision are read.
type hookOutput struct {
	Decision           string `json:"decision"` // approve | block
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		PermissionDecision       string          `json:"permissionDecision"` // allow | deny | ask
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// HookReport is what one hook said about a call, for `riot explain`.
type HookReport struct {
	Event   string
	Hook    string // the command, as written
	Source  config.Source
	Verdict string // allow, ask, deny, block, none, or failed
	Reason  string
}

// hookRun is the outcome of one hook on one call.
type hookRun struct {
	hook config.Hook
	// verdict is "allow", "ask", "deny" (a PreToolUse block), "block" (a
	// PostToolUse block), "" for no decision, or "failed" for a hook that
	// failed without blocking.
	verdict    string
	reason     string
	updated    json.RawMessage
	additional string
}

func (r hookRun) report(event string) HookReport {
	v := r.verdict
	if v == "" {
		v = "none"
	}
	return HookReport{Event: event, Hook: r.hook.Command, Source: r.hook.Source, Verdict: v, Reason: r.reason}
}

// hookName is how the model and the trace name a hook: its command, cut
// short, in backquotes.
func hookName(h config.Hook) string {
	return "`" + clip(strings.Join(strings.Fields(h.Command), " "), 80) + "`"
}

// matching returns the hooks of an event that apply to tool, in config
// order.
func matching(hooks []config.Hook, tool string) []config.Hook {
	var out []config.Hook
	for _, h := range hooks {
		if h.Matches(tool) {
			out = append(out, h)
		}
	}
	return out
}

// runHooks runs hooks in parallel on one input and returns their runs in
// config order.
func (h *Host) runHooks(ctx context.Context, event string, hooks []config.Hook, in hookInput) []hookRun {
	in.HookEventName = event
	in.SessionID = h.state.ID()
	in.Cwd = h.opts.Workspace
	in.PermissionMode = string(h.cfg.Permissions.Mode)
	if in.PermissionMode == "" {
		in.PermissionMode = "default"
	}
	stdin, err := json.Marshal(in)
	if err != nil { // a RawMessage that is not JSON; validation prevents it
		stdin = []byte("{}")
	}
	runs := make([]hookRun, len(hooks))
	var wg sync.WaitGroup
	for i, hk := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = h.runHook(ctx, event, hk, stdin)
		}()
	}
	wg.Wait()
	return runs
}

// runHook runs one hook and reads its answer: exit 0 goes on (reading any
// JSON on stdout), exit 2 blocks with stderr as the reason, and any other
// exit, a timeout or a failure to start is a non-blocking error, unless
// the hook is fail_closed, which makes it block.
func (h *Host) runHook(ctx context.Context, event string, hk config.Hook, stdin []byte) hookRun {
	run := hookRun{hook: hk}
	timeout := hk.Timeout
	if timeout <= 0 {
		timeout = config.DefaultHookTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "sh", "-c", hk.Command)
	cmd.Dir = h.opts.Workspace
	cmd.Env = append(os.Environ(), "RIOT_PROJECT_DIR="+h.opts.Workspace, "CLAUDE_PROJECT_DIR="+h.opts.Workspace)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, killed whole on timeout, and dead with riot.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Under the guard, the whole tree ends with the hook, on timeout, and
	// with riot however riot dies, whatever left the group.
	guarded := h.opts.HookGuard.Enabled()
	release, err := h.opts.HookGuard.Wrap(cmd)
	if err != nil {
		return h.hookFailed(run, event, "it could not be started")
	}
	defer release()
	// A grandchild that left the group may hold the pipes open.
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if cmd.Process != nil && !guarded {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		run.verdict, run.reason = "failed", "the call was cancelled while the hook ran"
		return run
	case hctx.Err() != nil:
		return h.hookFailed(run, event, fmt.Sprintf("it timed out after %s and was stopped", secondsText(timeout)))
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		run.verdict = "deny"
		if event == "PostToolUse" {
			run.verdict = "block"
		}
		run.reason = strings.TrimSpace(stderr.String())
		if stderr.over() {
			run.reason += fmt.Sprintf(" [cut: the hook wrote more than %s, and riot keeps that much]", sizeText(hookOutputCap))
		}
		return run
	case errors.As(err, &exit):
		return h.hookFailed(run, event, fmt.Sprintf("it exited with status %d%s", exit.ExitCode(), stderrNote(stderr.String())))
	default:
		return h.hookFailed(run, event, "it could not be started")
	}
	out := bytes.TrimSpace([]byte(stdout.String()))
	if len(out) == 0 || out[0] != '{' {
		return run // plain output is for the user's log, as in Claude Code
	}
	var o hookOutput
	if err := json.Unmarshal(out, &o); err != nil {
		if stdout.over() {
			return h.hookFailed(run, event, fmt.Sprintf("its JSON output is longer than the %s riot reads of a hook's output", sizeText(hookOutputCap)))
		}
		return h.hookFailed(run, event, "its output starts like JSON but is not valid JSON")
	}
	return h.readHookOutput(run, event, o)
}

// readHookOutput turns a hook's JSON into its verdict.
func (h *Host) readHookOutput(run hookRun, event string, o hookOutput) hookRun {
	if s := o.HookSpecificOutput; s != nil {
		run.additional = strings.TrimSpace(s.AdditionalContext)
		if event == "PreToolUse" {
			if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
				run.updated = s.UpdatedInput
			}
			switch s.PermissionDecision {
			case "allow", "ask", "deny":
				run.verdict, run.reason = s.PermissionDecision, s.PermissionDecisionReason
				return run
			case "":
			default:
				return h.hookFailed(run, event, fmt.Sprintf("its permissionDecision %q is none of allow, deny and ask", s.PermissionDecision))
			}
		}
	}
	switch o.Decision {
	case "":
	case "block":
		run.verdict, run.reason = "deny", o.Reason
		if event == "PostToolUse" {
			run.verdict = "block"
		}
	case "approve":
		if event == "PreToolUse" {
			run.verdict, run.reason = "allow", o.Reason
		}
	default:
		return h.hookFailed(run, event, fmt.Sprintf("its decision %q is neither approve nor block", o.Decision))
	}
	return run
}

// hookFailed is a hook that failed: the call goes on, with a warning for
// the user, unless the hook is fail_closed, which blocks it.
func (h *Host) hookFailed(run hookRun, event, why string) hookRun {
	name := hookName(run.hook)
	if run.hook.FailClosed {
		run.verdict = "deny"
		if event == "PostToolUse" {
			run.verdict = "block"
		}
		run.reason = fmt.Sprintf("the hook failed (%s), and it is fail_closed", why)
		return run
	}
	h.log.Warn(fmt.Sprintf("the %s hook %s failed (%s); the call goes on", event, name, why), "source", run.hook.Source.String())
	run.verdict, run.reason = "failed", why
	return run
}

func stderrNote(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ": " + clip(strings.Join(strings.Fields(s), " "), 200)
}

// preHooks is the combined answer of a call's PreToolUse hooks: deny over
// ask over allow, and the rewritten input if one hook gave one.
type preHooks struct {
	verdict *permission.HookVerdict
	updated json.RawMessage
	// conflict is set when hooks rewrote the input in different ways.
	conflict string
	reports  []HookReport
}

func (h *Host) preToolUse(ctx context.Context, use ToolUse) preHooks {
	var ph preHooks
	hooks := matching(h.cfg.Hooks.PreToolUse, use.Name)
	if len(hooks) == 0 {
		return ph
	}
	runs := h.runHooks(ctx, "PreToolUse", hooks, hookInput{ToolName: use.Name, ToolInput: use.Input, ToolUseID: use.ID})
	rank := map[string]int{"allow": 1, "ask": 2, "deny": 3}
	var best *hookRun
	var rewriter *hookRun
	for i := range runs {
		r := &runs[i]
		ph.reports = append(ph.reports, r.report("PreToolUse"))
		if rank[r.verdict] > 0 && (best == nil || rank[r.verdict] > rank[best.verdict]) {
			best = r
		}
		if r.updated == nil {
			continue
		}
		if rewriter != nil && !jsonEqual(rewriter.updated, r.updated) {
			ph.conflict = fmt.Sprintf("The PreToolUse hooks %s and %s rewrote this call's input in different ways, so riot runs neither version. Tell the user to make the hooks agree.", hookName(rewriter.hook), hookName(r.hook))
		}
		if rewriter == nil {
			rewriter = r
		}
	}
	if best != nil {
		b := map[string]permission.Behavior{"allow": permission.Allow, "ask": permission.Ask, "deny": permission.Deny}[best.verdict]
		ph.verdict = &permission.HookVerdict{Behavior: b, Hook: hookName(best.hook), Reason: best.reason}
	}
	if rewriter != nil && (best == nil || best.verdict != "deny") {
		ph.updated = rewriter.updated
	}
	return ph
}

// postToolUse runs a finished call's PostToolUse hooks: a block marks the
// result failed, with the hook's reason after the content, and additional
// context is appended for the model. A call the turn cancelled is not
// given to them: a cascade or cancellation still wins.
func (h *Host) postToolUse(ctx context.Context, c *call) {
	if c.result.Status != StatusOK && c.result.Status != StatusFailed {
		return
	}
	hooks := matching(h.cfg.Hooks.PostToolUse, c.use.Name)
	if len(hooks) == 0 || ctx.Err() != nil {
		return
	}
	resp := &hookToolResponse{Status: string(c.result.Status), IsError: c.result.Status != StatusOK, Content: c.result.Text(), UI: c.result.UI}
	if c.result.Spill != nil {
		resp.SpillPath = c.result.Spill.Path
	}
	runs := h.runHooks(ctx, "PostToolUse", hooks, hookInput{ToolName: c.use.Name, ToolInput: c.use.Input, ToolUseID: c.use.ID, ToolResponse: resp})
	if ctx.Err() != nil {
		return
	}
	var notes []string
	for _, r := range runs {
		if r.additional != "" {
			notes = append(notes, r.additional)
		}
		if r.verdict == "block" {
			c.result.Status = StatusFailed
			reason := strings.TrimSpace(r.reason)
			if reason == "" {
				reason = "it gave no reason"
			}
			notes = append(notes, fmt.Sprintf("The PostToolUse hook %s flagged this result: %s. Address it before you go on.", hookName(r.hook), strings.TrimSuffix(reason, ".")))
			if c.message == "" {
				c.message = "the PostToolUse hook " + hookName(r.hook) + " flagged the result"
			}
		}
	}
	if len(notes) > 0 {
		appendText(&c.result, strings.Join(notes, "\n"))
	}
}

// appendText adds a note after the text of a result.
func appendText(r *ToolResult, note string) {
	for i := range r.Content {
		if r.Content[i].Type == "text" {
			r.Content[i].Text = joinMessage(r.Content[i].Text, note)
			return
		}
	}
	r.Content = append([]Block{{Type: "text", Text: note}}, r.Content...)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return slices.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// cappedBuffer keeps the first hookOutputCap bytes written to it and
// discards the rest, so that a hook never blocks on a full pipe.
type cappedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	lost bool // bytes past the cap were discarded
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := max(0, hookOutputCap-b.buf.Len())
	b.buf.Write(p[:min(len(p), room)])
	b.lost = b.lost || len(p) > room
	return len(p), nil
}

// over reports whether the hook wrote more than the cap.
func (b *cappedBuffer) over() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lost
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
