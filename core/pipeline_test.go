package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/shared"
)

func TestToolsKeepManifestOrder(t *testing.T) {
	h := newHost(t)
	var names []string
	for _, ti := range h.Tools() {
		names = append(names, ti.Name)
	}
	want := "Noop Echo Crash Block Barrier Fail Stream StreamUnlimited Writes Image State Sleep Look Touch Plain Mark"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}
	if !strings.Contains(string(h.Tools()[1].InputSchema), `"additionalProperties":false`) {
		t.Fatalf("schema is not closed: %s", h.Tools()[1].InputSchema)
	}
}

func TestUnknownToolListsTheTools(t *testing.T) {
	h := newHost(t)
	wantResult(t, runOne(t, h, "Nope", `{}`), core.StatusFailed,
		`There is no tool named "Nope". The tools available are: Noop, Echo, Crash,`, "Call one of those instead.")
}

// Each kind of schema violation gets its own imperative hint.
func TestValidationHints(t *testing.T) {
	h := newHost(t)
	cases := []struct{ name, input, want string }{
		{"missing", `{}`, "The input for Echo is invalid: add the required field `text` (string: The text to echo back)."},
		{"unknown", `{"text":"a","colour":1}`, "The input for Echo is invalid: `colour` is not a field of Echo; remove it and use only `count`, `mode`, `text`."},
		{"enum", `{"text":"a","mode":"loud"}`, "The input for Echo is invalid: set `mode` to one of \"plain\", \"upper\"."},
		{"type", `{"text":5}`, "The input for Echo is invalid: send `text` as a string, not a number."},
		{"minimum", `{"text":"a","count":0}`, "The input for Echo is invalid: `count` must be at least 1."},
		{"not an object", `["text"]`, "The input for Echo must be a JSON object, not an array. Send an object with its fields: `count`, `mode`, `text`."},
		{"not JSON", `{text:`, "The input for Echo is not valid JSON."},
		{"several", `{"mode":"loud"}`, "The input for Echo is invalid:\n- "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runOne(t, h, "Echo", tc.input)
			wantResult(t, r, core.StatusFailed, tc.want)
			for _, bad := range []string{"jsonschema", "/properties", "&{", "%!"} {
				if strings.Contains(r.Text(), bad) {
					t.Fatalf("hint leaks validator internals (%q): %s", bad, r.Text())
				}
			}
		})
	}
	wantResult(t, runOne(t, h, "Echo", `{"text":"hi","mode":"upper","count":2}`), core.StatusOK, "HIHI")
}

// Without the permission issue's rules, the default mode denies a call
// that is not read-only, without a prompter.
func TestDefaultModeDeniesWritesWithoutAPrompter(t *testing.T) {
	h := newHost(t)
	r := runOne(t, h, "State", `{"set":"x"}`)
	if r.Status != core.StatusDenied {
		t.Fatalf("status = %s: %s", r.Status, r.Text())
	}
}

// Calls that are concurrency-safe run together: three calls that each wait
// until all three have started all cross their barrier.
func TestParallelGroup(t *testing.T) {
	h := newHost(t)
	var uses []core.ToolUse
	for i := range 3 {
		uses = append(uses, use(fmt.Sprintf("b%d", i), "Barrier", `{"name":"g","n":3}`))
	}
	for _, r := range h.RunTurn(context.Background(), uses) {
		wantResult(t, r, core.StatusOK, "crossed")
	}
}

// A call that is not concurrency-safe splits the group: the calls before
// it finish before it starts, so a barrier across it is never crossed.
func TestUnsafeCallSplitsTheGroup(t *testing.T) {
	h := newHost(t)
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("a", "Barrier", `{"name":"split","n":2,"wait_ms":200}`),
		use("b", "Echo", `{"text":"between"}`),
		use("c", "Barrier", `{"name":"split","n":2,"wait_ms":200}`),
	})
	wantResult(t, rs[0], core.StatusOK, "not crossed")
	wantResult(t, rs[1], core.StatusOK, "between")
	wantResult(t, rs[2], core.StatusOK, "crossed")
}

func TestMaxParallel(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limits.MaxParallel = 2
	h := newHost(t, withConfig(cfg))
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("a", "Barrier", `{"name":"m","n":3,"wait_ms":200}`),
		use("b", "Barrier", `{"name":"m","n":3,"wait_ms":200}`),
		use("c", "Barrier", `{"name":"m","n":3,"wait_ms":200}`),
	})
	// The first two run together and give up; the third runs after them
	// and finds the barrier open.
	wantResult(t, rs[0], core.StatusOK, "not crossed")
	wantResult(t, rs[1], core.StatusOK, "not crossed")
	wantResult(t, rs[2], core.StatusOK, "crossed")
}

// Results come back in input order whatever order calls finish in.
func TestResultsKeepInputOrder(t *testing.T) {
	h := newHost(t)
	for round := range 5 {
		var uses []core.ToolUse
		n := 8
		for i := range n {
			// Barriers of different sizes open in an order the host does
			// not choose.
			size := 1 + rand.IntN(2)
			uses = append(uses, use(fmt.Sprintf("r%d_%d", round, i), "Echo", fmt.Sprintf(`{"text":"%d"}`, i)))
			if size == 2 {
				uses[i] = use(fmt.Sprintf("r%d_%d", round, i), "Noop", `{}`)
			}
		}
		rand.Shuffle(len(uses), func(i, j int) { uses[i], uses[j] = uses[j], uses[i] })
		rs := h.RunTurn(context.Background(), uses)
		for i, r := range rs {
			if r.ToolUseID != uses[i].ID {
				t.Fatalf("result %d is for %s, want %s", i, r.ToolUseID, uses[i].ID)
			}
		}
	}
}

func TestCascade(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("done", "Echo", `{"text":"ok"}`), // not concurrency-safe: it finishes first
		use("running", "Block", `{"safe":true}`),
		use("a3", "Fail", `{"message":"Exit status 2.\nsome detail","safe":true}`),
		use("unsafe-later", "Echo", `{"text":"x"}`),
		use("later", "Noop", `{}`),
	})
	wantResult(t, rs[0], core.StatusOK, "ok")
	wantResult(t, rs[2], core.StatusFailed, "Exit status 2.")
	want := "Cancelled while running: Fail call a3 (`fail Exit status 2.\nsome detail`) failed: exit status 2. This call was stopped and may have partially run; re-issue it if it does not depend on that one."
	if rs[1].Status != core.StatusCancelled || rs[1].Text() != want {
		t.Fatalf("running sibling: %s %q", rs[1].Status, rs[1].Text())
	}
	notRun := "Not run: Fail call a3 (`fail Exit status 2.\nsome detail`) failed: exit status 2. Re-issue this call if it does not depend on that one."
	for _, r := range rs[3:] {
		if r.Status != core.StatusCancelled || r.Text() != notRun {
			t.Fatalf("later call %s: %s %q", r.ToolUseID, r.Status, r.Text())
		}
		if !r.IsError() {
			t.Fatal("a cancelled result must be an error")
		}
	}
}

// A failure of a tool that does not cascade cancels nothing.
func TestNonCascadingFailureCancelsNothing(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("x", "Crash", `{"how":"call-panic"}`),
		use("y", "Noop", `{}`),
	})
	wantResult(t, rs[0], core.StatusFailed, "internal error")
	wantResult(t, rs[1], core.StatusOK, "ok")
}

func TestCallerCancellation(t *testing.T) {
	onProgress, pids := progressPIDs()
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) { o.OnProgress = onProgress })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-pids; cancel() }()
	rs := h.RunTurn(ctx, []core.ToolUse{use("a", "Block", `{}`), use("b", "Noop", `{}`)})
	wantResult(t, rs[0], core.StatusCancelled, "Cancelled while running: the turn was stopped by the user or the agent.")
	wantResult(t, rs[1], core.StatusCancelled, "Not run: the turn was stopped by the user or the agent before this call started.")
}

func TestSessionState(t *testing.T) {
	cfg := testConfig(t, bypass)
	h := newHost(t, withConfig(cfg), func(o *core.Options) { o.SessionID = "s1" })
	wantResult(t, runOne(t, h, "State", `{"set":"one"}`), core.StatusOK, "was=")
	wantResult(t, runOne(t, h, "State", `{}`), core.StatusOK, "was=one")
	h.Close()
	// A named session outlives its host.
	h2 := newHost(t, withConfig(cfg), func(o *core.Options) { o.SessionID = "s1" })
	wantResult(t, runOne(t, h2, "State", `{}`), core.StatusOK, "was=one")
	// Another session does not see it.
	h3 := newHost(t, withConfig(cfg), func(o *core.Options) { o.SessionID = "s2" })
	if r := runOne(t, h3, "State", `{}`); r.Text() != "was=" {
		t.Fatalf("another session sees %q", r.Text())
	}
}

// Host tools come after every plugin's tools, through the same contract.
func TestHostToolsComeLast(t *testing.T) {
	var hostTool shared.ToolPlugin = newEchoHostTool(t)
	h := newHost(t, func(o *core.Options) { o.HostTools = []shared.ToolPlugin{hostTool} })
	tools := h.Tools()
	if last := tools[len(tools)-1].Name; last != "Task" {
		t.Fatalf("last tool = %s", last)
	}
	wantResult(t, runOne(t, h, "Task", `{"prompt":"hi"}`), core.StatusOK, "task: hi")
}

func readSpill(t *testing.T, r core.ToolResult) []byte {
	t.Helper()
	if r.Spill == nil {
		t.Fatalf("not spilled: %d chars", len(r.Text()))
	}
	data, err := os.ReadFile(r.Spill.Path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestBudgetEdges(t *testing.T) {
	h := newHost(t)
	line := strings.Repeat("x", 99) + "\n" // 100 characters
	at := runOne(t, h, "Stream", fmt.Sprintf(`{"bytes":50000,"line":%q}`, line))
	if at.Spill != nil || len(at.Text()) != 50000 {
		t.Fatalf("a result at the limit spilled or changed: spill=%v len=%d", at.Spill, len(at.Text()))
	}
	over := runOne(t, h, "Stream", fmt.Sprintf(`{"bytes":50001,"line":%q,"note":"(a note)"}`, line))
	data := readSpill(t, over)
	if len(data) != 50001 || string(data[:100]) != line {
		t.Fatalf("spill file has %d bytes", len(data))
	}
	text := over.Text()
	for _, want := range []string{
		"[Output too large for the context: 50,001 characters in 501 lines. The full output is saved at " + over.Spill.Path + ". Read it with Read (file_path with offset and limit), or search it with Grep on that path.]",
		"lines omitted",
		"\n(a note)",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("preview lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(string(data), "(a note)") != 0 {
		t.Fatal("the note went into the spill file")
	}
	if n := len([]rune(text)); n > 2600 {
		t.Fatalf("preview is %d characters", n)
	}
	unlimited := runOne(t, h, "StreamUnlimited", `{"bytes":300000}`)
	if unlimited.Spill != nil || len(unlimited.Text()) != 300000 {
		t.Fatalf("an Unlimited tool spilled: %v", unlimited.Spill)
	}
}

// The preview and the file never cut a UTF-8 character, whatever the
// chunking.
func TestSpillUTF8(t *testing.T) {
	h := newHost(t)
	line := strings.Repeat("é€😀", 33) + "\n" // 100 characters of 2, 3 and 4 bytes
	// Writes of 1,001 bytes split characters across chunks.
	r := runOne(t, h, "Stream", fmt.Sprintf(`{"bytes":%d,"line":%q,"piece":1001}`, 1000*len(line), line))
	data := readSpill(t, r)
	if string(data) != strings.Repeat(line, 1000) {
		t.Fatalf("spill has %d bytes", len(data))
	}
	if !strings.HasPrefix(r.Text(), line) {
		t.Fatalf("preview does not start on the first line")
	}
	for i, c := range r.Text() {
		if c == '\uFFFD' {
			t.Fatalf("preview has a broken character at %d", i)
		}
	}
	if r.Spill.Chars != 100_000 || r.Spill.Lines != 1000 {
		t.Fatalf("counted %d chars, %d lines", r.Spill.Chars, r.Spill.Lines)
	}
}

func TestImagesAreNeverSpilled(t *testing.T) {
	h := newHost(t)
	r := runOne(t, h, "Image", `{}`)
	if r.Spill != nil || len(r.Content) != 1 || r.Content[0].Type != "image" || r.Content[0].MediaType != "image/png" {
		t.Fatalf("image result: %+v", r)
	}
}

// When a turn's results together exceed the turn budget, the largest are
// spilled first until the turn fits.
func TestTurnBudget(t *testing.T) {
	h := newHost(t)
	sizes := []int{40000, 45000, 30000, 44000, 42000, 20000} // 221,000 in all
	var uses []core.ToolUse
	for i, n := range sizes {
		uses = append(uses, use(fmt.Sprintf("t%d", i), "Stream", fmt.Sprintf(`{"bytes":%d}`, n)))
	}
	rs := h.RunTurn(context.Background(), uses)
	var spilled []string
	total := 0
	for i, r := range rs {
		if r.Spill != nil {
			spilled = append(spilled, r.ToolUseID)
			if data := readSpill(t, r); len(data) != sizes[i] {
				t.Fatalf("%s spilled %d bytes, want %d", r.ToolUseID, len(data), sizes[i])
			}
		}
		total += len(r.Text())
	}
	if got := strings.Join(spilled, ","); got != "t1" {
		t.Fatalf("spilled %s, want t1 (the largest)", got)
	}
	if total > 200_000 {
		t.Fatalf("turn is %d characters", total)
	}
}

func TestSpillPathStaysInTheResultsDir(t *testing.T) {
	h := newHost(t)
	r := h.RunTurn(context.Background(), []core.ToolUse{use("../../etc/x", "Stream", `{"bytes":60000}`)})[0]
	if filepath.Dir(r.Spill.Path) != h.ResultsDir() {
		t.Fatalf("spilled to %s", r.Spill.Path)
	}
}
