package toolcall

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxNameLen is the longest tool name the model APIs take: Anthropic's and
// OpenAI's tool names are both ^[a-zA-Z0-9_-]{1,64}$.
const MaxNameLen = 64

// NameProblem says why the model APIs would reject name as a tool's name,
// or "" when they take it. It is the one statement of that rule, for every
// tool source: plugins' manifests and MCP servers' lists.
func NameProblem(name string) string {
	var bad []string
	for _, r := range name {
		if !NameRune(r) {
			if q := strconv.QuoteRune(r); !slices.Contains(bad, q) {
				bad = append(bad, q)
			}
		}
	}
	switch {
	case name == "":
		return "it has no name"
	case len(bad) > 0:
		return fmt.Sprintf("its name has %s, and tool names hold only letters, digits, _ and -", strings.Join(bad, ", "))
	case len(name) > MaxNameLen:
		return fmt.Sprintf("its name is %d characters, over the %d allowed", len(name), MaxNameLen)
	}
	return ""
}

// NameRune reports whether r may be in a tool name the model APIs take.
func NameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}
