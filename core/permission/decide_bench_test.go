package permission

import (
	"context"
	"testing"

	"github.com/riot-tools/riot/config"
)

// BenchmarkDecide is the chain for a read-only call that passes every step
// to the mode: what a warm no-op call pays for its decision.
func BenchmarkDecide(b *testing.B) {
	p, err := New(Config{
		Roots: []string{b.TempDir()}, Home: b.TempDir(),
		Allow: []config.Rule{{Text: "Bash(make:*)"}, {Text: "Read(./src/**)"}},
		Deny:  []config.Rule{{Text: "Read(./.env)"}, {Text: "Bash(rm -rf:*)"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Tool: "Noop", ReadOnly: true, ToolBehavior: ToolPassthrough}
	for b.Loop() {
		if d := p.Decide(context.Background(), req); d.Behavior != Allow {
			b.Fatal(d.Reason)
		}
	}
}
