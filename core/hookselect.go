package core

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/hook"
)

// Which hooks run on an event: those whose matcher matches its subject,
// on tool events those whose `if` the call matches, and a `once` hook only
// the first time. An `async` hook runs in the background: the event does
// not wait for it, and what it says reaches the user at once and the model
// with the next turn's first result.

// selectedHook is a hook chosen to run on one event.
type selectedHook struct {
	config.Hook
	// partial: its if matched the call only in part (one of a command's
	// parts, one of its paths), so it does not speak for the whole call:
	// its allow counts for nothing.
	partial bool
}

// hookSelection is a host's state of the hooks' if, once and async.
type hookSelection struct {
	// conds are the compiled ifs of the tool events' hooks, by text, and
	// in config order.
	conds     map[string]*permission.Condition
	condOrder []*permission.Condition
	mu        sync.Mutex
	// ran are the once hooks that have run, by onceKey.
	ran map[string]bool
	// async are the async hooks running; Close waits for them, each
	// within its timeout.
	async sync.WaitGroup
}

// compileHookConditions compiles the if of every tool event's hook with
// the policy, so that a malformed one stops the host with where it was
// written, as a malformed permission rule does.
func (h *Host) compileHookConditions() error {
	h.hookSel.conds = map[string]*permission.Condition{}
	for _, ev := range config.HookEvents() {
		if !config.ToolEvent(ev) {
			continue
		}
		for _, hk := range *h.cfg.Hooks.Event(ev) {
			text := strings.TrimSpace(hk.If)
			if text == "" || h.hookSel.conds[text] != nil {
				continue
			}
			cond, err := h.policy.Condition(config.Rule{Text: text, Source: hk.Source})
			if err != nil {
				return err
			}
			h.hookSel.conds[text] = cond
			h.hookSel.condOrder = append(h.hookSel.condOrder, cond)
		}
	}
	return nil
}

// hookConditionProblems are the hooks' ifs that name a parameter a tool
// does not take (permission.Condition.CheckTool): such a hook runs on
// every call of the tool and its allow counts for nothing.
func (h *Host) hookConditionProblems(tool string, params func() []string) []error {
	var out []error
	for _, cond := range h.hookSel.condOrder {
		if err := cond.CheckTool(tool, params); err != nil {
			out = append(out, hookIfProblem{err})
		}
	}
	return out
}

// hookIfProblem is a hook's if that does not fit its tool, told apart
// from a permission rule's problem by what it does until fixed.
type hookIfProblem struct{ error }

func (p hookIfProblem) Unwrap() error { return p.error }

// hooksFor selects the hooks of event to run on subject (a tool's name,
// a notification's type, a session's source or reason). On tool events
// req is the call as the chain judges it, asked for only when a hook has
// an if.
func (h *Host) hooksFor(event string, subject string, req func() permission.Request) []selectedHook {
	var out []selectedHook
	var call *permission.Prepared // resolved once for all the hooks' ifs
	for _, hk := range *h.cfg.Hooks.Event(event) {
		if !hk.Matches(subject) {
			continue
		}
		sel := selectedHook{Hook: hk}
		if text := strings.TrimSpace(hk.If); text != "" && req != nil {
			cond := h.hookSel.conds[text]
			if cond == nil { // compileHookConditions refused the host
				continue
			}
			if call == nil {
				call = h.policy.Prepare(req())
			}
			matches, covers := call.Match(cond)
			if !matches {
				continue
			}
			sel.partial = !covers
		}
		if hk.Once && !h.claimOnce(event, hk) {
			continue
		}
		out = append(out, sel)
	}
	return out
}

// claimOnce reports whether a once hook has not run yet on this host, and
// marks it run.
func (h *Host) claimOnce(event string, hk config.Hook) bool {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", event, hk.Source, hk.Matcher, hk.If, hookName(hk))
	s := &h.hookSel
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ran[key] {
		return false
	}
	if s.ran == nil {
		s.ran = map[string]bool{}
	}
	s.ran[key] = true
	return true
}

// runAsync runs an async hook in the background, past the event and its
// turn: its systemMessage and failures reach the user as a hook's do; its
// additionalContext, and the reason of its exit 2, reach the model with
// the next turn's first result. Its decision counts for nothing.
func (h *Host) runAsync(ctx context.Context, event string, hk config.Hook, r *hook.Runner, stdin []byte) {
	s := &h.hookSel
	s.async.Add(1)
	go func() {
		defer s.async.Done()
		run := hookRun{hook: hk, res: r.Run(context.WithoutCancel(ctx), handlerOf(hk), stdin)}
		// The model's note is queued before the user is told, so that a
		// turn after the user heard of the hook carries it.
		defer h.tellUser(event, run)
		var note string
		switch o := run.res.Output; {
		case run.res.Status == hook.Blocked && strings.TrimSpace(run.res.Reason) != "":
			note = strings.TrimSpace(run.res.Reason)
		case run.res.Status == hook.Done && o.Specific != nil:
			note = strings.TrimSpace(o.Specific.AdditionalContext)
		}
		if note == "" {
			return
		}
		h.notes.mu.Lock()
		h.notes.model = append(h.notes.model, fmt.Sprintf("The %s hook %s, run in the background, says: %s", event, hookName(hk), note))
		h.notes.mu.Unlock()
	}()
}
