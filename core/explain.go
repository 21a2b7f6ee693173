package core

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riot-tools/riot/core/permission"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
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
	Sandbox *toolv1.Sandbox
	// SandboxStatus says whether the sandbox is on, and why not.
	SandboxStatus SandboxStatus
}

// Explain resolves, validates and prepares a call, then runs the
// permission chain on it and returns every step, without running the call
// or asking anyone.
func (h *Host) Explain(ctx context.Context, toolName string, input json.RawMessage) Explanation {
	use := ToolUse{ID: "explain", Name: toolName, Input: input}
	ex := Explanation{Tool: toolName}
	if _, ok := h.byName[toolName]; ok && h.policy.Hidden(toolName) {
		ex.Request = permission.Request{Tool: toolName}
		ex.Decision = h.policy.Decide(ctx, ex.Request)
		return ex
	}
	if r := h.resolve(use); r != nil {
		ex.Invalid = r.Text()
		return ex
	}
	t := h.byName[toolName]
	stub, gen, err := t.plugin.conn(ctx)
	if err != nil {
		ex.Invalid = h.connError(ctx, use, err)
		return ex
	}
	prep, err := stub.Prepare(ctx, &toolv1.PrepareRequest{Tool: toolName, CallId: use.ID, Input: input, Context: h.callContext(t.plugin, time.Time{})})
	if err != nil {
		ex.Invalid = fmt.Sprintf("The %s tool stopped unexpectedly (%s) while checking this call.", toolName, t.plugin.crashed(gen))
		return ex
	}
	if prep.GetRejected() != "" {
		ex.Invalid = prep.GetRejected()
		return ex
	}
	ex.Describe = prep.GetDescribe()
	ex.Request = permissionRequest(toolName, prep)
	ex.Decision = h.policy.Decide(ctx, ex.Request)
	ex.SandboxStatus = h.SandboxStatus(ctx)
	if ex.Decision.Behavior != permission.Deny {
		ex.Sandbox = h.explainSandbox(ctx, prep.GetReadOnly(), ex.Request, ex.Decision)
	}
	return ex
}
