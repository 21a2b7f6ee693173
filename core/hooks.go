package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/riot-tools/riot/core/toolcall"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/hook"
)

// Hooks are user programs (or HTTP endpoints) run on the events of a
// session, with Claude Code's JSON protocol, so that existing hook setups
// work unchanged. internal/hook runs them; this file is where each event
// meets the turn. They run in the core, for every call the host runs,
// whatever its source: builtins, plugins, host tools, MCP servers, and
// calls arriving through `riot mcp` or a session host.
//
// Every word a hook adds for the model (a reason, additional context, a
// replaced output) goes into a result before RunTurn's gate
// (resultgate.go), so the budget applies to it as to a tool's output.

// hookInput is what a hook reads: Claude Code's common fields, then the
// event's own.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // riot keeps no transcript
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`
	ToolName       string `json:"tool_name,omitempty"`
	// ToolInput is the call's input, which validation has checked is a
	// JSON object.
	ToolInput    json.RawMessage   `json:"tool_input,omitempty"`
	ToolUseID    string            `json:"tool_use_id,omitempty"`
	ToolResponse *hookToolResponse `json:"tool_response,omitempty"`
	// PostToolUseFailure: the result's text, whether the call was
	// cancelled, and riot's status (failed, denied or cancelled).
	Error       string `json:"error,omitempty"`
	IsInterrupt *bool  `json:"is_interrupt,omitempty"`
	Status      string `json:"status,omitempty"`
	// PermissionRequest: the rules that would allow the call.
	PermissionSuggestions []permissionSuggestion `json:"permission_suggestions,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// SessionStart's source and SessionEnd's reason.
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`
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

// permissionSuggestion is Claude Code's shape of a rule a PermissionRequest
// hook may grant.
type permissionSuggestion struct {
	Type        string      `json:"type"`
	Rules       []hook.Rule `json:"rules"`
	Behavior    string      `json:"behavior"`
	Destination string      `json:"destination"`
}

// HookReport is what one hook said about a call, for `riot explain`.
type HookReport struct {
	Event   string
	Hook    string // the command, program or URL, as written
	Source  config.Source
	Verdict string // allow, ask, deny, defer, block, none, or failed
	Reason  string
}

// hookRun is the outcome of one hook on one event.
type hookRun struct {
	hook config.Hook
	res  hook.Result
	// partial: the hook's if matched the call only in part.
	partial bool
}

// hookName is how the model and the trace name a hook.
func hookName(h config.Hook) string { return handlerOf(h).Name() }

func handlerOf(h config.Hook) hook.Handler {
	return hook.Handler{Command: h.Command, Args: h.Args, URL: h.URL, Headers: h.Headers, AllowedEnvVars: h.AllowedEnvVars, Timeout: h.Timeout, FailClosed: h.FailClosed}
}

// matching returns the hooks of an event whose matcher matches subject,
// in config order.
func matching(hooks []config.Hook, subject string) []config.Hook {
	var out []config.Hook
	for _, h := range hooks {
		if h.Matches(subject) {
			out = append(out, h)
		}
	}
	return out
}

// hookRunner runs hooks in the workspace, under the host's guard; HTTP
// hooks reach loopback and what [sandbox.network] allows.
func (h *Host) hookRunner() *hook.Runner {
	r := &hook.Runner{
		Dir:    h.opts.Workspace,
		Env:    append(os.Environ(), "RIOT_PROJECT_DIR="+h.opts.Workspace, "CLAUDE_PROJECT_DIR="+h.opts.Workspace),
		Getenv: os.Getenv,
	}
	if h.opts.HookGuard != nil {
		r.Guard = h.opts.HookGuard
	}
	if pol, err := egressPolicy(h.cfg.Sandbox.Network); err == nil {
		r.Network = hook.LoopbackOr(pol)
	} else {
		h.log.Warn("HTTP hooks reach nothing: the network policy does not parse", "error", err)
	}
	return r
}

// runHooks runs hooks in parallel on one input and returns their runs in
// config order, having told the user what each said for the user. The
// async ones are left running in the background (runAsync), without a
// run.
func (h *Host) runHooks(ctx context.Context, event string, hooks []selectedHook, in hookInput) []hookRun {
	if len(hooks) == 0 {
		return nil
	}
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
	r := h.hookRunner()
	runs := make([]hookRun, 0, len(hooks))
	for _, hk := range hooks {
		if hk.Async {
			h.runAsync(ctx, event, hk.Hook, r, stdin)
			continue
		}
		runs = append(runs, hookRun{hook: hk.Hook, partial: hk.partial})
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i].res = r.Run(ctx, handlerOf(runs[i].hook), stdin)
		}()
	}
	wg.Wait()
	for _, run := range runs {
		h.tellUser(event, run)
	}
	return runs
}

// tellUser gives the user, never the model, what a run says for the user:
// its systemMessage, its failure, its plain output (in the log, unless
// suppressOutput).
func (h *Host) tellUser(event string, run hookRun) {
	name, src := hookName(run.hook), run.hook.Source.String()
	switch run.res.Status {
	case hook.Failed:
		h.log.Warn(fmt.Sprintf("the %s hook %s failed (%s); it is ignored", event, name, run.res.Reason), "source", src)
	case hook.Done, hook.Blocked, hook.Cancelled:
	}
	o := run.res.Output
	if msg := strings.TrimSpace(o.SystemMessage); msg != "" {
		h.warnUser(fmt.Sprintf("the %s hook %s says: %s", event, name, clip(msg, 2000)))
	}
	if run.res.Plain != "" && !o.SuppressOutput {
		h.log.Debug("hook output", "event", event, "hook", name, "output", clip(run.res.Plain, 2000))
	}
}

// fail turns a run whose answer is no valid answer to its event into a
// failure, told to the user; a fail_closed hook's blocks.
func (h *Host) fail(event string, run hookRun, why string) hookRun {
	run.res = hook.Fail(handlerOf(run.hook), why)
	h.tellUser(event, hookRun{hook: run.hook, res: hook.Result{Status: run.res.Status, Reason: why}})
	return run
}

// hookStop is a hook's continue: false, which stops the rest of the turn.
type hookStop struct {
	event, hook, reason string
}

// stopOf is the stop of the first run that asks for one.
func stopOf(event string, runs []hookRun) *hookStop {
	for _, r := range runs {
		if stop, why := r.res.Output.Stops(); stop {
			return &hookStop{event: event, hook: hookName(r.hook), reason: why}
		}
	}
	return nil
}

// cause is the turn's cancellation cause for a stop on call c.
func (s *hookStop) cause(use ToolUse) *cascadeCause {
	why := s.reason
	if why == "" {
		why = "it gave no reason"
	}
	return &cascadeCause{toolcall.TurnStop{ID: use.ID, Tool: use.Name, Cause: strings.TrimSuffix(why, "."), Hook: "the " + s.event + " hook " + s.hook}}
}

// message is the result text of the call on which a hook stopped the turn
// before it ran.
func (s *hookStop) message() string {
	why := s.reason
	if why == "" {
		why = "it gave no reason"
	}
	return fmt.Sprintf("Not run: the %s hook %s stopped this turn: %s. Nothing more of this turn runs; tell the user, and wait for them before you go on.", s.event, s.hook, strings.TrimSuffix(why, "."))
}

// preHooks is the combined answer of a call's PreToolUse hooks: deny over
// ask over defer over allow, and the rewritten input if one hook gave one.
// riot's defer hands the call to the chain, a weaker answer than Claude
// Code's (which pauses for the SDK's host), so an ask outranks it; like
// Claude Code's, it outranks another hook's allow.
type preHooks struct {
	verdict *permission.HookVerdict
	updated json.RawMessage
	// conflict is set when hooks rewrote the input in different ways.
	conflict string
	stop     *hookStop
	reports  []HookReport
}

// preVerdict reads one PreToolUse run: its verdict ("" for none), reason
// and rewritten input.
func (h *Host) preVerdict(run hookRun) (hookRun, string, string, json.RawMessage) {
	switch run.res.Status {
	case hook.Blocked:
		return run, "deny", run.res.Reason, nil
	case hook.Failed, hook.Cancelled:
		return run, "failed", run.res.Reason, nil
	case hook.Done:
	}
	o := run.res.Output
	var updated json.RawMessage
	if s := o.Specific; s != nil {
		if hook.Present(s.UpdatedInput) {
			updated = s.UpdatedInput
		}
		switch s.PermissionDecision {
		case "allow", "ask", "deny", "defer":
			return run, s.PermissionDecision, s.PermissionDecisionReason, updated
		case "":
		default:
			run = h.fail("PreToolUse", run, fmt.Sprintf("its permissionDecision %q is none of allow, deny, ask and defer", s.PermissionDecision))
			return h.preVerdict(run)
		}
	}
	switch o.Decision {
	case "":
	case "block":
		return run, "deny", o.Reason, updated
	case "approve":
		return run, "allow", o.Reason, updated
	default:
		run = h.fail("PreToolUse", run, fmt.Sprintf("its decision %q is neither approve nor block", o.Decision))
		return h.preVerdict(run)
	}
	return run, "", "", updated
}

// preToolUse runs the PreToolUse hooks of a prepared call.
func (h *Host) preToolUse(ctx context.Context, c *call) preHooks {
	var ph preHooks
	use := c.use
	hooks := h.hooksFor("PreToolUse", use.Name, func() permission.Request { return h.request(ctx, c, nil) })
	runs := h.runHooks(ctx, "PreToolUse", hooks, hookInput{ToolName: use.Name, ToolInput: use.Input, ToolUseID: use.ID})
	rank := map[string]int{"allow": 1, "defer": 2, "ask": 3, "deny": 4}
	var best, rewriter *hookRun
	var bestVerdict, bestReason string
	for i := range runs {
		run, verdict, reason, updated := h.preVerdict(runs[i])
		if verdict == "allow" && run.partial {
			verdict, reason = "", partialAllow(run)
		}
		runs[i] = run
		r := &runs[i]
		v := verdict
		if v == "" {
			v = "none"
		}
		ph.reports = append(ph.reports, HookReport{Event: "PreToolUse", Hook: hookName(r.hook), Source: r.hook.Source, Verdict: v, Reason: reason})
		if rank[verdict] > 0 && (best == nil || rank[verdict] > rank[bestVerdict]) {
			best, bestVerdict, bestReason = r, verdict, reason
		}
		if updated == nil {
			continue
		}
		if rewriter != nil && !jsonEqual(ph.updated, updated) {
			ph.conflict = fmt.Sprintf("The PreToolUse hooks %s and %s rewrote this call's input in different ways, so riot runs neither version. Tell the user to make the hooks agree.", hookName(rewriter.hook), hookName(r.hook))
		}
		if rewriter == nil {
			rewriter, ph.updated = r, updated
		}
	}
	ph.stop = stopOf("PreToolUse", runs)
	if best != nil && bestVerdict != "defer" {
		b := map[string]permission.Behavior{"allow": permission.Allow, "ask": permission.Ask, "deny": permission.Deny}[bestVerdict]
		ph.verdict = &permission.HookVerdict{Behavior: b, Hook: hookName(best.hook), Reason: bestReason}
	}
	if bestVerdict == "deny" {
		ph.updated = nil
	}
	return ph
}

// permissionRequest runs the PermissionRequest hooks of a call the chain
// would ask the user about. A hook answers in the user's place: decided
// is false when none did, and the user (or the prompter) is asked. Deny
// wins over allow; an allow with updatedPermissions adds its allow rules
// to the session, as the user's "allow for the session" does. stop is a
// hook's continue: false, or a deny's interrupt.
func (h *Host) permissionRequest(ctx context.Context, req permission.Request, d permission.Decision) (_ permission.Decision, decided bool, stop *hookStop) {
	hooks := h.hooksFor("PermissionRequest", req.Tool, func() permission.Request { return req })
	if len(hooks) == 0 {
		return d, false, nil
	}
	in := hookInput{ToolName: req.Tool, ToolInput: req.Input}
	if len(d.Suggestions) > 0 {
		s := permissionSuggestion{Type: "addRules", Behavior: "allow", Destination: "session"}
		for _, rule := range d.Suggestions {
			name, content, _ := strings.Cut(strings.TrimSuffix(rule, ")"), "(")
			s.Rules = append(s.Rules, hook.Rule{ToolName: name, RuleContent: content})
		}
		in.PermissionSuggestions = []permissionSuggestion{s}
	}
	runs := h.runHooks(ctx, "PermissionRequest", hooks, in)
	stop = stopOf("PermissionRequest", runs)
	var allow, deny *hookRun
	var denyWhy string
	for i := range runs {
		r := &runs[i]
		var pd *hook.PermissionDecision
		if s := r.res.Output.Specific; r.res.Status == hook.Done && s != nil {
			pd = s.Decision
		}
		switch {
		case r.res.Status == hook.Blocked:
			if deny == nil {
				deny, denyWhy = r, r.res.Reason
			}
		case pd == nil:
		case pd.Behavior == "deny":
			if deny == nil {
				deny, denyWhy = r, pd.Message
			}
			if pd.Interrupt && stop == nil {
				stop = &hookStop{event: "PermissionRequest", hook: hookName(r.hook), reason: pd.Message}
			}
		case pd.Behavior == "allow" && hook.Present(pd.UpdatedInput):
			// The input was judged as it is; a rewrite belongs before
			// the chain, in PreToolUse.
			*r = h.fail("PermissionRequest", *r, "it allowed with updatedInput, which riot does not take from a PermissionRequest hook; rewrite inputs in a PreToolUse hook")
			if r.res.Status == hook.Blocked && deny == nil {
				deny, denyWhy = r, r.res.Reason
			}
		case pd.Behavior == "allow" && r.partial:
			h.log.Warn(partialAllow(*r), "source", r.hook.Source.String())
		case pd.Behavior == "allow":
			if allow == nil {
				allow = r
			}
		default:
			*r = h.fail("PermissionRequest", *r, fmt.Sprintf("its decision's behavior %q is neither allow nor deny", pd.Behavior))
			if r.res.Status == hook.Blocked && deny == nil {
				deny, denyWhy = r, r.res.Reason
			}
		}
	}
	switch {
	case deny != nil:
		why := strings.TrimSuffix(strings.TrimSpace(denyWhy), ".")
		if why == "" {
			why = "it gave no reason"
		}
		d.Behavior, d.ByUser = permission.Deny, false
		d.Step, d.Rule = permission.StepDenyRule, nil
		d.Check = "the PermissionRequest hook " + hookName(deny.hook)
		d.Reason = fmt.Sprintf("The PermissionRequest hook %s refused this call in the user's place: %s. Do not try to get around it; ask the user how to proceed if you need it.", hookName(deny.hook), why)
		return d, true, stop
	case allow != nil:
		d.Behavior, d.ByUser = permission.Allow, true
		d.Reason = fmt.Sprintf("The PermissionRequest hook %s allowed this call in the user's place.", hookName(allow.hook))
		h.grantHookRules(allow)
		return d, true, stop
	}
	return d, false, stop
}

// grantHookRules adds to the session the allow rules an allowing
// PermissionRequest hook gave in updatedPermissions, whatever destination
// it named: riot writes config files only on a person's "always".
func (h *Host) grantHookRules(run *hookRun) {
	pd := run.res.Output.Specific.Decision
	for _, u := range pd.UpdatedPermissions {
		if u.Type != "addRules" || (u.Behavior != "" && u.Behavior != "allow") {
			h.log.Warn(fmt.Sprintf("the PermissionRequest hook %s asked for a permission update riot does not make (%s %s); riot adds only allow rules, for the session", hookName(run.hook), u.Type, u.Behavior))
			continue
		}
		for _, r := range u.Rules {
			if err := h.policy.Grant(r.String()); err != nil {
				h.log.Warn(fmt.Sprintf("the PermissionRequest hook %s gave the rule %q, which riot cannot read; it is not granted", hookName(run.hook), r.String()), "error", err)
			}
		}
	}
}

// asking is ctx carrying the Notification hooks of kind, which the
// prompter runs (permission.Asking) when it puts the question to the
// user. They run in the background, beside the question: riot waits for
// the user, not for them, and Close waits for them.
func (h *Host) asking(ctx context.Context, kind, message string) context.Context {
	if len(h.cfg.Hooks.Notification) == 0 {
		return ctx
	}
	return permission.WithAsking(ctx, func() {
		hooks := h.hooksFor("Notification", kind, nil)
		if len(hooks) == 0 {
			return
		}
		h.hookSel.async.Add(1)
		go func() {
			defer h.hookSel.async.Done()
			h.runHooks(context.WithoutCancel(ctx), "Notification", hooks, hookInput{Message: message, NotificationType: kind})
		}()
	})
}

// postToolUse runs a call's PostToolUse hooks when it ran and succeeded:
// a block marks the result failed, with the hook's reason after the
// content; additional context is appended for the model; an
// updatedToolOutput replaces what the model sees (the spill of the
// original included); continue: false stops the rest of the turn.
func (h *Host) postToolUse(ctx context.Context, c *call) {
	if c.result.Status != StatusOK || ctx.Err() != nil {
		return
	}
	hooks := h.hooksFor("PostToolUse", c.use.Name, func() permission.Request { return c.req })
	if len(hooks) == 0 {
		return
	}
	resp := &hookToolResponse{Status: string(c.result.Status), IsError: false, Content: c.result.Text(), UI: c.result.UI}
	if c.result.Spill != nil {
		resp.SpillPath = c.result.Spill.Path
	}
	runs := h.runHooks(ctx, "PostToolUse", hooks, hookInput{ToolName: c.use.Name, ToolInput: c.use.Input, ToolUseID: c.use.ID, ToolResponse: resp})
	if ctx.Err() != nil {
		return
	}
	var notes []string
	var replaced *string
	var replacer config.Hook
	flag := func(r hookRun, reason string) {
		c.result.Status = StatusFailed
		reason = strings.TrimSuffix(strings.TrimSpace(reason), ".")
		if reason == "" {
			reason = "it gave no reason"
		}
		notes = append(notes, fmt.Sprintf("The PostToolUse hook %s flagged this result: %s. Address it before you go on.", hookName(r.hook), reason))
		if c.message == "" {
			c.message = "the PostToolUse hook " + hookName(r.hook) + " flagged the result"
		}
	}
	for _, r := range runs {
		switch r.res.Status {
		case hook.Blocked:
			flag(r, r.res.Reason)
			continue
		case hook.Failed, hook.Cancelled:
			continue
		case hook.Done:
		}
		o := r.res.Output
		if s := o.Specific; s != nil {
			if a := strings.TrimSpace(s.AdditionalContext); a != "" {
				notes = append(notes, a)
			}
			out := s.UpdatedToolOutput
			if !hook.Present(out) {
				out = s.UpdatedMCPToolOutput
			}
			if hook.Present(out) {
				text := hook.ToolOutputText(out)
				if replaced != nil && *replaced != text {
					// Neither version is shown: each hook may hide what the
					// other's keeps (a secret, say).
					c.result.Status = StatusFailed
					bad := fmt.Sprintf("The PostToolUse hooks %s and %s replaced this call's output in different ways, so riot shows neither, nor the original. Tell the user to make the hooks agree.", hookName(replacer), hookName(r.hook))
					h.replaceOutput(c, bad)
					c.message = "the PostToolUse hooks replaced the output in different ways"
					return
				}
				replaced, replacer = &text, r.hook
			}
		}
		switch o.Decision {
		case "":
		case "block":
			flag(r, o.Reason)
		default:
			h.fail("PostToolUse", r, fmt.Sprintf("its decision %q is not block", o.Decision))
		}
	}
	if replaced != nil {
		h.replaceOutput(c, *replaced)
	}
	if len(notes) > 0 {
		appendText(&c.result, strings.Join(notes, "\n"))
	}
	if s := stopOf("PostToolUse", runs); s != nil {
		c.stop = s.cause(c.use)
	}
}

// replaceOutput puts text in place of everything the call's tool
// produced. Its spill file goes too: the model may Read the results
// directory without asking, and a hook that replaced the output may have
// done so to keep it from the model.
func (h *Host) replaceOutput(c *call, text string) {
	if c.col != nil && c.col.spilled() {
		if err := os.Remove(c.col.spillPath); err != nil && !os.IsNotExist(err) {
			h.log.Error("cannot remove the spill of an output a PostToolUse hook replaced", "path", c.col.spillPath, "error", err)
		}
	}
	c.col = nil
	c.result.Spill = nil
	c.result.Content = []Block{{Type: "text", Text: text}}
}

// postToolUseFailure runs the PostToolUseFailure hooks of a call that did
// not succeed (failed, denied or cancelled) on its result r: their
// additional context, and a block's reason, follow its text for the
// model. It returns a hook's stop.
func (h *Host) postToolUseFailure(ctx context.Context, c *call, use ToolUse, r *ToolResult) *cascadeCause {
	if r.Status == StatusOK {
		return nil
	}
	hooks := h.hooksFor("PostToolUseFailure", use.Name, func() permission.Request { return failedRequest(c, use) })
	if len(hooks) == 0 {
		return nil
	}
	interrupt := r.Status == StatusCancelled
	runs := h.runHooks(ctx, "PostToolUseFailure", hooks, hookInput{ToolName: use.Name, ToolInput: use.Input, ToolUseID: use.ID,
		Error: r.Text(), IsInterrupt: &interrupt, Status: string(r.Status)})
	var notes []string
	for _, run := range runs {
		o := run.res.Output
		switch {
		case run.res.Status == hook.Blocked && strings.TrimSpace(run.res.Reason) != "":
			notes = append(notes, fmt.Sprintf("The PostToolUseFailure hook %s says: %s", hookName(run.hook), strings.TrimSpace(run.res.Reason)))
		case run.res.Status != hook.Done:
		case o.Decision == "block" && strings.TrimSpace(o.Reason) != "":
			notes = append(notes, fmt.Sprintf("The PostToolUseFailure hook %s says: %s", hookName(run.hook), strings.TrimSpace(o.Reason)))
		}
		if s := o.Specific; run.res.Status == hook.Done && s != nil && strings.TrimSpace(s.AdditionalContext) != "" {
			notes = append(notes, strings.TrimSpace(s.AdditionalContext))
		}
	}
	if len(notes) > 0 {
		appendText(r, strings.Join(notes, "\n"))
	}
	if s := stopOf("PostToolUseFailure", runs); s != nil {
		return s.cause(use)
	}
	return nil
}

// failureHooks runs a finished call's PostToolUseFailure hooks once, when
// it failed or was denied; a cancelled call's wait for the turn's end,
// where its result says why (afterTurnHooks).
func (h *Host) failureHooks(ctx context.Context, c *call) {
	if c.failureHooked || !c.done || (c.result.Status != StatusFailed && c.result.Status != StatusDenied) {
		return
	}
	c.failureHooked = true
	if stop := h.postToolUseFailure(ctx, c, c.use, &c.result); stop != nil && c.stop == nil {
		c.stop = stop
	}
}

// afterTurnHooks runs, once the turn is over, the PostToolUseFailure hooks
// of the results that did not succeed and whose hooks have not run: the
// calls the turn cancelled or never started. They run even when the
// caller cancelled the turn (is_interrupt says so), within their own
// timeouts.
func (h *Host) afterTurnHooks(ctx context.Context, calls []*call, results []ToolResult) {
	if len(h.cfg.Hooks.PostToolUseFailure) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for i := range results {
		if results[i].Status == StatusOK || (i < len(calls) && calls[i] != nil && calls[i].failureHooked && results[i].Status == calls[i].result.Status) {
			continue
		}
		use := ToolUse{ID: results[i].ToolUseID, Name: results[i].Name}
		var c *call
		if i < len(calls) && calls[i] != nil {
			c, use = calls[i], calls[i].use
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = h.postToolUseFailure(ctx, c, use, &results[i]) // the turn is over: a stop has nothing left to stop
		}()
	}
	wg.Wait()
}

// sessionHooks is the state of a host's SessionStart and SessionEnd.
type sessionHooks struct {
	startOnce sync.Once
	mu        sync.Mutex
	started   bool
}

// StartSession runs the SessionStart hooks, once per host: the CLI's
// invocations (with --session, a resumed session), a session host and
// `riot mcp` call it when they begin serving, and RunTurn on its first
// turn. Additional context reaches the model with the next turn's first
// result; SessionEnd runs at Close.
func (h *Host) StartSession(ctx context.Context) {
	h.hookState.startOnce.Do(func() {
		h.hookState.mu.Lock()
		h.hookState.started = true
		h.hookState.mu.Unlock()
		source := "startup"
		if p := h.state.Path(); p != "" {
			if _, err := os.Stat(p); err == nil {
				source = "resume"
			}
		}
		runs := h.runHooks(ctx, "SessionStart", h.hooksFor("SessionStart", source, nil), hookInput{Source: source})
		var notes []string
		for _, r := range runs {
			if s := r.res.Output.Specific; r.res.Status == hook.Done && s != nil && strings.TrimSpace(s.AdditionalContext) != "" {
				notes = append(notes, strings.TrimSpace(s.AdditionalContext))
			}
		}
		if len(notes) > 0 {
			h.notes.mu.Lock()
			h.notes.model = append(h.notes.model, notes...)
			h.notes.mu.Unlock()
		}
	})
}

// endSession runs the SessionEnd hooks of a started session, from Close.
func (h *Host) endSession() {
	h.hookState.mu.Lock()
	started := h.hookState.started
	h.hookState.started = false
	h.hookState.mu.Unlock()
	if started {
		h.runHooks(context.Background(), "SessionEnd", h.hooksFor("SessionEnd", "other", nil), hookInput{Reason: "other"})
	}
}

// failedRequest is a finished call as a hook's if judges it: as the chain
// judged it, or, for a call that never reached the chain (its input was
// refused, say), its tool and input alone.
func failedRequest(c *call, use ToolUse) permission.Request {
	if c != nil && c.req.Tool != "" {
		return c.req
	}
	return permission.Request{Tool: use.Name, Input: use.Input}
}

// partialAllow says why a hook's allow counts for nothing: its if matched
// only part of the call.
func partialAllow(run hookRun) string {
	return fmt.Sprintf("the hook %s allowed a call its if %q matches only in part, so its allow counts for nothing", hookName(run.hook), run.hook.If)
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
