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

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/shared"
)

// call is one ToolUse on its way through the pipeline.
type call struct {
	use      ToolUse
	tool     *tool
	prep     *shared.PrepareAnswer
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
	expect *shared.PrepareAnswer
	retry  bool
	// unsaved is why the session could not save the call's state updates
	// (sessionstate.go tells of it).
	unsaved error
	// note follows whatever the call's result says: what riot's network
	// proxy refused its command (egress.go).
	note string
	// stop is a hook's continue: false on this call, which stops the rest
	// of the turn; failureHooked says its PostToolUseFailure hooks ran.
	stop          *cascadeCause
	failureHooked bool
	// cascaded is the cascade this call's failure started.
	cascaded *cascadeCause
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
	c.cascades = c.tool.spec.CascadesOnFailure
	if c.tool.spec.DefaultPrepare {
		def := shared.DefaultAnswer("")
		c.prep, c.elided = &def, true
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
	hooks := h.preToolUse(ctx, c)
	switch {
	case ctx.Err() != nil:
		c.finish(StatusCancelled, "Cancelled before it ran.")
		return c
	case hooks.stop != nil:
		c.finish(StatusDenied, hooks.stop.message())
		c.stop = hooks.stop.cause(c.use)
		return c
	case hooks.conflict != "":
		c.finish(StatusDenied, hooks.conflict)
		return c
	case hooks.updated != nil && !h.rewrite(ctx, c, hooks.updated, hooks.verdict):
		return c
	}
	req := h.request(ctx, c, hooks.verdict)
	d := h.policy.Decide(ctx, req)
	if c.elided && d.Behavior != permission.Allow {
		// A Deny's reason and an Ask's prompt show the call's description,
		// and an input the tool rejects is rejected before either: ask the
		// plugin now. Its answer differs from the default only there, so
		// the chain decides the same way, with the description.
		if !h.unelide(ctx, c) {
			return c
		}
		req = h.request(ctx, c, hooks.verdict)
		d = h.policy.Decide(ctx, req)
	}
	c.req, c.decision = req, d
	switch d.Behavior {
	case permission.Allow:
		return c
	case permission.Ask:
		var stop *hookStop
		if d, stop = h.ask(ctx, req, d); stop != nil {
			c.stop = stop.cause(c.use)
		}
		if d.Behavior == permission.Allow && stop == nil {
			c.decision = d
			return c
		}
		if d.Behavior == permission.Allow {
			c.finish(StatusDenied, stop.message())
			return c
		}
	case permission.Deny:
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
	cc := h.callContext(p, time.Time{})
	prep, err := stub.Prepare(pctx, shared.PrepareRequest{
		Tool: c.use.Name, CallID: c.use.ID, Input: c.use.Input, Context: cc,
	})
	if err != nil {
		h.prepareFailed(ctx, pctx, c, gen, err, prepareTimeout)
		return false
	}
	if prep.Rejected != "" {
		c.finish(StatusFailed, prep.Rejected)
		return false
	}
	if cc.TempView == nil && h.wantsTmpView(ctx, p, &prep) {
		return h.prepareRPC(ctx, c) // its /tmp paths are the session's (sandboxtmp.go)
	}
	c.prep = &prep
	c.result.Describe = prep.Describe
	c.tool.remember(&prep)
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
	switch f, code := faultOf(err); {
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

// request is what the chain judges of c: its Prepare answer's subjects,
// /tmp read as the session's own where the call is sandboxed, its input
// and parameters for parameter rules, and the PreToolUse hooks' verdict.
func (h *Host) request(ctx context.Context, c *call, verdict *permission.HookVerdict) permission.Request {
	req := h.tmpRequest(ctx, c, permissionRequest(c.use.Name, *c.prep))
	req.Input, req.Params = c.use.Input, c.tool.params()
	req.Hook = verdict
	return req
}

// ask resolves an Ask: by the PermissionRequest hooks, which answer in the
// user's place and are recorded as the user's answer; else with the
// prompter, which may grant rules for the session or for good, or by
// denying when nobody can be asked. It returns the final decision, and a
// hook's stop of the turn.
func (h *Host) ask(ctx context.Context, req permission.Request, d permission.Decision) (permission.Decision, *hookStop) {
	step := d.Step
	hd, decided, stop := h.permissionRequest(ctx, req, d)
	if decided {
		d = hd
		rec := d
		rec.ByUser = true // the hook answered for the user
		h.recordAsk(ctx, req, step, rec)
	} else {
		defer func() { h.recordAsk(ctx, req, step, d) }()
		var err error
		actx := h.asking(ctx, "permission_prompt", fmt.Sprintf("riot needs your permission to use %s", req.Tool))
		d, err = h.policy.Resolve(actx, h.opts.Prompter, req, d)
		if err != nil {
			h.log.Warn("an allow rule could not be saved; it holds for this session only", "error", err)
		}
	}
	if d.Behavior == permission.Allow && d.ByUser {
		grants, err := h.state.AddGrants(h.policy.Grants())
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
	return d, stop
}

func (c *call) finish(status Status, text string) {
	c.result = textResult(c.use, status, text)
	c.result.Describe = describeOf(c)
	c.done = true
}

func describeOf(c *call) string {
	if c.prep != nil {
		return c.prep.Describe
	}
	return ""
}

// readOnly is the call's Prepare answer's: false, the conservative
// reading, while it has none.
func (c *call) readOnly() bool { return c.prep != nil && c.prep.ReadOnly }

// concurrencySafe is the call's Prepare answer's: false while it has none.
func (c *call) concurrencySafe() bool { return c.prep != nil && c.prep.ConcurrencySafe }

func permissionRequest(tool string, prep shared.PrepareAnswer) permission.Request {
	req := permission.Request{
		Tool:            tool,
		ReadOnly:        prep.ReadOnly,
		ClassifierInput: prep.ClassifierInput,
		ToolReason:      prep.PermissionReason,
		Describe:        prep.Describe,
	}
	switch prep.Permission {
	case shared.PermissionPassthrough:
		req.ToolBehavior = permission.ToolPassthrough
	case shared.PermissionAllow:
		req.ToolBehavior = permission.ToolAllow
	case shared.PermissionDeny:
		req.ToolBehavior = permission.ToolDeny
	default:
		// Ask, and any value this host does not know.
		req.ToolBehavior = permission.ToolAsk
	}
	for _, s := range prep.Subjects {
		sub := permission.Subject{Value: s.Value, Access: permission.Write}
		switch s.Kind {
		case shared.SubjectCommand:
			sub.Kind = permission.CommandSubject
		case shared.SubjectPath:
			sub.Kind = permission.PathSubject
		default:
			sub.Kind = permission.UnknownSubject
		}
		if s.Access == shared.AccessRead {
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
func (h *Host) callContext(p *pluginProc, deadline time.Time) shared.CallContext {
	own, others := h.state.Snapshot(p.spec.Name)
	cc := shared.CallContext{
		SessionID:      h.state.ID(),
		Cwd:            h.opts.Workspace,
		WorkspaceRoots: h.roots(),
		Deadline:       deadline,
		PermissionMode: string(h.cfg.Permissions.Mode),
		State:          own,
		ResultsDirs:    []string{h.resultDir},
		DenyRead:       h.policy.DenyReadGlobs(),
		TempView:       h.tempView(p),
	}
	if len(others) > 0 {
		cc.SharedState = others
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

// execute runs a prepared call and records its result: send runs the
// Call into the call's collector, and outcome reads what came back as a
// result, a timeout, a protocol fault, a crash or a cancellation.
func (h *Host) execute(ctx context.Context, c *call) {
	budget := resultBudget(c.tool.spec)
	c.limited = budget >= 0
	c.col = newCollector(budget, h.results.spillPath(c.use.ID), h.results)
	timeout := h.timeout(c.tool)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pr := &callProgress{h: h, c: c, start: h.now()}
	// An elided call starts, for those watching, once the plugin has
	// answered its check with the description.
	if !c.elided {
		pr.begin()
	}
	defer pr.end()
	sandbox, ok := h.sandboxOrRefuse(ctx, c, pr)
	if !ok {
		return
	}
	sandbox, egressKey := h.withEgress(cctx, c, sandbox)
	s, ok := h.send(ctx, cctx, c, sandbox, pr)
	if egressKey != "" {
		c.note = h.finishEgress(egressKey)
	}
	if !ok {
		return
	}
	s.timeout = timeout
	h.outcome(ctx, c, s, pr.start)
}

// defaultResultBudget is the budget of a tool that declares none.
const defaultResultBudget = 50_000

// resultBudget is a tool's budget in characters, or -1 for Unlimited.
func resultBudget(spec shared.ToolSpec) int64 {
	switch b := spec.ResultBudget; {
	case b != nil && b.Unlimited:
		return -1
	case b != nil && b.LimitChars > 0:
		return b.LimitChars
	default:
		return defaultResultBudget
	}
}

// callProgress tells Options.OnProgress of one run of a call: its start,
// once, its progress lines, and its end if it started.
type callProgress struct {
	h       *Host
	c       *call
	start   time.Time
	started bool
}

func (p *callProgress) begin() {
	if !p.started {
		p.started = true
		p.h.progress(p.c, "start", "", 0)
	}
}

func (p *callProgress) line(msg string) {
	p.h.progress(p.c, "progress", msg, p.h.now().Sub(p.start))
}

func (p *callProgress) end() {
	if p.started {
		p.h.progress(p.c, "end", "", p.h.now().Sub(p.start))
	}
}

// sandboxOrRefuse is the sandbox of an allowed call; ok is false when a
// required sandbox cannot start, and the call's result is then set. An
// unprepared call is asked its Prepare first: a rejection comes before
// the refusal, and an answer other than the guess is judged before it.
func (h *Host) sandboxOrRefuse(ctx context.Context, c *call, pr *callProgress) (_ *shared.SandboxProfile, ok bool) {
	sandbox, refused := h.sandboxFor(ctx, c)
	if refused == "" {
		return sandbox, true
	}
	if c.elided {
		if e := c.expect; !h.unelide(ctx, c) || c.missedAfterAsking(e) {
			return nil, false
		}
		pr.begin()
	}
	c.finish(StatusFailed, refused)
	return nil, false
}

// sent is what a call's Call RPC came back with, for outcome.
type sent struct {
	// cctx is the call's context, with its timeout of timeout.
	cctx    context.Context
	timeout time.Duration
	// gen is the plugin generation that served the call.
	gen int
	// err is what the stub returned, read as fault and code; fault is -1
	// for none.
	err   error
	fault rpcFault
	code  codes.Code
	// ans is the plugin's answer to the check of an unprepared call.
	ans *answer
}

// send runs the Call RPC of an allowed call, the events into the call's
// collector, which it then closes. ok is false when the plugin could not
// be reached; the call's result is then set.
func (h *Host) send(ctx, cctx context.Context, c *call, sandbox *shared.SandboxProfile, pr *callProgress) (_ sent, ok bool) {
	stub, gen, err := c.tool.plugin.conn(cctx)
	if err != nil {
		c.unrun = c.elided
		c.finish(StatusFailed, h.connError(ctx, c.use, err))
		return sent{}, false
	}
	s := sent{cctx: cctx, gen: gen, fault: -1, code: codes.OK, ans: &answer{c: c, expect: c.expect}}
	s.err = stub.Call(cctx, h.callRequest(cctx, c, sandbox), func(ev shared.CallEvent) error {
		return h.receive(c, s.ans, ev, pr)
	})
	if s.err != nil {
		s.fault, s.code = faultOf(s.err)
	}
	h.closeCollector(c, s.fault)
	return s, true
}

// callRequest is the Call of an allowed call: its context carries what
// the call's decision allows and its sandbox.
func (h *Host) callRequest(cctx context.Context, c *call, sandbox *shared.SandboxProfile) shared.CallRequest {
	deadline, _ := cctx.Deadline()
	cc := h.callContext(c.tool.plugin, deadline)
	cc.AllowedReads = c.decision.Reads
	cc.AllowedWrites = c.decision.Writes
	cc.Sandbox = sandbox
	cc.SpillFile = c.col.offer()
	return shared.CallRequest{Tool: c.use.Name, CallID: c.use.ID, Input: c.use.Input, Context: cc, Unprepared: c.elided, Expect: c.expect}
}

// receive takes one event of a call's stream: an unprepared call's answer
// first, then progress lines and content. An error ends the stream.
func (h *Host) receive(c *call, ans *answer, ev shared.CallEvent, pr *callProgress) error {
	if c.elided {
		switch took, err := ans.take(ev); {
		case err != nil:
			return err
		case took:
			if ans.started() {
				pr.begin()
			}
			return nil
		case ans.rejected() || ans.missed:
			return nil // the Final after the rejection or the miss
		}
	}
	if ev.Progress != nil {
		pr.line(ev.Progress.Message)
		return nil
	}
	return c.col.add(ev)
}

// closeCollector puts the call's spill file in place, or drops it when
// the plugin's output broke the protocol.
func (h *Host) closeCollector(c *call, fault rpcFault) {
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
}

// outcome records the result of a call send sent, begun at start: where
// the tool did not run, what its answer says; else its Final, or the
// cancellation, timeout, protocol fault or crash that ended it instead.
func (h *Host) outcome(ctx context.Context, c *call, s sent, start time.Time) {
	if h.notRun(ctx, c, s) {
		return
	}
	elapsed := h.now().Sub(start)
	switch {
	case s.err == nil && c.col.final != nil:
		h.finishOutcome(c)
	case ctx.Err() != nil:
		// The turn was cancelled: by a cascade, or by the caller. The
		// turn fills in why.
		c.result = ToolResult{ToolUseID: c.use.ID, Name: c.use.Name, Status: StatusCancelled, Describe: describeOf(c)}
		c.done = true
	case s.cctx.Err() != nil || s.code == codes.DeadlineExceeded:
		// The plugin may report the deadline before the host's own timer
		// fires; either way the call ran out of time.
		h.timedOut(c, s)
	case s.fault >= faultNoFinal:
		h.faulted(c, s)
	default:
		h.crashedDuring(c, s)
	}
	c.result.Duration = elapsed
}

// notRun records the result of an unprepared call the tool did not run:
// its answer was not the guess, or rejected the input, or never came.
// It reports whether the call was one.
func (h *Host) notRun(ctx context.Context, c *call, s sent) bool {
	switch {
	case s.ans.missed && s.fault != faultMalformed:
		// Whatever became of the stream after the answer, the host judges
		// the call on it now.
		c.missed(s.ans.prep)
	case c.elided && s.ans.unanswered(s.err, s.fault):
		// The plugin failed before it answered the check: as its Prepare
		// would have.
		c.unrun = true
		h.prepareFailed(ctx, s.cctx, c, s.gen, s.err, s.timeout)
	case s.ans.rejected() && s.fault != faultMalformed:
		// Whatever became of the stream after the rejection.
		c.unrun = true
		c.finish(StatusFailed, s.ans.prep.Rejected)
	default:
		return false
	}
	return true
}

// timedOut: the call ran out of time; its plugin is stopped.
func (h *Host) timedOut(c *call, s sent) {
	p := c.tool.plugin
	p.kill(s.gen)
	p.crashed(s.gen)
	c.message = fmt.Sprintf("Timed out after %s: the %s tool did not finish in time and was stopped.", secondsText(s.timeout), c.use.Name)
	if !c.readOnly() {
		c.message += " It may have partially run; check the state it would have changed before retrying."
	}
	h.finishBody(c, StatusFailed)
}

// faulted: the plugin broke the protocol or answered with an error
// status. It is alive, so it is neither waited for nor counted as crashed.
func (h *Host) faulted(c *call, s sent) {
	var bad *malformedError
	why := ""
	if errors.As(s.err, &bad) {
		why = bad.Why
	}
	h.fileLog.Error("call failed", "tool", c.use.Name, "call_id", c.use.ID, "error", s.err)
	c.message = callFaultMessage(c.use.Name, s.fault, s.code, why, c.readOnly())
	if s.fault == faultMalformed {
		c.col = newCollector(0, "", nil)
	}
	h.finishBody(c, StatusFailed)
}

// crashedDuring: the plugin died or dropped its connection mid-call.
func (h *Host) crashedDuring(c *call, s sent) {
	how := c.tool.plugin.crashed(s.gen)
	c.message = fmt.Sprintf("The %s tool stopped unexpectedly (%s) while running this call.", c.use.Name, how)
	if c.readOnly() {
		c.message += " Retry the call; the tool will be restarted."
	} else {
		c.message += " It may have partially run; check the state it would have changed before retrying."
	}
	h.finishBody(c, StatusFailed)
}

func (h *Host) finishOutcome(c *call) {
	f := c.col.final
	c.unsaved = h.state.Update(c.tool.plugin.spec.Name, f.StateUpdates)
	c.message = joinMessage(f.Message, h.unconfinedNote(c))
	status := StatusOK
	if f.Status != shared.StatusOK {
		status = StatusFailed
		if c.message == "" {
			c.message = fmt.Sprintf("The %s tool failed without saying why. Check the log at %s, or try another approach.", c.use.Name, h.logFile)
		}
	}
	h.finishBody(c, status)
	if ui := f.UIPayload; len(ui) > 0 {
		c.result.UI = ui
	}
}

// finishBody assembles the model content from the collected stream and
// the message.
func (h *Host) finishBody(c *call, status Status) {
	body := c.col.body()
	text := joinMessage(body, joinMessage(c.message, c.note))
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
