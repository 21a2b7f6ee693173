package bench

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
)

// BenchmarkGrepGOROOT searches $(go env GOROOT)/src for the three patterns
// of the Grep issue, files_with_matches, three ways: a warm Grep call
// through core.Host (the plugin already started, as in an agent's session),
// `rg -l`, and `grep -rlE`, each run as a whole process. Compare with
// benchstat -col /impl.
func BenchmarkGrepGOROOT(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	patterns := []struct{ name, re, grepFlags, grepRE string }{
		{"literal", `func NewServer`, "-rlE", `func NewServer`},
		{"inner_literal", `[A-Z][a-z]+Transport\b`, "-rlE", `[A-Z][a-z]+Transport\b`},
		{"fold_alternation", `(?i)(deadline|timeout) exceeded`, "-rliE", `(deadline|timeout) exceeded`},
	}
	h := hostWith(b, bypass, builtin("grep"))
	for _, p := range patterns {
		input, _ := json.Marshal(map[string]any{"pattern": p.re, "path": src, "head_limit": 100000})
		uses := []core.ToolUse{{ID: "toolu_1", Name: "Grep", Input: input}}
		runTurn(b, h, uses)
		b.Run("pattern="+p.name+"/impl=riot", func(b *testing.B) {
			for b.Loop() {
				runTurn(b, h, uses)
			}
		})
		for _, c := range []struct {
			impl string
			argv []string
		}{
			{"rg", []string{"rg", "--no-config", "-l", "-e", p.re, src}},
			{"grep", []string{"grep", p.grepFlags, "-e", p.grepRE, src}},
		} {
			if _, err := exec.LookPath(c.argv[0]); err != nil {
				continue
			}
			b.Run("pattern="+p.name+"/impl="+c.impl, func(b *testing.B) {
				for b.Loop() {
					if err := exec.Command(c.argv[0], c.argv[1:]...).Run(); err != nil {
						b.Fatalf("%v: %v", c.argv, err)
					}
				}
			})
		}
	}
}
