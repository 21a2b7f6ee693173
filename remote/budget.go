package remote

import (
	"slices"
	"unicode/utf8"

	"github.com/riot-tools/riot/core"
)

// boundTurn keeps a remote turn within the turn budget, as a local turn is
// kept: the session ran each call as a turn of its own, within its call's
// budget, so together they may exceed the turn's. The largest outputs are
// cut to a preview, largest first, until the turn fits (core's
// applyTurnBudget's order). The session spilled none of them (a spilled
// one is a preview already, and is left as it is), so the client holds the
// only whole copy, which the model cannot read: the notice says to run the
// call again alone. A cancelled call's text says why, and is kept, as
// the host keeps it; so is a result with more than one text block, whose
// blocks a cut would misplace.
func boundTurn(results []core.ToolResult, budget int64) {
	if budget <= 0 {
		budget = core.DefaultTurnBudgetChars
	}
	var total int64
	size := make([]int64, len(results))
	for i, r := range results {
		size[i] = int64(utf8.RuneCountInString(r.Text()))
		total += size[i]
	}
	if total <= budget {
		return
	}
	var order []int
	for i, r := range results {
		if r.Status != core.StatusCancelled && r.Spill == nil && textBlocks(r.Content) == 1 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(size[b] - size[a]) })
	for _, i := range order {
		if total <= budget {
			return
		}
		k := slices.IndexFunc(results[i].Content, func(b core.Block) bool { return b.Type == "text" })
		cut := core.CutToTurnBudget(results[i].Content[k].Text)
		after := size[i] - int64(utf8.RuneCountInString(results[i].Content[k].Text)) + int64(utf8.RuneCountInString(cut))
		if after >= size[i] {
			continue // within a preview already: cutting adds only the notice
		}
		results[i].Content[k].Text = cut
		total += after - size[i]
	}
}

// textBlocks counts the text blocks of content.
func textBlocks(content []core.Block) int {
	n := 0
	for _, b := range content {
		if b.Type == "text" {
			n++
		}
	}
	return n
}
