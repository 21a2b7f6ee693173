package core

import (
	"context"
	"encoding/json"

	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/shared"
)

// Explanation is the permission chain's trace for one call, without
// running it.
type Explanation struct {
	Tool     string
	Describe string
	// Invalid is why the call would fail before the chain, if it would.
	Invalid  string
	Request  permission.Request
	Decision permission.Decision
	// Sandbox is the kernel sandbox profile the call would run in, were it
	// allowed; nil when calls run unsandboxed (see SandboxStatus).
	Sandbox *shared.SandboxProfile
	// SandboxStatus says whether the sandbox is on, and why not.
	SandboxStatus SandboxStatus
	// NoSandbox says why the call gets no sandbox whatever SandboxStatus
	// says (its plugin starts no processes, or [sandbox] excluded_commands
	// lists its commands), or "".
	NoSandbox string
	// Network is the network policy the call's commands would get; nil
	// for a tool that starts no processes.
	Network *NetworkPolicy
	// Hooks are what each matching PreToolUse hook said, in config order;
	// empty when hooks were skipped or none matched.
	Hooks []HookReport
	// Input is the input the chain judged: a hook's rewrite, if one gave one.
	Input json.RawMessage
}

// ExplainOptions tune Explain.
type ExplainOptions struct {
	// SkipHooks leaves the PreToolUse hooks out, which Explain otherwise
	// runs, since what they say is part of the decision.
	SkipHooks bool
}

// Explain resolves, validates and prepares a call, runs its PreToolUse
// hooks, then runs the permission chain on it and returns every step,
// without running the call or asking anyone.
func (h *Host) Explain(ctx context.Context, toolName string, input json.RawMessage, opts ExplainOptions) Explanation {
	use := ToolUse{ID: "explain", Name: toolName, Input: input}
	ex := Explanation{Tool: toolName, Input: input}
	if _, ok := h.lookup(toolName); ok && h.policy.Hidden(toolName) {
		ex.Request = permission.Request{Tool: toolName}
		ex.Decision = h.policy.Decide(ctx, ex.Request)
		return ex
	}
	if r := h.resolve(use); r != nil {
		ex.Invalid = r.Text()
		return ex
	}
	t, _ := h.lookup(toolName)
	c := &call{use: use, tool: t}
	if !h.prepareRPC(ctx, c) {
		ex.Invalid = c.result.Text()
		return ex
	}
	var verdict *permission.HookVerdict
	if !opts.SkipHooks {
		hooks := h.preToolUse(ctx, c)
		ex.Hooks = hooks.reports
		verdict = hooks.verdict
		switch {
		case hooks.conflict != "":
			ex.Invalid = hooks.conflict
			return ex
		case hooks.updated != nil && !h.rewrite(ctx, c, hooks.updated, hooks.verdict):
			ex.Invalid = c.result.Text()
			return ex
		}
		ex.Input = c.use.Input
	}
	ex.Describe = c.prep.Describe
	ex.Request = h.request(ctx, c, verdict)
	ex.Decision = h.policy.Decide(ctx, ex.Request)
	ex.SandboxStatus = h.SandboxStatus(ctx)
	ex.NoSandbox = noSandboxReason(t)
	if ex.NoSandbox == "" && h.excluded(ex.Request) {
		ex.NoSandbox = excludedReason
	}
	if ex.NoSandbox == "" && ex.Decision.Behavior != permission.Deny {
		ex.Sandbox = h.explainSandbox(ctx, c.prep.ReadOnly, ex.Request, ex.Decision)
	}
	if !t.plugin.startsNoProcesses() {
		np := h.explainNetwork(ex.Sandbox)
		ex.Network = &np
	}
	return ex
}
