package remote

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/riot-tools/riot/core"
)

// linesOf is n lines of ten characters.
func linesOf(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strings.Repeat("x", 9) + "\n")
	}
	return b.String()
}

// The largest outputs are cut first, until the turn fits, a failed
// call's too (a command's output); a spilled or cancelled result, and one
// of several text blocks, keep their text.
func TestBoundTurn(t *testing.T) {
	out := func(id string, status core.Status, text string) core.ToolResult {
		return core.ToolResult{ToolUseID: id, Status: status, Content: []core.Block{{Type: "text", Text: text}}}
	}
	big, mid, small := linesOf(1000), linesOf(700), linesOf(100) // 10,000, 7,000, 1,000 characters
	results := []core.ToolResult{
		out("mid", core.StatusOK, mid), out("big", core.StatusOK, big), out("small", core.StatusOK, small),
		out("failed", core.StatusFailed, big), out("cancelled", core.StatusCancelled, big),
		{ToolUseID: "spilled", Status: core.StatusOK, Content: []core.Block{{Type: "text", Text: big}}, Spill: &core.Spill{Path: "x"}},
		{ToolUseID: "two", Status: core.StatusOK, Content: []core.Block{{Type: "text", Text: big}, {Type: "text", Text: "y"}}},
	}
	boundTurn(results, 48_000)
	cut := func(r core.ToolResult) bool {
		return strings.Contains(r.Text(), "Output cut to keep this turn within its budget")
	}
	for _, r := range results {
		want := r.ToolUseID == "big" || r.ToolUseID == "failed"
		if cut(r) != want {
			t.Errorf("%s: cut %v, want %v", r.ToolUseID, cut(r), want)
		}
	}
	// Within the budget, nothing is cut.
	results = []core.ToolResult{out("a", core.StatusOK, big), out("b", core.StatusOK, mid)}
	boundTurn(results, 17_000)
	if cut(results[0]) || cut(results[1]) {
		t.Error("a turn within its budget was cut")
	}
	// Over it, only the largest, when that is enough.
	boundTurn(results, 16_999)
	if !cut(results[0]) || cut(results[1]) {
		t.Errorf("cut %v %v, want the largest only", cut(results[0]), cut(results[1]))
	}
	if n := utf8.RuneCountInString(results[0].Text()); n > 3000 {
		t.Errorf("the cut result holds %d characters", n)
	}
	// A result a preview shows whole is not cut: the notice would only
	// add to it.
	results = []core.ToolResult{out("a", core.StatusOK, big), out("b", core.StatusOK, small)}
	boundTurn(results, 1000)
	if !cut(results[0]) || cut(results[1]) {
		t.Errorf("cut %v %v, want the large one only", cut(results[0]), cut(results[1]))
	}
	// Zero is the default budget.
	results = []core.ToolResult{out("a", core.StatusOK, strings.Repeat(big, 21))}
	boundTurn(results, 0)
	if !cut(results[0]) {
		t.Error("the default budget did not apply")
	}
}
