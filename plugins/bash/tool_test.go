package bash

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

func TestManifest(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	m := c.Manifest()
	var names []string
	for _, s := range m {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"Bash", "BashOutput", "KillShell"}) {
		t.Fatalf("tools in order: %v", names)
	}
	wantCascade := map[string]bool{"Bash": true}
	wantFields := map[string][]string{
		"Bash":       {"command", "description", "run_in_background", "timeout"},
		"BashOutput": {"bash_id", "filter"},
		"KillShell":  {"shell_id"},
	}
	wantRequired := map[string][]string{"Bash": {"command"}, "BashOutput": {"bash_id"}, "KillShell": {"shell_id"}}
	for _, s := range m {
		if s.CascadesOnFailure != wantCascade[s.Name] {
			t.Errorf("%s cascades = %v", s.Name, s.CascadesOnFailure)
		}
		if strings.TrimSpace(s.Prompt) == "" || !strings.Contains(s.Prompt, "NEVER") {
			t.Errorf("%s has no NEVER list in its prompt", s.Name)
		}
		var schema struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		var fields []string
		for name, p := range schema.Properties {
			fields = append(fields, name)
			if p.Description == "" {
				t.Errorf("%s.%s has no description", s.Name, name)
			}
		}
		slices.Sort(fields)
		if !slices.Equal(fields, wantFields[s.Name]) || !slices.Equal(schema.Required, wantRequired[s.Name]) {
			t.Errorf("%s fields %v required %v", s.Name, fields, schema.Required)
		}
		if s.Name == "Bash" && schema.Properties["timeout"].Type != "integer" {
			t.Errorf("timeout is %q, want integer", schema.Properties["timeout"].Type)
		}
	}
}

func TestPromptCoversTheRules(t *testing.T) {
	for _, want := range []string{
		"Grep", "Read", "double quotes", "120000", "600000", "run_in_background", "BashOutput", "KillShell",
		"working directory persists", "environment does not persist", "interactive", "git rebase -i",
		"NEVER use cd when an absolute path would do", "denied permission", "NEVER use cat, head, tail, grep",
		"stop when the plugin or the session ends",
	} {
		if !strings.Contains(bashPrompt, want) {
			t.Errorf("the Bash prompt does not mention %q", want)
		}
	}
	for _, p := range []string{bashOutputPrompt, killShellPrompt} {
		if !strings.Contains(p, "run_in_background") {
			t.Errorf("job tool prompt should say where jobs come from: %q", p)
		}
	}
}

func TestBadInput(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	tests := []struct {
		tool  string
		input string
		want  string
	}{
		{"Bash", `{"command":""}`, "`command` must not be empty; pass the shell command to run"},
		{"Bash", `{"command":"  \n\t"}`, "`command` must not be empty"},
		{"Bash", `{"command":"ls","timeout":0}`, "`timeout` must be from 1 to 600000 milliseconds; leave it out for the default of 120000."},
		{"Bash", `{"command":"ls","timeout":-5}`, "`timeout` must be from 1 to 600000 milliseconds"},
		{"Bash", `{"command":"ls","timeout":600001}`, "`timeout` is 600001 ms, above the limit of 600000 ms (10 minutes)."},
		{"BashOutput", `{"bash_id":" "}`, "`bash_id` must not be empty"},
		{"BashOutput", `{"bash_id":"bash_1","filter":"(a"}`, "`filter` is not a valid RE2 regular expression: missing closing ) in `(a`."},
		{"BashOutput", `{"bash_id":"bash_1","filter":"a**"}`, "`filter` is not a valid RE2 regular expression: invalid nested repetition operator in `**`."},
		{"KillShell", `{"shell_id":""}`, "`shell_id` must not be empty"},
	}
	for _, tt := range tests {
		p := c.Prepare(tt.tool, tt.input)
		if !strings.HasPrefix(p.Rejected, tt.want) {
			t.Errorf("%s %s: rejected %q, want prefix %q", tt.tool, tt.input, p.Rejected, tt.want)
		}
		// Call checks again, as a host may skip Prepare.
		if res := c.Call(tt.tool, tt.input); res.Ok || res.Message != p.Rejected {
			t.Errorf("%s %s: call gave ok=%v %q", tt.tool, tt.input, res.Ok, res.Message)
		}
	}
	for _, ok := range []string{`{"command":"ls","timeout":1}`, `{"command":"ls","timeout":600000}`, `{"command":"ls"}`} {
		if p := c.Prepare("Bash", ok); p.Rejected != "" {
			t.Errorf("%s rejected: %q", ok, p.Rejected)
		}
	}
}

func TestTimeoutDefault(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	if got := (Input{}).timeout().Milliseconds(); got != defaultTimeoutMs {
		t.Fatalf("default timeout %d ms", got)
	}
	if got := (Input{Timeout: ms(1500)}).timeout().Milliseconds(); got != 1500 {
		t.Fatalf("timeout %d ms", got)
	}
}

func TestDescribe(t *testing.T) {
	b := &Bash{}
	long := "find . -name '*.go' -newer go.mod -print | xargs wc -l | sort -n | tail -20 | awk '{print $2}'"
	tests := []struct {
		in   Input
		want string
	}{
		{Input{Command: "ls", Description: "List files"}, "List files"},
		{Input{Command: "ls", Description: "  List\nfiles  "}, "List files"},
		{Input{Command: "git   status\n && git diff"}, "git status && git diff"},
		{Input{Command: long}, "find . -name '*.go' -newer go.mod -print | xargs wc -l | sor…"},
		{Input{Command: strings.Repeat("é", 70)}, strings.Repeat("é", 60) + "…"},
		{Input{Command: strings.Repeat("é", 60)}, strings.Repeat("é", 60)},
		{Input{Command: strings.Repeat("ab ", 30)}, strings.TrimSpace(strings.Repeat("ab ", 20)) + "…"},
	}
	for _, tt := range tests {
		if got := b.Describe(tt.in); got != tt.want {
			t.Errorf("Describe(%q) = %q, want %q", tt.in.Command, got, tt.want)
		}
	}
}

func TestDescribeJobTools(t *testing.T) {
	o, k := &BashOutput{}, &KillShell{}
	if got := o.Describe(OutputInput{BashID: "bash_1"}); got != "Read output of bash_1" {
		t.Errorf("BashOutput: %q", got)
	}
	if got := o.Describe(OutputInput{BashID: "bash_1", Filter: "err(or)?\n"}); got != "Read output of bash_1 matching err(or)?" {
		t.Errorf("BashOutput with filter: %q", got)
	}
	if got := k.Describe(KillInput{ShellID: "bash_2"}); got != "Stop background job bash_2" {
		t.Errorf("KillShell: %q", got)
	}
}

func TestPrepareProperties(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	sub := filepath.Join(c.Cwd, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}

	p := c.Prepare("Bash", run("ls -la"))
	if !p.ReadOnly || !p.ConcurrencySafe {
		t.Errorf("ls -la: %+v", p)
	}
	if p.ClassifierInput != "Run shell command: ls -la (in "+c.Cwd+")" {
		t.Errorf("classifier input %q", p.ClassifierInput)
	}
	if p.Permission != plugin.Passthrough {
		t.Errorf("Bash takes no position in the chain: %v", p.Permission)
	}

	p = c.Prepare("Bash", run("rm -rf build"))
	if p.ReadOnly || p.ConcurrencySafe {
		t.Errorf("rm -rf must be neither read-only nor concurrency-safe: %+v", p)
	}

	// Paths resolve against the session's directory.
	c.State[cwdStateKey] = sub
	p = c.Prepare("Bash", run("cat notes.txt"))
	if !slices.Contains(p.Subjects, plugin.Subject{Kind: plugin.CommandSubject, Value: "cat notes.txt"}) ||
		!slices.Contains(p.Subjects, plugin.ReadPath(filepath.Join(sub, "notes.txt"))) {
		t.Errorf("cat notes.txt subjects: %+v", p.Subjects)
	}
	if p.ClassifierInput != "Run shell command: cat notes.txt (in "+sub+")" {
		t.Errorf("classifier input %q", p.ClassifierInput)
	}

	for _, tool := range []struct {
		name, input string
		readOnly    bool
	}{
		{"BashOutput", `{"bash_id":"bash_1"}`, true},
		{"KillShell", `{"shell_id":"bash_1"}`, false},
	} {
		p := c.Prepare(tool.name, tool.input)
		if p.ReadOnly != tool.readOnly || p.ConcurrencySafe != tool.readOnly || p.ClassifierInput == "" || p.Describe == "" {
			t.Errorf("%s: %+v", tool.name, p)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	cfg := defaultConfig()
	// The issue fixes the kill grace; the others bound how long a call can
	// outlast its command.
	if cfg.killGrace != 2*time.Second || cfg.drainGrace != 200*time.Millisecond || cfg.abandonAfter != 500*time.Millisecond {
		t.Fatalf("config %+v", cfg)
	}
	if cfg.tempDir != os.TempDir() || cfg.lookPath == nil {
		t.Fatalf("config %+v", cfg)
	}
}

func TestGitEnv(t *testing.T) {
	for environ, want := range map[string]string{
		"PATH=/bin HOME=/h":             "",
		"GIT_PAGER=less":                "",
		"A=1 GIT_DIR=/x":                "GIT_DIR",
		"GIT_WORK_TREE=/w":              "GIT_WORK_TREE",
		"GIT_CONFIG_COUNT=1":            "GIT_CONFIG_COUNT",
		"GIT_INDEX_FILE=/i GIT_DIR=/x":  "GIT_INDEX_FILE",
		"XGIT_DIR=1 GIT_DIRECTORY=/not": "",
	} {
		if got := gitEnv(strings.Fields(environ)); got != want {
			t.Errorf("gitEnv(%s) = %q, want %q", environ, got, want)
		}
	}
}
