package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// call is one ToolUse on its way through the pipeline.
type call struct {
	use      ToolUse
	tool     *tool
	prep     *toolv1.PrepareResponse
	result   ToolResult
	done     bool
	col      *collector
	limited  bool // the tool's budget is a limit, not Unlimited
	message  string
	cascades bool
	// req and decision are the permission chain's input and answer, which
	// the call's sandbox follows.
	req      permission.Request
	decision permission.Decision
	// elided: the tool's manifest declares the default Prepare answer,
	// which prep holds, and the plugin has not been asked for it
	// (elide.go). unrun: the call ended where its Prepare would have,
	// so nothing that follows a run applies to it.
	elided bool
	unrun  bool
	// expect: the call is elided with a guessed answer, which prep holds
	// (speculate.go). retry: the guess was wrong, and the call is to be
	// judged on the plugin's answer, now in prep.
	expect *toolv1.PrepareResponse
	retry  bool
	// unsaved is why the session could not save the call's state updates
	// (sessionstate.go tells of it).
	unsaved error
}

// resolve checks what needs no RPC: the name and the input's structure.
// It returns nil when the call may go on to Prepare.
func (h *Host) resolve(use ToolUse) *ToolResult {
	t, ok := h.lookup(use.Name)
	if !ok {
		r := textResult(use, StatusFailed, h.unknownTool(use.Name))
		return &r
	}
	if len(use.Input) > maxInputBytes {
		// Refused before anything copies it: a plugin could not take it
		// whole, and it would fail the same way every time.
		r := textResult(use, StatusFailed, fmt.Sprintf("This call's input is %s; riot takes at most %s of input per call, so it was not run. Do not send it again as it is: split the work into smaller calls, or write large content to a file in parts of at most that size.", sizeText(int64(len(use.Input))), sizeText(maxInputBytes)))
		return &r
	}
	if h.policy.Hidden(use.Name) {
		d := h.policy.Decide(context.Background(), permission.Request{Tool: use.Name})
		r := textResult(use, StatusDenied, d.DeniedMessage())
		return &r
	}
	v, err := t.validator()
	if err != nil {
		h.log.Error("tool schema does not compile", "tool", use.Name, "error", err)
		r := textResult(use, StatusFailed, fmt.Sprintf("The %s tool is broken: its input schema is invalid, so riot cannot check calls to it. Use another tool.", use.Name))
		return &r
	}
	if hint := v.check(use.Input); hint != "" {
		r := textResult(use, StatusFailed, hint)
		return &r
	}
	return nil
}

// Preparing a call is check, then judge. It leaves the call ready to
// run, or with its result set.

// check validates the call and runs the tool's Prepare: the part of
// preparing that asks no one and changes nothing, so the checks of calls
// that may run together run in parallel (prepare.go).
// A call that runs alone whatever its answer (alone) may be judged with a
// guessed answer instead (speculate.go).
func (h *Host) check(ctx context.Context, use ToolUse, alone bool) *call {
	c := &call{use: use}
	if r := h.resolve(use); r != nil {
		c.result, c.done = *r, true
		return c
	}
	c.tool, _ = h.lookup(use.Name)
	c.cascades = c.tool.spec.GetCascadesOnFailure()
	if c.tool.spec.GetDefaultPrepare() {
		c.prep, c.elided = &toolv1.PrepareResponse{}, true
		return c
	}
	if alone && h.guess(c) {
		return c
	}
	h.prepareRPC(ctx, c)
	return c
}

// judge runs the PreToolUse hooks and the permission chain, which may ask
// the user, on a checked call: one call at a time, in the turn's order.
func (h *Host) judge(ctx context.Context, c *call) *call {
	if c.done {
		return c
	}
	use := c.use
	if c.elided && h.hasPreToolUse(use.Name) && !h.unelide(ctx, c) {
		// The hooks see only inputs the tool accepts.
		return c
	}
	hooks := h.preToolUse(ctx, c.use)
	switch {
	case ctx.Err() != nil:
		c.finish(StatusCancelled, "Cancelled before it ran.")
		return c
	case hooks.conflict != "":
		c.finish(StatusDenied, hooks.conflict)
		return c
	case hooks.updated != nil && !h.rewrite(ctx, c, hooks.updated, hooks.verdict):
		return c
	}
	req := permissionRequest(use.Name, c.prep)
	req.Hook = hooks.verdict
	d := h.policy.Decide(ctx, req)
	if c.elided && d.Behavior != permission.Allow {
		// A Deny's reason and an Ask's prompt show the call's description,
		// and an input the tool rejects is rejected before either: ask the
		// plugin now. Its answer differs from the default only there, so
		// the chain decides the same way, with the description.
		if !h.unelide(ctx, c) {
			return c
		}
		req = permissionRequest(use.Name, c.prep)
		req.Hook = hooks.verdict
		d = h.policy.Decide(ctx, req)
	}
	c.req, c.decision = req, d
	switch d.Behavior {
	case permission.Allow:
		return c
	case permission.Deny:
		c.finish(StatusDenied, d.DeniedMessage())
		return c
	}
	if d = h.ask(ctx, req, d); d.Behavior == permission.Allow {
		c.decision = d
		return c
	}
	c.finish(StatusDenied, d.DeniedMessage())
	return c
}

// prepareRPC runs the tool's Prepare on the call's input. It reports
// whether the call may go on; if not, its result is set.
func (h *Host) prepareRPC(ctx context.Context, c *call) bool {
	p := c.tool.plugin
	stub, gen, err := p.conn(ctx)
	if err != nil {
		c.finish(StatusFailed, h.connError(ctx, c.use, err))
		return false
	}
	pctx, cancel := context.WithTimeout(ctx, prepareTimeout)
	defer cancel()
	c.tool.prepares.Add(1)
	prep, err := stub.Prepare(pctx, &toolv1.PrepareRequest{
		Tool: c.use.Name, CallId: c.use.ID, Input: c.use.Input, Context: h.callContext(p, time.Time{}),
	})
	if err != nil {
		h.prepareFailed(ctx, pctx, c, gen, err, prepareTimeout)
		return false
	}
	if prep.GetRejected() != "" {
		c.finish(StatusFailed, prep.GetRejected())
		return false
	}
	c.prep = prep
	c.result.Describe = prep.GetDescribe()
	c.tool.remember(prep)
	return true
}

// prepareFailed finishes a call whose check failed with err: cancelled
// with ctx, timed out (pctx, after limit), the plugin crashed or broke the
// protocol. The call did not run.
func (h *Host) prepareFailed(ctx, pctx context.Context, c *call, gen int, err error, limit time.Duration) {
	p := c.tool.plugin
	if ctx.Err() != nil {
		c.finish(StatusCancelled, "Cancelled before it ran.")
		return
	}
	switch f, code := classify(err); {
	case pctx.Err() != nil || code == codes.DeadlineExceeded:
		p.kill(gen)
		p.crashed(gen)
		c.finish(StatusFailed, fmt.Sprintf("The %s tool did not finish checking this call within %s and was stopped, so the call did not run. Do not retry this input unchanged: use another tool or approach.", c.use.Name, secondsText(limit)))
	case f == faultCrash:
		how := p.crashed(gen)
		c.finish(StatusFailed, fmt.Sprintf("The %s tool stopped unexpectedly (%s) while checking this call, so the call did not run. Retry it; the tool will be restarted.", c.use.Name, how))
	default:
		h.fileLog.Error("Prepare failed", "tool", c.use.Name, "call_id", c.use.ID, "error", err)
		c.finish(StatusFailed, prepareFaultMessage(c.use.Name, f, code))
	}
}

// rewrite replaces the call's input with a PreToolUse hook's updatedInput,
// which is checked against the schema and prepared again like any input:
// the permission chain then judges the new input, not the old.
func (h *Host) rewrite(ctx context.Context, c *call, input json.RawMessage, by *permission.HookVerdict) bool {
	name := "a PreToolUse hook"
	if by != nil {
		name = "the PreToolUse hook " + by.Hook
	}
	c.use.Input = input
	if r := h.resolve(c.use); r != nil {
		c.finish(StatusFailed, fmt.Sprintf("%s rewrote this call's input into one the %s tool does not take: %s Tell the user the hook needs fixing.", upperFirst(name), c.use.Name, r.Text()))
		return false
	}
	return h.prepareRPC(ctx, c)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// prepareTimeout bounds Prepare, which only inspects the input.
const prepareTimeout = 30 * time.Second

// maxInputBytes bounds one call's input. A model writes far less in one
// tool_use; anything near gRPC's message limit (the input travels in
// Prepare and in Call) is a mistake, and costs riot memory many times its
// size as it is decoded, checked and copied.
const maxInputBytes = 4 << 20

// ask resolves an Ask: with the prompter, which may grant rules for the
// session or for good, or by denying when nobody can be asked. It returns
// the final decision.
func (h *Host) ask(ctx context.Context, req permission.Request, d permission.Decision) permission.Decision {
	d, err := h.policy.Resolve(ctx, h.opts.Prompter, req, d)
	if err != nil {
		h.log.Warn("an allow rule could not be saved; it holds for this session only", "error", err)
	}
	if d.Behavior == permission.Allow && d.ByUser {
		grants, err := h.session.AddGrants(h.policy.Grants())
		if err != nil {
			h.log.Warn("cannot save the session's grants", "error", err)
		}
		// Other processes on the session may have granted more meanwhile.
		for _, g := range grants {
			if err := h.policy.Grant(g); err != nil {
				h.log.Warn("dropping a session grant that no longer parses", "grant", g, "error", err)
			}
		}
	}
	return d
}

func (c *call) finish(status Status, text string) {
	c.result = textResult(c.use, status, text)
	c.result.Describe = describeOf(c)
	c.done = true
}

func describeOf(c *call) string {
	if c.prep != nil {
		return c.prep.GetDescribe()
	}
	return ""
}

func permissionRequest(tool string, prep *toolv1.PrepareResponse) permission.Request {
	req := permission.Request{
		Tool:            tool,
		ReadOnly:        prep.GetReadOnly(),
		ClassifierInput: prep.GetClassifierInput(),
		ToolReason:      prep.GetPermissionReason(),
		Describe:        prep.GetDescribe(),
	}
	switch prep.GetPermission() {
	case toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_PASSTHROUGH:
		req.ToolBehavior = permission.ToolPassthrough
	case toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ALLOW:
		req.ToolBehavior = permission.ToolAllow
	case toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_DENY:
		req.ToolBehavior = permission.ToolDeny
	default:
		// Ask, and any value this host does not know.
		req.ToolBehavior = permission.ToolAsk
	}
	for _, s := range prep.GetSubjects() {
		sub := permission.Subject{Value: s.GetValue(), Access: permission.Write}
		switch s.GetKind() {
		case toolv1.SubjectKind_SUBJECT_KIND_COMMAND:
			sub.Kind = permission.CommandSubject
		case toolv1.SubjectKind_SUBJECT_KIND_PATH:
			sub.Kind = permission.PathSubject
		default:
			sub.Kind = permission.UnknownSubject
		}
		if s.GetAccess() == toolv1.Access_ACCESS_READ {
			sub.Access = permission.Read
		}
		req.Subjects = append(req.Subjects, sub)
	}
	return req
}

// connError is the result text of a call whose plugin is not there.
func (h *Host) connError(ctx context.Context, use ToolUse, err error) string {
	var se *startError
	var ue *unavailableError
	switch {
	case errors.As(err, &se):
		return se.Msg
	case errors.As(err, &ue):
		return ue.Msg
	case errors.Is(err, errHostClosed):
		return fmt.Sprintf("riot is shutting down, so the %s call did not run. Do not retry it in this session.", use.Name)
	case ctx.Err() != nil:
		return "Cancelled before it ran."
	default:
		return fmt.Sprintf("The %s tool could not be reached. See the log at %s.", use.Name, h.logFile)
	}
}

// callContext is what a plugin is told about the session.
func (h *Host) callContext(p *pluginProc, deadline time.Time) *toolv1.CallContext {
	own, others := h.session.Snapshot(p.spec.Name)
	cc := &toolv1.CallContext{
		SessionId:      h.session.ID(),
		Cwd:            h.opts.Workspace,
		WorkspaceRoots: h.roots(),
		PermissionMode: h.cfg.Permissions.Mode,
		State:          own,
		ResultsDirs:    []string{h.resultDir},
		DenyRead:       h.policy.DenyReadGlobs(),
	}
	for name, st := range others {
		if cc.SharedState == nil {
			cc.SharedState = make(map[string]*toolv1.PluginState, len(others))
		}
		cc.SharedState[name] = &toolv1.PluginState{Values: st}
	}
	if !deadline.IsZero() {
		cc.DeadlineUnixMs = deadline.UnixMilli()
	}
	return cc
}

// roots are the workspace and the additional directories, absolute but
// not cleaned: a `..` after a symlink is the parent of the link's target,
// and the policy and the SDK resolve them as the kernel does.
func (h *Host) roots() []string {
	roots := []string{h.opts.Workspace}
	for _, d := range h.cfg.Permissions.AdditionalDirs {
		d = config.ExpandHome(d)
		if !filepath.IsAbs(d) {
			d = h.opts.Workspace + string(filepath.Separator) + d
		}
		roots = append(roots, d)
	}
	return roots
}

// timeout is the deadline of one call of t.
func (h *Host) timeout(t *tool) time.Duration {
	if d := t.plugin.spec.Timeout; d > 0 {
		return d
	}
	if d := h.cfg.Limits.CallTimeout; d > 0 {
		return d
	}
	return 10 * time.Minute
}

// execute runs a prepared call and records its result.
func (h *Host) execute(ctx context.Context, c *call) {
	start := h.now()
	p := c.tool.plugin
	budget := int64(-1)
	if b := c.tool.spec.GetResultBudget(); b == nil || !b.GetUnlimited() {
		budget = int64(50_000)
		if b.GetLimitChars() > 0 {
			budget = b.GetLimitChars()
		}
		c.limited = true
	}
	c.col = newCollector(budget, h.results.spillPath(c.use.ID), h.results)
	timeout := h.timeout(c.tool)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := cctx.Deadline()
	// An elided call starts, for those watching, once the plugin has
	// answered its check with the description.
	started := !c.elided
	if started {
		h.progress(c, "start", "", 0)
	}
	defer func() {
		if started {
			h.progress(c, "end", "", h.now().Sub(start))
		}
	}()

	sandbox, refused := h.sandboxFor(ctx, c)
	if refused != "" {
		if c.elided {
			// Prepare's rejection comes first, and an answer other than
			// the guess is judged before anything is refused.
			if e := c.expect; !h.unelide(ctx, c) || c.missedAfterAsking(e) {
				return
			}
			started = true
			h.progress(c, "start", "", 0)
		}
		c.finish(StatusFailed, refused)
		return
	}
	stub, gen, err := p.conn(cctx)
	if err != nil {
		c.unrun = c.elided
		c.finish(StatusFailed, h.connError(ctx, c.use, err))
		return
	}
	cc := h.callContext(p, deadline)
	cc.AllowedReads = c.decision.Reads
	cc.AllowedWrites = c.decision.Writes
	cc.Sandbox = sandbox
	cc.SpillFile = c.col.offer()
	ans := answer{c: c, expect: c.expect}
	err = stub.Call(cctx, &toolv1.CallRequest{
		Tool: c.use.Name, CallId: c.use.ID, Input: c.use.Input, Context: cc, Unprepared: c.elided, Expect: c.expect,
	}, func(ev *toolv1.CallEvent) error {
		if c.elided {
			switch took, err := ans.take(ev); {
			case err != nil:
				return err
			case took:
				if ans.started() {
					h.progress(c, "start", "", 0)
				}
				return nil
			case ans.rejected() || ans.missed:
				return nil // the Final after the rejection or the miss
			}
		}
		if pr := ev.GetProgress(); pr != nil {
			h.progress(c, "progress", pr.GetMessage(), h.now().Sub(start))
			return nil
		}
		return c.col.add(ev)
	})
	fault, code := rpcFault(-1), codes.OK
	if err != nil {
		fault, code = classify(err)
	}
	if fault == faultMalformed {
		c.col.discard()
	} else {
		c.col.finish()
	}
	if c.col.err != nil {
		h.log.Error("cannot write a spilled result", "path", c.col.spillPath, "error", c.col.err)
	} else if c.col.spilled() {
		h.log.Debug("spilled a result", "path", c.col.spillPath, "bytes", c.col.nbytes, "written_by_plugin", c.col.fromFile, "read_back", c.col.reread)
	}
	started = started || ans.started()
	if ans.missed && fault != faultMalformed {
		// The tool did not run: whatever became of the stream after the
		// answer, the host judges it now.
		c.missed(ans.prep)
		return
	}
	if c.elided && ans.unanswered(err, fault) {
		// The plugin failed before it answered the check: as its Prepare
		// would have, and the tool did not run.
		c.unrun = true
		h.prepareFailed(ctx, cctx, c, gen, err, timeout)
		return
	}
	if ans.rejected() && fault != faultMalformed {
		// Whatever became of the stream after it, the tool did not run.
		c.unrun = true
		c.finish(StatusFailed, ans.prep.GetRejected())
		return
	}
	elapsed := h.now().Sub(start)
	switch {
	case err == nil && c.col.final != nil:
		h.finishOutcome(c, p)
	case ctx.Err() != nil:
		// The turn was cancelled: by a cascade, or by the caller. The
		// turn fills in why.
		c.result = ToolResult{ToolUseID: c.use.ID, Name: c.use.Name, Status: StatusCancelled, Describe: describeOf(c)}
		c.done = true
	case cctx.Err() != nil || status.Code(err) == codes.DeadlineExceeded:
		// The plugin may report the deadline before the host's own timer
		// fires; either way the call ran out of time.
		p.kill(gen)
		p.crashed(gen)
		c.message = fmt.Sprintf("Timed out after %s: the %s tool did not finish in time and was stopped.", secondsText(timeout), c.use.Name)
		if !c.prep.GetReadOnly() {
			c.message += " It may have partially run; check the state it would have changed before retrying."
		}
		h.finishBody(c, StatusFailed)
	case fault >= faultNoFinal:
		// The plugin broke the protocol or answered with an error; it is
		// alive, so it is neither waited for nor counted as crashed.
		var bad *malformedError
		why := ""
		if errors.As(err, &bad) {
			why = bad.Why
		}
		h.fileLog.Error("call failed", "tool", c.use.Name, "call_id", c.use.ID, "error", err)
		c.message = callFaultMessage(c.use.Name, fault, code, why, c.prep.GetReadOnly())
		if fault == faultMalformed {
			c.col = newCollector(0, "", nil)
		}
		h.finishBody(c, StatusFailed)
	default:
		how := p.crashed(gen)
		c.message = fmt.Sprintf("The %s tool stopped unexpectedly (%s) while running this call.", c.use.Name, how)
		if c.prep.GetReadOnly() {
			c.message += " Retry the call; the tool will be restarted."
		} else {
			c.message += " It may have partially run; check the state it would have changed before retrying."
		}
		h.finishBody(c, StatusFailed)
	}
	c.result.Duration = elapsed
}

func (h *Host) finishOutcome(c *call, p *pluginProc) {
	f := c.col.final
	c.unsaved = h.session.Update(p.spec.Name, f.GetStateUpdates())
	c.message = joinMessage(f.GetMessage(), h.unconfinedNote(c))
	status := StatusOK
	if f.GetStatus() != toolv1.Status_STATUS_OK {
		status = StatusFailed
		if c.message == "" {
			c.message = fmt.Sprintf("The %s tool failed without saying why. Check the log at %s, or try another approach.", c.use.Name, h.logFile)
		}
	}
	h.finishBody(c, status)
	if ui := f.GetUiPayload(); len(ui) > 0 {
		c.result.UI = ui
	}
}

// finishBody assembles the model content from the collected stream and
// the message.
func (h *Host) finishBody(c *call, status Status) {
	body := c.col.body()
	text := joinMessage(body, c.message)
	if status == StatusOK && text == "" && len(c.col.images) == 0 {
		text = "(no output)"
	}
	c.result = ToolResult{ToolUseID: c.use.ID, Name: c.use.Name, Status: status, Describe: describeOf(c)}
	if text != "" {
		c.result.Content = append(c.result.Content, Block{Type: "text", Text: text})
	}
	c.result.Content = append(c.result.Content, c.col.images...)
	if c.col.spilled() && c.col.err == nil {
		c.result.Spill = &Spill{Path: c.col.spillPath, Chars: c.col.chars, Lines: c.col.lineCount(), Bytes: c.col.nbytes}
	}
	c.done = true
}

// joinMessage puts a note or failure message after the output.
func joinMessage(body, message string) string {
	switch {
	case message == "":
		return body
	case body == "":
		return message
	case strings.HasSuffix(body, "\n"):
		return body + message
	default:
		return body + "\n" + message
	}
}

func (h *Host) progress(c *call, phase, msg string, elapsed time.Duration) {
	if h.opts.OnProgress == nil {
		return
	}
	h.opts.OnProgress(Progress{CallID: c.use.ID, Tool: c.use.Name, Describe: describeOf(c), Phase: phase, Message: msg, Elapsed: elapsed})
}

func secondsText(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}
