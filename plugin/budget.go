package plugin

// DefaultBudgetChars is the result budget of a tool that does not set one.
const DefaultBudgetChars = 50_000

// Budget is the largest model content, in characters, that the host passes
// to the model whole; beyond it the host spills the content to a file and
// the model gets a preview.
type Budget struct {
	unlimited bool
	chars     int
}

// Limit is a budget of n characters.
func Limit(n int) Budget { return Budget{chars: n} }

// Unlimited is the budget of a tool whose results are never spilled: a
// read-like tool, or one that already truncates its own output.
func Unlimited() Budget { return Budget{unlimited: true} }

// IsUnlimited reports whether the budget is Unlimited.
func (b Budget) IsUnlimited() bool { return b.unlimited }

// Chars is the limit of a limited budget.
func (b Budget) Chars() int { return b.chars }
