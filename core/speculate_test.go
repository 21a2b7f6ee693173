package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// markPrompter records what each prompt showed and whether the call's
// marker existed then (the tool had run before the user was asked), and
// answers every prompt the same.
type markPrompter struct {
	mu     sync.Mutex
	shown  []string
	answer permission.Answer
	marker string
	early  []string
}

func (a *markPrompter) Prompt(_ context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shown = append(a.shown, fmt.Sprintf("%s %q: %s", req.Tool, req.Describe, d.Reason))
	if a.marker != "" {
		if _, err := os.Stat(a.marker); err == nil {
			a.early = append(a.early, a.marker)
		}
	}
	return a.answer, nil
}

func (a *markPrompter) take() (shown, early []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	shown, early = a.shown, a.early
	a.shown, a.early = nil, nil
	return shown, early
}

// markInput is Mark's input with a marker file, which the call creates
// if it runs.
func markInput(t *testing.T, input, marker string) string {
	t.Helper()
	if strings.Contains(input, "99999999999999999999") {
		return strings.TrimSuffix(input, "}") + `,"marker":` + strconvQuote(marker) + "}"
	}
	m := map[string]any{}
	if err := json.Unmarshal([]byte(input), &m); err != nil {
		t.Fatal(err)
	}
	m["marker"] = marker
	b, _ := json.Marshal(m)
	return string(b)
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// guesses records, per call id, whether the host sent it with a guessed
// answer, and the groups it ran.
type guesses struct {
	mu      sync.Mutex
	guessed map[string]bool
	groups  []string
}

func observe(h *core.Host) *guesses {
	g := &guesses{guessed: map[string]bool{}}
	core.ObserveGroups(h, func(ids []string, guessed []bool) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.groups = append(g.groups, strings.Join(ids, "+"))
		for i, id := range ids {
			g.guessed[id] = g.guessed[id] || guessed[i]
		}
	})
	return g
}

func (g *guesses) take() (groups []string, guessed map[string]bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	groups, guessed = g.groups, g.guessed
	g.groups, g.guessed = nil, map[string]bool{}
	return groups, guessed
}

// TestSpeculatedPrepareDecidesAsPrepare: for every permission mode, rule
// kind, prompt answer and input, with the guessed answer right (the
// previous call of the tool gave the same answer) and wrong (it gave
// another), a call of a tool whose answer the host guesses ends exactly as
// the same call of the same tool from a plugin that honours no guess,
// whose Prepare the host asks: the same status and text for the call and
// the call beside it (a rejection cascades nothing, a failure does), the
// same description, the same prompts, and the tool ran in the same cases
// and never before a prompt. The guess is made for every such call, and a
// right guess that the chain allows outright asks no Prepare.
func TestSpeculatedPrepareDecidesAsPrepare(t *testing.T) {
	const readOnly, write = `{"n":7}`, `{"n":8,"write":true}`
	inputs := []struct{ name, input, same, other string }{
		{"read-only", `{"n":1}`, readOnly, write},
		{"write", `{"n":2,"write":true}`, write, readOnly},
		{"rejected", `{"n":99999999999999999999}`, readOnly, write},
		{"failing", `{"n":3,"fail":true}`, readOnly, write},
	}
	// Two layouts put the call where it runs alone whatever its answer:
	// alone in its turn, and first with at most one call at a time, where
	// the call after it shows the cascade. (Last after another call, its
	// Prepare is asked beside that call's, and so its answer is known.)
	layouts := []struct {
		name        string
		maxParallel int
		turn        func(mark string) []core.ToolUse
		mark        int
	}{
		{"alone", 0, func(m string) []core.ToolUse { return []core.ToolUse{use("toolu_1", "Mark", m)} }, 0},
		{"one at a time", 1, func(m string) []core.ToolUse {
			return []core.ToolUse{use("toolu_1", "Mark", m), use("toolu_2", "Echo", `{"text":"after"}`)}
		}, 0},
	}
	for _, mode := range permissionModes {
		for _, rule := range ruleCases("Mark") {
			for _, layout := range layouts {
				t.Run(string(mode)+"/"+rule.name+"/"+layout.name, func(t *testing.T) {
					prompter := &markPrompter{}
					guessing, asked := hostPair(t, mode, rule, prompter, func(c *config.Config) { c.Limits.MaxParallel = layout.maxParallel })
					seen := observe(guessing)
					dir := t.TempDir()
					n := 0
					for _, answer := range []permission.Answer{permission.AnswerAllowOnce, permission.AnswerDeny} {
						prompter.answer = answer
						for _, in := range inputs {
							for _, guess := range []string{"right", "wrong"} {
								prime := in.same
								if guess == "wrong" {
									prime = in.other
								}
								what := fmt.Sprintf("answer %d, %s input, guess %s", answer, in.name, guess)
								// Twice, so that the tool's answers are steady.
								for _, h := range []*core.Host{guessing, asked, guessing, asked} {
									h.RunTurn(context.Background(), []core.ToolUse{use("toolu_0", "Mark", prime)})
								}
								prompter.take()
								seen.take()
								n++
								markers := [2]string{filepath.Join(dir, fmt.Sprint("g", n)), filepath.Join(dir, fmt.Sprint("a", n))}
								before := core.PrepareExchanges(guessing, "Mark")
								prompter.marker = markers[0]
								got := guessing.RunTurn(context.Background(), layout.turn(markInput(t, in.input, markers[0])))
								gotAsks, early := prompter.take()
								exchanges := core.PrepareExchanges(guessing, "Mark") - before
								_, guessed := seen.take()
								prompter.marker = markers[1]
								want := asked.RunTurn(context.Background(), layout.turn(markInput(t, in.input, markers[1])))
								wantAsks, _ := prompter.take()
								for i := range want {
									if got[i].Status != want[i].Status || got[i].Text() != want[i].Text() || got[i].Describe != want[i].Describe {
										t.Errorf("%s, call %d: guessed %s %q (%q), asked %s %q (%q)", what, i,
											got[i].Status, got[i].Text(), got[i].Describe, want[i].Status, want[i].Text(), want[i].Describe)
									}
								}
								if strings.Join(gotAsks, "\n") != strings.Join(wantAsks, "\n") {
									t.Errorf("%s: guessing host asked %q, asking host %q", what, gotAsks, wantAsks)
								}
								if len(early) > 0 {
									t.Errorf("%s: the tool ran before the prompt", what)
								}
								if exists(markers[0]) != exists(markers[1]) {
									t.Errorf("%s: the tool ran %v under the guess, %v without", what, exists(markers[0]), exists(markers[1]))
								}
								sent := guessed["toolu_"+fmt.Sprint(layout.mark+1)]
								// In auto mode a guess with a classifier input
								// (a write's) is not made.
								guessable := mode != "auto" || prime != write
								outright := guessable && guess == "right" && len(gotAsks) == 0 && got[layout.mark].Status == core.StatusOK && !strings.HasPrefix(rule.name, "hook")
								if outright && (exchanges != 0 || !sent) {
									t.Errorf("%s: %d Prepare exchanges for a call guessed right and allowed outright (sent with the guess: %v), want none", what, exchanges, sent)
								}
								// A read-only guess is allowed in every mode
								// unless a rule or hook says otherwise, so a
								// write is sent with it and answers otherwise.
								if readOnlyAllowed := !strings.HasPrefix(rule.name, "hook") && !strings.HasPrefix(rule.name, "ask") && !strings.HasPrefix(rule.name, "deny"); readOnlyAllowed && in.name == "write" && guess == "wrong" && !sent {
									t.Errorf("%s: a write guessed read-only was not sent with the guess", what)
								}
								if guess == "wrong" && exchanges > 1 {
									t.Errorf("%s: %d Prepare exchanges, want at most one", what, exchanges)
								}
							}
						}
					}
				})
			}
		}
	}
}

// A guess that is wrong never runs the tool before the host has judged the
// tool's own answer: a write guessed read-only (the previous call was
// read-only) is sent with the guess, since read-only calls are allowed in
// default mode, and the plugin's answer stops it: the user is asked with
// the tool's description and the reason a write needs approval, and the
// marker is not there while they are asked. Denied, it never runs; in plan
// mode it is denied with plan mode's reason, unrun.
func TestWrongGuessRunsNothingBeforeTheJudgement(t *testing.T) {
	for _, tc := range []struct {
		mode   config.Mode
		answer permission.Answer
		status core.Status
		text   string
		asked  bool
	}{
		{"default", permission.AnswerAllowOnce, core.StatusOK, "mark 2", true},
		{"default", permission.AnswerDeny, core.StatusDenied, "The user denied permission for this call, so it was not run.", true},
		{"plan", permission.AnswerAllowOnce, core.StatusDenied, "You are in plan mode", false},
	} {
		t.Run(fmt.Sprint(tc.mode, tc.answer), func(t *testing.T) {
			prompter := &markPrompter{answer: tc.answer}
			h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Permissions.Mode = tc.mode })), func(o *core.Options) { o.Prompter = prompter })
			seen := observe(h)
			wantResult(t, runOne(t, h, "Mark", `{"n":1}`), core.StatusOK, "mark 1")
			seen.take()
			marker := filepath.Join(t.TempDir(), "ran")
			prompter.marker = marker
			r := runOne(t, h, "Mark", markInput(t, `{"n":2,"write":true}`, marker))
			shown, early := prompter.take()
			if _, guessed := seen.take(); !guessed["toolu_1"] {
				t.Fatal("the write was not sent with the read-only guess")
			}
			if len(early) > 0 {
				t.Fatal("the tool ran before the user was asked")
			}
			wantResult(t, r, tc.status, tc.text)
			if r.Describe != "Mark 2" {
				t.Errorf("describe %q, want the tool's", r.Describe)
			}
			wantShown := `Mark "Mark 2": Mark (Mark 2) is not read-only and no allow rule covers it, so it needs the user's approval.`
			if tc.asked && (len(shown) != 1 || shown[0] != wantShown) || !tc.asked && len(shown) != 0 {
				t.Errorf("prompts %q, want %v: %q", shown, tc.asked, wantShown)
			}
			if exists(marker) != (tc.status == core.StatusOK) {
				t.Errorf("the tool ran: %v, want %v", exists(marker), tc.status == core.StatusOK)
			}
			if n := core.PrepareExchanges(h, "Mark"); n != 1 {
				t.Errorf("%d Prepare exchanges, want only the first call's: the second's answer came on its stream", n)
			}
		})
	}
}

// TestGuessedCallsRunAlone: in turns of several calls, under every guess,
// the host runs the same groups of calls as a host whose plugin honours no
// guess, and a call it sends with a guess is a group of one: a wrong
// guess never has calls run together that the answers would have kept
// apart.
func TestGuessedCallsRunAlone(t *testing.T) {
	const ro, wr = `{"n":1}`, `{"n":2,"write":true}`
	turns := [][]string{{ro}, {wr}, {ro, ro}, {ro, wr}, {wr, ro}, {ro, wr, ro}, {wr, wr}, {ro, ro, wr}, {wr, ro, ro}}
	for _, maxParallel := range []int{0, 1, 2} {
		host := func(env map[string]string) (*core.Host, *guesses) {
			cfg := testConfig(t, bypass, func(c *config.Config) { c.Limits.MaxParallel = maxParallel })
			h := newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: env}))
			return h, observe(h)
		}
		guessing, gseen := host(nil)
		asked, aseen := host(undeclared)
		sentGuessed := 0
		for _, prime := range []string{ro, wr} {
			for _, turn := range turns {
				var uses []core.ToolUse
				for i, in := range turn {
					uses = append(uses, use(fmt.Sprint("toolu_", i+1), "Mark", in))
				}
				for _, h := range []*core.Host{guessing, asked, guessing, asked} {
					h.RunTurn(context.Background(), []core.ToolUse{use("toolu_0", "Mark", prime)})
				}
				gseen.take()
				aseen.take()
				got, want := guessing.RunTurn(context.Background(), uses), asked.RunTurn(context.Background(), uses)
				ggroups, guessed := gseen.take()
				agroups, _ := aseen.take()
				what := fmt.Sprintf("max_parallel %d, after %s, turn %v", maxParallel, prime, turn)
				if strings.Join(ggroups, " ") != strings.Join(agroups, " ") {
					t.Errorf("%s: groups %v, without guessing %v", what, ggroups, agroups)
				}
				for _, g := range ggroups {
					for _, id := range strings.Split(g, "+") {
						if guessed[id] {
							sentGuessed++
							if strings.Contains(g, "+") {
								t.Errorf("%s: %s was sent with a guess in the group %s", what, id, g)
							}
						}
					}
				}
				for i := range want {
					if got[i].Status != want[i].Status || got[i].Text() != want[i].Text() {
						t.Errorf("%s, call %d: %s %q, without guessing %s %q", what, i, got[i].Status, got[i].Text(), want[i].Status, want[i].Text())
					}
				}
			}
		}
		if sentGuessed == 0 {
			t.Errorf("max_parallel %d: no call was sent with a guess", maxParallel)
		}
	}
}

// TestGuessOnlyWhereDeclared: a tool's later calls are sent with its
// previous answer, and ask no Prepare, when its plugin declares that it
// honours the guess; a plugin whose manifest does not declare it, which
// might run the call whatever its answer, is asked every call's Prepare.
func TestGuessOnlyWhereDeclared(t *testing.T) {
	for _, declared := range []bool{true, false} {
		env := map[string]string(nil)
		if !declared {
			env = undeclared
		}
		h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: env}))
		seen := observe(h)
		for i := range 3 {
			wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
			_, guessed := seen.take()
			if want := declared && i > 0; guessed["toolu_1"] != want {
				t.Errorf("declared %v: call %d sent with a guess: %v, want %v", declared, i, guessed["toolu_1"], want)
			}
		}
		want := map[bool]int64{true: 1, false: 3}[declared]
		if got := core.PrepareExchanges(h, "Noop"); got != want {
			t.Errorf("declared %v: %d Prepare exchanges for three Noop calls, want %d", declared, got, want)
		}
	}
}

// A guess is made only while the tool's answers are steady: after a miss,
// or any change of answer, the tool's calls are prepared until it answers
// the same twice in a row, so a tool whose answer changes with each call
// (Read of one file, then another) pays for one miss, not one per call.
func TestGuessOnlyWhileTheAnswersAreSteady(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	seen := observe(h)
	const ro, wr = `{"n":1}`, `{"n":2,"write":true}`
	for i, step := range []struct {
		input   string
		guessed bool
		prepare int64 // Prepare exchanges
	}{
		{ro, false, 1}, // the first answer: steady
		{wr, true, 0},  // guessed read-only, missed: no longer steady
		{ro, false, 1}, // changed again
		{wr, false, 1},
		{wr, false, 1}, // the same twice: steady
		{wr, true, 0},  // guessed right
		{wr, true, 0},
		{ro, true, 0}, // missed
		{ro, false, 1},
		{ro, true, 0},
	} {
		before := core.PrepareExchanges(h, "Mark")
		r := runOne(t, h, "Mark", step.input)
		_, guessed := seen.take()
		if r.Status != core.StatusOK || guessed["toolu_1"] != step.guessed || core.PrepareExchanges(h, "Mark")-before != step.prepare {
			t.Errorf("call %d (%s): %s %q, guessed %v, %d Prepare exchanges; want ok, guessed %v, %d", i, step.input, r.Status, r.Text(),
				guessed["toolu_1"], core.PrepareExchanges(h, "Mark")-before, step.guessed, step.prepare)
		}
	}
}

// In auto mode a guess that carries a classifier input is not made: the
// classifier would judge an input the tool may not give. A write of Mark
// (which has one) is prepared every time, a read-only call (which has
// none) is guessed.
func TestNoGuessForTheClassifier(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.Permissions.Mode = "auto"
		c.Permissions.Allow = []config.Rule{{Text: "Mark"}}
	})
	h := newHost(t, withConfig(cfg))
	seen := observe(h)
	for i, in := range []string{`{"n":1,"write":true}`, `{"n":2,"write":true}`, `{"n":3,"write":true}`, `{"n":4}`, `{"n":5}`, `{"n":6}`} {
		wantResult(t, runOne(t, h, "Mark", in), core.StatusOK, "mark")
		_, guessed := seen.take()
		if want := i == 5; guessed["toolu_1"] != want {
			t.Errorf("call %d (%s) guessed %v, want %v", i, in, guessed["toolu_1"], want)
		}
	}
	if n := core.PrepareExchanges(h, "Mark"); n != 5 {
		t.Errorf("%d Prepare exchanges, want 5: every write, and the read-only calls until their answer was steady", n)
	}
}

// A required sandbox that cannot start refuses a guessed call only once
// the plugin's Prepare has answered it, and when that answer is not the
// guess, only after the call is judged on it: a write guessed read-only is
// asked about in default mode before the refusal, as the call of a tool
// that honours no guess is. The texts, descriptions and prompts are the
// same, and the tool never runs.
func TestGuessBeforeASandboxRefusal(t *testing.T) {
	for _, mode := range []config.Mode{config.ModeBypassPermissions, config.ModeDefault} {
		prompter := &markPrompter{answer: permission.AnswerAllowOnce}
		guessing, asked := hostPair(t, mode, ruleCases("Mark")[0], prompter, func(c *config.Config) { c.Sandbox.Mode = "required" })
		// As on a machine without bwrap.
		core.WithoutBwrap(guessing)
		core.WithoutBwrap(asked)
		seen := observe(guessing)
		dir := t.TempDir()
		for i, in := range []string{`{"n":1}`, `{"n":2}`, `{"n":3,"write":true}`, `{"n":4,"write":true}`, `{"n":5,"write":true}`, `{"n":6}`} {
			markers := [2]string{filepath.Join(dir, fmt.Sprint("g", i)), filepath.Join(dir, fmt.Sprint("a", i))}
			got := runOne(t, guessing, "Mark", markInput(t, in, markers[0]))
			gotAsks, _ := prompter.take()
			want := runOne(t, asked, "Mark", markInput(t, in, markers[1]))
			wantAsks, _ := prompter.take()
			if got.Status != want.Status || got.Text() != want.Text() || got.Describe != want.Describe || strings.Join(gotAsks, "\n") != strings.Join(wantAsks, "\n") {
				t.Errorf("%s, call %d (%s): guessed %s %q (%q), asked %q; without guessing %s %q (%q), asked %q", mode, i, in,
					got.Status, got.Text(), got.Describe, gotAsks, want.Status, want.Text(), want.Describe, wantAsks)
			}
			if !strings.Contains(got.Text(), "the kernel sandbox is required") || exists(markers[0]) {
				t.Errorf("%s, call %d: %q, ran %v; want the sandbox's refusal, unrun", mode, i, got.Text(), exists(markers[0]))
			}
		}
		if _, guessed := seen.take(); len(guessed) == 0 {
			t.Errorf("%s: no call was guessed", mode)
		}
	}
}
