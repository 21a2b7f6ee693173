package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// gateBound is the most text a result the gate cut may show: a preview of
// about 2,000 characters, its notice, and the sentences around it.
const gateBound = 6_000

// blockedSession is the session whose results directory blockResults
// puts a file in place of.
const blockedSession = "blocked"

// blockResults puts a regular file where the results directory of the
// session blockedSession goes, so that no spill file of it can be written,
// as root too (chmod would not stop root); and returns the host option
// that opens that session.
func blockResults(t *testing.T, cfg *config.Config) hostOpt {
	t.Helper()
	dir := filepath.Join(cfg.StateDir, "results")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, blockedSession), []byte("in the way\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return func(o *core.Options) { o.SessionID = blockedSession }
}

// A result past the budget that cannot be spilled is cut to its preview
// all the same, with a note saying the full output could not be saved and
// why in plain words; before, the model got all 2 MB as a success.
func TestSpillFailureCutsToThePreview(t *testing.T) {
	cfg := testConfig(t)
	h := newHost(t, withConfig(cfg), blockResults(t, cfg))
	r := h.RunTurn(context.Background(), []core.ToolUse{use("t1", "Stream", `{"bytes":2000000}`)})[0]
	text := r.Text()
	if len(text) > gateBound || r.Spill != nil {
		t.Fatalf("a spill that failed gave the model %d characters (spill %+v)", len(text), r.Spill)
	}
	for _, want := range []string{
		"Output too large for the context: 2,000,000 characters",
		"The full output could not be saved to a file (a file stands where riot's results directory should be)",
		"only this preview exists",
		"0123456789abcdef", // the head
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("the cut result lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "not a directory") {
		t.Fatalf("the model was given the raw error:\n%s", text)
	}
}

// The turn budget cuts a turn to size when its spill files cannot be
// written, too: each output it cannot spill becomes its preview, with the
// note.
func TestTurnBudgetCutsWhenItCannotSpill(t *testing.T) {
	cfg := testConfig(t)
	h := newHost(t, withConfig(cfg), blockResults(t, cfg))
	var uses []core.ToolUse
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		uses = append(uses, use(id, "Stream", `{"bytes":45000}`))
	}
	total, cut := 0, 0
	for _, r := range h.RunTurn(context.Background(), uses) {
		total += len([]rune(r.Text()))
		if strings.Contains(r.Text(), "could not be saved to a file (a file stands where riot's results directory should be)") {
			cut++
		}
	}
	if total > 200_000 || cut == 0 {
		t.Fatalf("the turn is %d characters with %d results cut; want at most the turn budget, 200,000, and the cut ones saying why", total, cut)
	}
}

// A PreToolUse hook's reason is no tool output, but reaches the model all
// the same: a huge one is cut to a preview, and saved whole.
func TestHugePreToolUseReasonIsBudgeted(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.Hooks.PreToolUse = []config.Hook{{Matcher: "Stream", Timeout: 30 * time.Second,
			Command: hookScript(t, `head -c 3000000 /dev/zero | tr '\0' 'r' >&2; exit 2`)}}
	})
	h := newHost(t, withConfig(cfg))
	r := h.RunTurn(context.Background(), []core.ToolUse{use("t1", "Stream", `{"bytes":10}`)})[0]
	text := r.Text()
	if r.Status != core.StatusDenied || len(text) > gateBound {
		t.Fatalf("status %s, %d characters; want denied, and cut", r.Status, len(text))
	}
	if !strings.Contains(text, "blocked this call: rrrr") || !strings.Contains(text, "This result is too large for the context") || r.Spill == nil {
		t.Fatalf("the denial lacks its start or the notice (spill %+v):\n%.3000s", r.Spill, text)
	}
	data, err := os.ReadFile(r.Spill.Path)
	if err != nil || !strings.Contains(string(data), strings.Repeat("r", 1<<20-1)+" [cut: the hook wrote more than 1.0 MiB, and riot keeps that much]") {
		t.Fatalf("the saved denial does not hold the reason riot read, and that it was cut (%v, %d bytes)", err, len(data))
	}
}

// A PostToolUse hook's large reason and context reach the model within the
// budget, saved whole, and no false size stands in for them: before, the
// turn budget rebuilt the result from the tool's 4 characters of output,
// dropping the hook's words and calling it "4 characters".
func TestLargePostToolUseWordsAreKept(t *testing.T) {
	for name, in := range map[string]struct {
		tool  string
		bytes int
	}{
		"limited":         {"Stream", 4},
		"unlimited":       {"StreamUnlimited", 4},
		"already spilled": {"Stream", 100_000}, // the output's preview stays, the words after it are cut
	} {
		tool := in.tool
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, func(c *config.Config) {
				c.Hooks.PostToolUse = []config.Hook{{Matcher: "Stream.*", Timeout: 30 * time.Second, Command: hookScript(t,
					`printf '{"decision":"block","reason":"REASON%sEND","hookSpecificOutput":{"additionalContext":"CONTEXT%sEND"}}' "$(head -c 300000 /dev/zero | tr '\0' 'x')" "$(head -c 300000 /dev/zero | tr '\0' 'y')"`)}}
			})
			h := newHost(t, withConfig(cfg))
			r := h.RunTurn(context.Background(), []core.ToolUse{use("t1", tool, fmt.Sprintf(`{"bytes":%d,"line":"done"}`, in.bytes))})[0]
			text := r.Text()
			if r.Status != core.StatusFailed || len(text) > gateBound {
				t.Fatalf("status %s, %d characters; want failed (blocked), and cut", r.Status, len(text))
			}
			if strings.Contains(text, "context: 4 characters") || !strings.HasPrefix(text, "done") || !strings.Contains(text, "too large for the context: 600,") {
				t.Fatalf("the result does not keep the output and size the hook's words:\n%s", text)
			}
			if in.bytes > 50_000 && !strings.Contains(text, "Output too large for the context: 100,000 characters") {
				t.Fatalf("the output's own preview and notice were lost:\n%s", text)
			}
			path := text[strings.LastIndex(text, "saved at ")+len("saved at "):]
			path = path[:strings.Index(path, ". Read it")]
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"CONTEXT" + strings.Repeat("y", 300000) + "END", "flagged this result: REASON" + strings.Repeat("x", 300000) + "END"} {
				if !strings.Contains(string(data), want) {
					t.Fatalf("the saved text lacks the hook's words (%d bytes)", len(data))
				}
			}
		})
	}
}

// A zero turn budget means the embedded defaults' own.
func TestDefaultTurnBudgetIsTheDefaults(t *testing.T) {
	if got := testConfig(t).Limits.TurnBudgetChars; got != core.DefaultTurnBudgetChars {
		t.Fatalf("defaults.toml's turn_budget_chars is %d, core.DefaultTurnBudgetChars %d", got, core.DefaultTurnBudgetChars)
	}
}
