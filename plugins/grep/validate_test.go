package grep

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
)

// TestValidateRejects checks that bad input is rejected before any
// search, each kind with its own hint: the assertions name the reason,
// not merely the rejection.
func TestValidateRejects(t *testing.T) {
	repo := fixtureRepo(t)
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, nil)
	c.Cwd = repo
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"empty pattern", `{"pattern":""}`, []string{"`pattern` is empty", "use Bash"}},
		{"unbalanced open paren", `{"pattern":"foo(bar"}`, []string{"missing closing )", "Escape a literal `(` as `\\(`"}},
		{"unbalanced close paren", `{"pattern":"foo)"}`, []string{"unexpected )", "Escape a literal `)` as `\\)`"}},
		{"unclosed class", `{"pattern":"[abc"}`, []string{"missing closing ]", "Escape a literal `[` as `\\[`"}},
		{"lookahead", `{"pattern":"foo(?=bar)"}`, []string{"at `(?=`", "Go's RE2 has no lookaround; match more broadly and filter with a second pattern"}},
		{"negative lookahead", `{"pattern":"foo(?!bar)"}`, []string{"at `(?!`", "no lookaround"}},
		{"lookbehind", `{"pattern":"(?<=foo)bar"}`, []string{"no lookaround"}},
		{"negative lookbehind", `{"pattern":"(?<!foo)bar"}`, []string{"no lookaround"}},
		{"backreference", `{"pattern":"(\\w+) \\1"}`, []string{"at `\\1`", "no backreferences such as `\\1`"}},
		{"invalid escape", `{"pattern":"\\y"}`, []string{"invalid escape sequence at `\\y`", "escape a literal backslash as `\\\\`"}},
		{"\\Z", `{"pattern":"end\\Z"}`, []string{"`$` for the end of a line"}},
		{"repeat over 1000", `{"pattern":"a{1001}"}`, []string{"invalid repeat count at `{1001}`", "counts up to 1000"}},
		{"glob as pattern", `{"pattern":"*.go"}`, []string{"`*` has nothing before it to repeat", "not a glob", "use `glob`"}},
		{"possessive", `{"pattern":"a++"}`, []string{"no possessive quantifiers"}},
		{"atomic group", `{"pattern":"(?>a)"}`, []string{"no atomic groups"}},
		{"unknown flag", `{"pattern":"(?x)a"}`, []string{"only the flags i, m, s and U"}},
		{"bad range", `{"pattern":"[z-a]"}`, []string{"lower end of a range first"}},
		{"trailing backslash", `{"pattern":"foo\\"}`, []string{"trailing backslash", "`\\\\`"}},
		{"newline without multiline", `{"pattern":"a\\nb"}`, []string{"matches a newline", "`multiline: true`"}},
		{"-A outside content", `{"pattern":"x","-A":2}`, []string{"`-A` applies only with `output_mode: \"content\"`", "\"files_with_matches\""}},
		{"-B in count mode", `{"pattern":"x","-B":1,"output_mode":"count"}`, []string{"`-B` applies only with `output_mode: \"content\"`", "\"count\""}},
		{"-C outside content", `{"pattern":"x","-C":0}`, []string{"`-C` applies only with `output_mode: \"content\"`"}},
		{"-n outside content", `{"pattern":"x","-n":true}`, []string{"`-n` applies only with `output_mode: \"content\"`"}},
		{"negative -C", `{"pattern":"x","-C":-1,"output_mode":"content"}`, []string{"`-C` is -1", "cannot be negative"}},
		{"negative head_limit", `{"pattern":"x","head_limit":-5}`, []string{"`head_limit` is -5", "cannot be negative", "0 for no limit"}},
		{"negative offset", `{"pattern":"x","offset":-1}`, []string{"`offset` is -1", "cannot be negative"}},
		{"unknown type", `{"pattern":"x","type":"golang"}`, []string{"`type` \"golang\" is not a file type", "Did you mean \"go\"?", "go, gradle, groovy", "py,", "rust,"}},
		{"unknown type typo", `{"pattern":"x","type":"pyy"}`, []string{"Did you mean \"py\"?"}},
		{"unknown mode", `{"pattern":"x","output_mode":"lines"}`, []string{"`output_mode` \"lines\"", "\"files_with_matches\"", "\"content\"", "\"count\""}},
		{"bad glob", `{"pattern":"x","glob":"*.{go,ts"}`, []string{"`glob` \"*.{go,ts\" is not a valid glob", "`{` alternation is not closed"}},
		{"bad glob class", `{"pattern":"x","glob":"[ab"}`, []string{"`[` character class is not closed"}},
		{"missing path", `{"pattern":"x","path":"src/nope"}`, []string{"`path` src/nope does not exist", filepath.Join(repo, "src/nope")}},
		{"fifo path", `{"pattern":"x","path":"fifo"}`, []string{"`path` fifo is not a regular file or a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.Prepare("Grep", tc.input)
			if p.Rejected == "" {
				t.Fatalf("%s was accepted", tc.input)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Rejected, w) {
					t.Errorf("rejection of %s does not say %q:\n%s", tc.input, w, p.Rejected)
				}
			}
			// Call checks again, and fails with the same correction.
			if res := c.Call("Grep", tc.input); res.Ok || res.Message != p.Rejected {
				t.Errorf("Call of %s: ok=%v message %q, want the rejection", tc.input, res.Ok, res.Message)
			}
		})
	}
}

// TestPathOutsideFence: whether a path outside the workspace exists is
// not told before the permission chain has run; Call tells it.
func TestPathOutsideFence(t *testing.T) {
	repo := fixtureRepo(t)
	c := serve(t, nil)
	c.Cwd = repo
	c.Roots = []string{repo}
	outside := filepath.Join(filepath.Dir(repo), "not-there")
	in := `{"pattern":"x","path":"` + outside + `"}`
	if p := c.Prepare("Grep", in); p.Rejected != "" {
		t.Fatalf("a path outside the fence was checked before the permission chain: %s", p.Rejected)
	}
	res := c.Call("Grep", in)
	if res.Ok || !strings.Contains(res.Message, "`path` "+outside+" does not exist") {
		t.Errorf("Call on a missing path outside the fence: ok=%v %q", res.Ok, res.Message)
	}
}

func TestValidInputsAccepted(t *testing.T) {
	repo := fixtureRepo(t)
	c := serve(t, nil)
	c.Cwd = repo
	for _, in := range []string{
		`{"pattern":"x"}`,
		`{"pattern":"(?P<name>x)|(?<other>y)","output_mode":"content","-n":false,"-A":0,"-B":2,"-C":1}`,
		`{"pattern":"x","head_limit":0,"offset":0,"type":"go","glob":"!*_test.go"}`,
		`{"pattern":"a\\nb","multiline":true}`,
		`{"pattern":"x","path":"main.go"}`,
		`{"pattern":"x","path":"linkdir"}`,
		`{"pattern":"x{1000}"}`,
	} {
		if p := c.Prepare("Grep", in); p.Rejected != "" {
			t.Errorf("%s rejected: %s", in, p.Rejected)
		}
	}
}

func TestProperties(t *testing.T) {
	repo := fixtureRepo(t)
	c := serve(t, nil)
	c.Cwd = repo
	p := c.Prepare("Grep", `{"pattern":"BEGIN PRIVATE KEY","path":"~/.ssh"}`)
	if p.Rejected != "" {
		// ~/.ssh may not exist here; it is outside the fence, so it is
		// not checked before the chain.
		t.Fatalf("rejected: %s", p.Rejected)
	}
	if !p.ReadOnly || !p.ConcurrencySafe {
		t.Errorf("read-only %v, concurrency-safe %v; Grep is both", p.ReadOnly, p.ConcurrencySafe)
	}
	// Passthrough: the core's chain must see every search, ~/.ssh too.
	if p.Permission != plugin.Passthrough {
		t.Errorf("permission = %v, want Passthrough", p.Permission)
	}
	home := (&plugin.Env{Cwd: repo}).Abs("~/.ssh")
	if p.ClassifierInput != "Search for /BEGIN PRIVATE KEY/ in "+home {
		t.Errorf("classifier input = %q, want the resolved path", p.ClassifierInput)
	}
	if got := New().ClassifierInput(Input{Pattern: "x", Path: "~/.ssh"}); got != "Search for /x/ in ~/.ssh" {
		t.Errorf("ClassifierInput = %q", got)
	}
	if p.Describe != `Search for "BEGIN PRIVATE KEY" in ~/.ssh` {
		t.Errorf("describe = %q", p.Describe)
	}
	if len(p.Subjects) != 1 || p.Subjects[0] != plugin.ReadPath(home) {
		t.Errorf("subjects = %+v, want one read of %s", p.Subjects, home)
	}
	// The default path is the working directory, as an absolute subject.
	p = c.Prepare("Grep", `{"pattern":"x","glob":"*.go"}`)
	if p.Describe != `Search for "x" in . (*.go)` || len(p.Subjects) != 1 || p.Subjects[0] != plugin.ReadPath(repo) {
		t.Errorf("default path: describe %q, subjects %+v", p.Describe, p.Subjects)
	}
	if p = c.Prepare("Grep", `{"pattern":"x","path":"src","type":"ts"}`); p.Describe != `Search for "x" in src (ts files)` {
		t.Errorf("describe = %q", p.Describe)
	}
}

func TestManifest(t *testing.T) {
	c := serve(t, nil)
	specs := c.Manifest()
	if len(specs) != 1 || specs[0].Name != "Grep" {
		t.Fatalf("manifest = %v", specs)
	}
	s := specs[0]
	if !s.ResultBudget.Unlimited || s.CascadesOnFailure {
		t.Errorf("budget unlimited %v, cascades %v; want unlimited and no cascade", s.ResultBudget.Unlimited, s.CascadesOnFailure)
	}
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range schema.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"-A", "-B", "-C", "-i", "-n", "glob", "head_limit", "multiline", "offset", "output_mode", "path", "pattern", "type"}
	if !slices.Equal(names, want) {
		t.Errorf("fields = %v, want %v", names, want)
	}
	if !slices.Equal(schema.Required, []string{"pattern"}) {
		t.Errorf("required = %v, want only pattern", schema.Required)
	}
	if !slices.Equal(schema.Properties["output_mode"].Enum, []string{"files_with_matches", "content", "count"}) {
		t.Errorf("output_mode enum = %v", schema.Properties["output_mode"].Enum)
	}
	if schema.Properties["-A"].Type != "integer" || schema.Properties["-i"].Type != "boolean" {
		t.Errorf("types: -A %q, -i %q", schema.Properties["-A"].Type, schema.Properties["-i"].Type)
	}
	if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Error("the schema must be closed (additionalProperties false)")
	}
}

// TestTimeout: a search past its time limit returns what it found, marked
// incomplete, saying how far it got. The limit is the tool's, shortened
// for the test.
func TestTimeout(t *testing.T) {
	repo := fixtureRepo(t)
	g := testGrep(nil)
	g.timeout = time.Nanosecond
	c := serve(t, g)
	c.Cwd = repo
	res := c.Call("Grep", `{"pattern":"hello"}`)
	if !res.Ok {
		t.Fatalf("a timed-out search failed: %s", res.Message)
	}
	if !strings.HasPrefix(res.Text, "Incomplete: the search stopped at its time limit of 0 ms after searching 0 files under the working directory, so the results below are partial.") {
		t.Errorf("timed-out result does not say it is incomplete and how far it got:\n%s", res.Text)
	}
	if ui := uiOf(t, res.UI); !ui.TimedOut {
		t.Errorf("UI timed_out = false")
	}
}

func TestLimitFollowsHostDeadline(t *testing.T) {
	g := testGrep(nil)
	if got := g.limit(&plugin.Env{}); got != defaultTimeout {
		t.Errorf("limit without a deadline = %v, want %v", got, defaultTimeout)
	}
	got := g.limit(&plugin.Env{Deadline: time.Now().Add(5 * time.Second)})
	if got > 4*time.Second || got < 3*time.Second {
		t.Errorf("limit with the host's deadline 5 s away = %v, want about 4 s (a second kept to report in)", got)
	}
	if got := g.limit(&plugin.Env{Deadline: time.Now().Add(time.Hour)}); got != defaultTimeout {
		t.Errorf("limit with a far deadline = %v, want %v", got, defaultTimeout)
	}
}

func TestTimeoutOnAFile(t *testing.T) {
	repo := fixtureRepo(t)
	g := testGrep(nil)
	g.timeout = time.Nanosecond
	c := serve(t, g)
	c.Cwd = repo
	res := c.Call("Grep", `{"pattern":"item","path":"many.txt","output_mode":"count"}`)
	if res.Text != "Incomplete: the search stopped at its time limit of 0 ms part-way through many.txt, so the results below are partial. Narrow the path, or filter with glob or type.\n\nNo matches were found before it stopped." {
		t.Errorf("timed-out search of one file:\n%s", res.Text)
	}
}
