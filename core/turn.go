package core

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/riot-tools/riot/core/mcpsource"
	"github.com/riot-tools/riot/core/toolcall"
)

// cascadeCause is why a turn was cancelled, as the context's cause: a
// call of a cascading tool failed, or a hook stopped the turn.
type cascadeCause struct{ toolcall.TurnStop }

func (c *cascadeCause) Error() string { return "cascade from " + c.ID }

// RunTurn runs one assistant turn's tool calls and returns one result per
// call, in input order. Consecutive concurrency-safe calls run together,
// up to limits.max_parallel at once, their Prepares too (nextGroup); any
// other call runs alone. When a
// call of a cascading tool fails, every call of the turn not yet finished
// ends Cancelled, naming it. RunTurn never fails: every problem is a
// result.
func (h *Host) RunTurn(ctx context.Context, uses []ToolUse) []ToolResult {
	h.StartSession(ctx)
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h.startNeeded(uses)

	calls := make([]*call, len(uses))
	running := map[*call]bool{}
	var pending *call
	// Right after a call that is not concurrency-safe, the next is
	// checked alone first: in a run of such calls, checks of the calls
	// after each would all be thrown away.
	afterUnsafe := false
	for i := 0; i < len(uses) || pending != nil; {
		if tctx.Err() != nil {
			break
		}
		var group []*call
		from := i
		if pending != nil {
			group, pending = []*call{pending}, nil
		} else {
			group, pending, i = h.nextGroup(tctx, uses, calls, i, afterUnsafe)
		}
		// A hook stopped the turn on a call judged: the calls judged
		// before it run, nothing after it.
		var stop *cascadeCause
		for _, c := range calls[from:i] {
			if c != nil && c.stop != nil {
				stop, pending = c.stop, nil
				break
			}
		}
		if len(group) > 0 {
			h.runGroup(tctx, cancel, group, running)
			afterUnsafe = !group[0].concurrencySafe()
		}
		if stop != nil {
			cancel(stop)
		}
	}
	var cause *cascadeCause
	_ = errors.As(context.Cause(tctx), &cause)
	results := make([]ToolResult, len(uses))
	for i, use := range uses {
		c := calls[i]
		switch {
		case c == nil, !c.done:
			results[i] = h.cancelled(ctx, use, cause, false)
		case c.result.Status == StatusCancelled && len(c.result.Content) == 0:
			r := h.cancelled(ctx, use, cause, running[c])
			r.Describe, r.Duration = c.result.Describe, c.result.Duration
			results[i] = r
		default:
			results[i] = c.result
		}
		if c != nil {
			if stop := cmp.Or(c.stop, c.cascaded); stop != nil {
				results[i].StopsTurn = &stop.TurnStop
			}
		}
	}
	h.tellSessionState(calls, results)
	h.afterTurnHooks(ctx, calls, results)
	h.boundResults(calls, results)
	return results
}

// nextGroup prepares the calls from uses[i] on that run next: one call
// that is not concurrency-safe, or consecutive safe calls, at most
// limits.max_parallel. Their Prepare RPCs run together, at most that many
// at once; each is then judged in input order. A call found not safe after
// safe ones is returned as pending, to run alone after them; the checks
// after it are thrown away, since it may change what they see, and are
// made again once it has run. nextGroup records each judged call in calls
// and returns the index of the first call not judged.
func (h *Host) nextGroup(ctx context.Context, uses []ToolUse, calls []*call, i int, afterUnsafe bool) (group []*call, pending *call, next int) {
	limit := h.maxParallel()
	for i < len(uses) && len(group) < limit && ctx.Err() == nil {
		n := min(limit-len(group), len(uses)-i)
		if afterUnsafe && len(group) == 0 {
			n = 1
		}
		// A call checked with no group before it that is the turn's last,
		// or the only one a group may hold, runs alone whatever its
		// answer: only such a call's answer may be guessed (speculate.go).
		alone := n == 1 && len(group) == 0 && (i == len(uses)-1 || limit == 1)
		w := h.startChecks(ctx, uses[i:i+n], alone)
		stop := false
		for j := range n {
			if ctx.Err() != nil {
				stop = true
				break
			}
			checked := w.get(j)
			if checked.done && len(group) > 0 {
				// Its check ended it (its tool rejected the input, say)
				// while the calls ahead of it have not run yet: what they
				// do may change the answer (Read, then Edit of that file).
				// It is checked again once they have run; nothing of it
				// ran, and no hook saw it.
				stop = true
				break
			}
			c := h.judge(ctx, checked)
			calls[i] = c
			i++
			h.failureHooks(ctx, c)
			if c.stop != nil {
				stop = true
				break
			}
			if c.done {
				continue
			}
			if !c.concurrencySafe() {
				if len(group) == 0 {
					group = []*call{c}
				} else {
					pending = c
				}
				stop = true
				break
			}
			group = append(group, c)
		}
		w.stop()
		if stop {
			break
		}
	}
	return group, pending, i
}

// cancelled is the result of a call the turn stopped.
func (h *Host) cancelled(ctx context.Context, use ToolUse, cause *cascadeCause, wasRunning bool) ToolResult {
	switch {
	case cause != nil && wasRunning:
		return textResult(use, StatusCancelled, cause.Stopped())
	case cause != nil:
		return textResult(use, StatusCancelled, cause.NotRun())
	case wasRunning:
		return textResult(use, StatusCancelled, "Cancelled while running: the turn was stopped by the user or the agent. The call may have partially run.")
	default:
		_ = ctx
		return textResult(use, StatusCancelled, "Not run: the turn was stopped by the user or the agent before this call started.")
	}
}

// runGroup runs calls together and waits for all of them. A call alone
// runs on the caller's goroutine.
func (h *Host) runGroup(ctx context.Context, cancel context.CancelCauseFunc, group []*call, running map[*call]bool) {
	run := func(c *call) {
		h.execute(ctx, c)
		if c.retry {
			h.retry(ctx, c) // the guess was wrong: judged on the answer
		}
		if !c.unrun { // else as a call its Prepare stopped: it did not run
			h.postToolUse(ctx, c)
		}
		h.failureHooks(ctx, c)
		if c.stop != nil {
			cancel(c.stop)
			return
		}
		if c.unrun {
			return
		}
		if c.cascades && c.result.Status == StatusFailed {
			c.cascaded = &cascadeCause{toolcall.TurnStop{ID: c.use.ID, Tool: c.use.Name, Describe: c.result.Describe, Cause: causeOf(c)}}
			cancel(c.cascaded)
		}
	}
	if h.groupSeen != nil {
		h.groupSeen(group)
	}
	for _, c := range group {
		running[c] = true
	}
	if len(group) == 1 {
		run(group[0])
		return
	}
	var wg sync.WaitGroup
	for _, c := range group {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(c)
		}()
	}
	wg.Wait()
}

// causeOf is a failed call's cause in a few words: the first line of its
// message.
func causeOf(c *call) string {
	msg := c.message
	if msg == "" {
		msg = c.result.Text()
	}
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(msg), "\n", 2)[0])
	line = strings.TrimSuffix(line, ".")
	if len(line) > 1 && line[0] >= 'A' && line[0] <= 'Z' && line[1] >= 'a' && line[1] <= 'z' {
		line = strings.ToLower(line[:1]) + line[1:]
	}
	return clip(line, 200)
}

func (h *Host) maxParallel() int {
	if n := h.cfg.Limits.MaxParallel; n > 0 {
		return n
	}
	return 10
}

// startNeeded starts, in parallel and without waiting, the plugins the
// turn's calls need, so that they start while calls are validated and
// each other plugin starts; and the sandbox's probe beside them when a
// call may need a sandbox: not for a turn of unknown tools and of plugins
// that start no processes.
func (h *Host) startNeeded(uses []ToolUse) {
	// Looked up once: an unknown MCP name makes lookup sync the servers.
	tools := make([]*tool, 0, len(uses))
	for _, u := range uses {
		if t, ok := h.lookup(u.Name); ok {
			tools = append(tools, t)
		}
	}
	if slices.ContainsFunc(tools, func(t *tool) bool { return !t.plugin.startsNoProcesses() }) {
		h.prestartSandboxProbe()
	}
	for _, t := range tools {
		t.plugin.prestart()
		if src, ok := t.plugin.spec.impl.(*mcpsource.Source); ok {
			src.Prestart()
		}
	}
}

// applyTurnBudget spills the largest outputs of a turn whose results
// together exceed limits.turn_budget_chars, until the turn fits. Results
// of Unlimited tools are never spilled. Only a call's output is spilled:
// what follows it in the result (its message, a hook's words, which the
// gate has bounded already) stays after the new preview.
func (h *Host) applyTurnBudget(calls []*call, results []ToolResult) {
	budget := int64(h.cfg.Limits.TurnBudgetChars)
	if budget <= 0 {
		budget = DefaultTurnBudgetChars
	}
	var total int64
	for _, r := range results {
		total += int64(len([]rune(r.Text())))
	}
	if total <= budget {
		return
	}
	var order []int
	for i, c := range calls {
		// A cancelled call's result is why it was cancelled, not its
		// output: spilling would put a preview in place of the reason. A
		// result the gate spilled is a preview already.
		if c != nil && c.col != nil && c.limited && !c.col.spilled() && !c.col.lost && c.col.text.Len() > 0 &&
			results[i].Status != StatusCancelled && results[i].Spill == nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(calls[b].col.chars - calls[a].col.chars) })
	for _, i := range order {
		if total <= budget {
			return
		}
		c := calls[i]
		blk := firstText(results[i].Content)
		body := c.col.body()
		if blk < 0 || !strings.HasPrefix(results[i].Content[blk].Text, body) {
			continue
		}
		before := int64(len([]rune(results[i].Text())))
		rest := results[i].Content[blk].Text[len(body):]
		if err := h.spillWhole(c); err != nil {
			// The collector is cut to its preview all the same, with a
			// note saying the rest could not be saved.
			h.log.Error("cannot spill a result for the turn budget", "call_id", c.use.ID, "error", err)
		}
		results[i].Content[blk].Text = c.col.body() + rest
		if c.col.spilled() && c.col.err == nil {
			results[i].Spill = &Spill{Path: c.col.spillPath, Chars: c.col.chars, Lines: c.col.lineCount(), Bytes: c.col.nbytes}
		}
		total += int64(len([]rune(results[i].Text()))) - before
	}
}

// firstText is the index of the first text block of content, or -1.
func firstText(content []Block) int {
	for i, b := range content {
		if b.Type == "text" {
			return i
		}
	}
	return -1
}

// spillWhole writes a result kept in memory to its spill file, as the
// per-call budget would have.
func (h *Host) spillWhole(c *call) error {
	col := c.col
	data := col.text.Bytes()
	col.spill()
	col.finish()
	if col.err != nil {
		return col.err
	}
	if len(data) > 0 && len(col.head) == 0 {
		return errors.New("spill wrote nothing")
	}
	if _, err := os.Stat(col.spillPath); err != nil {
		return err
	}
	return nil
}
