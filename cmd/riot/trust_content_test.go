package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pull changes a workspace file behind riot's back, as a git pull, a
// command or the model's Write does: not the user's reviewed edit.
func (e *env) pull(name, body string) {
	e.t.Helper()
	p := filepath.Join(e.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// suggested is the riot command a message tells the user to run, as
// printed ("run: riot trust DIR"), split into its arguments; the paths of
// these tests need no quoting.
func suggested(t *testing.T, text string) []string {
	t.Helper()
	m := regexp.MustCompile(`run: riot (trust [^\s;)]+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no riot trust to run in %q", text)
	}
	return strings.Fields(m[1])
}

// mcpMarker is an .mcp.json whose server leaves marker when it starts.
func mcpMarker(marker string) string {
	return `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "echo ran >> '` + marker + `'"]}}}`
}

// Issue 29 class 4: trust covers the content the user trusted. A file
// that changes later (a pull, a command, the model) adding allow, a mode
// or an MCP server does not loosen; the warning names the file and riot
// trust; riot trust shows what changed and applies it.
func TestTrustCoversTheContentSeen(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", "[permissions]\nask = [\"Bash(rm:*)\"]\n")
	e.trust()
	marker := filepath.Join(e.home, "mcp-ran")
	for _, step := range []struct {
		file, body, keys string
	}{
		{".riot/config.local.toml", "[permissions]\nallow = [\"Bash\"]\n", ".riot/config.local.toml (permissions.allow)"},
		{".riot/config.toml", "[permissions]\nmode = \"bypassPermissions\"\nask = [\"Bash(rm:*)\"]\n", ".riot/config.toml (permissions.mode)"},
		{".mcp.json", mcpMarker(marker), ".mcp.json (mcpServers)"},
	} {
		e.pull(step.file, step.body)
		r := e.riot("", "call", "Bash", `{"command":"touch x"}`)
		r.want(t, 1, "Bash(touch:*)", "riot: this workspace's files changed since you trusted it, so what they set that loosens checks or runs code was ignored: ",
			step.keys, "; to review the change and apply it, run: riot trust "+e.ws+"\n")
		if exists(filepath.Join(e.ws, "x")) || exists(marker) {
			t.Fatalf("after %s changed: a loosening value applied", step.file)
		}
	}
	r := e.riot("", "tools")
	if exists(marker) {
		t.Fatal("a changed .mcp.json started its server")
	}
	e.riot("", "config").want(t, 0, filepath.Join(e.ws, ".riot", "config.toml")+" (changed since you trusted the workspace: ignored permissions.mode; riot trust "+e.ws+" shows the change and applies them)")
	// The remedy, as printed, shows each change and its loosening keys.
	r = e.riot("", suggested(t, r.stderr)...)
	r.want(t, 0,
		".riot/config.toml: changed since you trusted this workspace; it sets permissions.mode\n",
		".riot/config.local.toml: new since you trusted this workspace; it sets permissions.allow\n",
		".mcp.json: new since you trusted this workspace; it sets mcpServers\n",
		"trusted "+e.ws)
	r = e.riot("", "call", "Bash", `{"command":"touch x"}`)
	r.want(t, 0)
	if strings.Contains(r.stderr, "ignored") || !exists(filepath.Join(e.ws, "x")) {
		t.Fatalf("re-trusted, not applied: %s", r.stderr)
	}
	e.riot("", "tools")
	if !exists(marker) {
		t.Fatal("the reviewed .mcp.json did not start its server")
	}
	// Unchanged since, nothing to show.
	r = e.riot("", "trust")
	if r.code != 0 || strings.Contains(r.stdout, "since you trusted") {
		t.Fatalf("nothing changed: %+v", r)
	}
	// Gone since: it only tightened, and riot trust says so.
	if err := os.Remove(filepath.Join(e.ws, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	e.riot("", "trust").want(t, 0, ".mcp.json: removed since you trusted this workspace\n")
}

// A trust recorded before riot kept the files' sums fails closed: the
// workspace's files may only tighten, the warning says why and what to
// run, and running it applies them.
func TestTrustWithoutSumsFailsClosed(t *testing.T) {
	e := newEnv(t)
	e.pull(".riot/config.toml", "[permissions]\nallow = [\"Bash(touch:*)\"]\n")
	record := filepath.Join(e.home, ".config", "riot", "trusted.json")
	if err := os.MkdirAll(filepath.Dir(record), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(record, []byte(`{"version":1,"workspaces":[{"dir":"`+e.ws+`","trusted":true,"at":"2026-12-01T10:00:00Z"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.riot("", "call", "Bash", `{"command":"touch x"}`)
	r.want(t, 1, "riot: this workspace was trusted before riot recorded what its files hold, so what they set that loosens checks or runs code was ignored: .riot/config.toml (permissions.allow); to review it and apply it, run: riot trust "+e.ws)
	e.riot("", "trust", "--list").want(t, 0, e.ws+"\ttrusted (before riot recorded what its files hold: they may only tighten until you run riot trust "+e.ws+")")
	e.riot("", suggested(t, r.stderr)...).want(t, 0, ".riot/config.toml: now applies; it sets permissions.allow")
	e.riot("", "call", "Bash", `{"command":"touch x"}`).want(t, 0)
}

// riot's own write of the user's "always allow" answer, on a terminal,
// keeps applying in a trusted workspace; a change by anyone else to the
// same file does not.
func TestAlwaysAllowInTrustedWorkspaceKeepsApplying(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", "[permissions]\nask = [\"Bash(rm:*)\"]\n")
	e.trust()
	for _, cmd := range []string{"touch x", "mkdir d"} {
		tm := e.onTerminal("call", "Bash", `{"command":"`+cmd+`"}`)
		tm.waitFor("[a] always allow")
		tm.waitFor("Answer: ")
		tm.answer("a")
		if shown, code := tm.wait(); code != 0 || !strings.Contains(shown, "riot: saved to .riot/config.local.toml\n") {
			t.Fatalf("always allow %s: exit %d\n%s", cmd, code, shown)
		}
	}
	r := e.riot("", "call", "Bash", `{"command":"touch y && mkdir d2"}`)
	r.want(t, 0)
	if r.stderr != "" || !exists(filepath.Join(e.ws, "y")) {
		t.Fatalf("the saved rules did not apply: %q", r.stderr)
	}
	local := e.read(".riot/config.local.toml")
	e.pull(".riot/config.local.toml", local+"\n[plugins.evil]\nenabled = true\npath = \"/bin/sh\"\n")
	e.riot("", "call", "Bash", `{"command":"touch z"}`).want(t, 1, "Bash(touch:*)", ".riot/config.local.toml (permissions.allow, plugins.evil); to review the change and apply it, run: riot trust "+e.ws)
	// riot does not vouch for that text with the user's next answer.
	tm := e.onTerminal("call", "Bash", `{"command":"touch z"}`)
	tm.waitFor("[a] always allow")
	tm.waitFor("Answer: ")
	tm.answer("a")
	if shown, code := tm.wait(); code != 0 || !strings.Contains(shown, "riot: the rule goes to .riot/config.local.toml, but that file changed since you trusted this workspace, so later runs ignore what it loosens until you review it with: riot trust "+e.ws) {
		t.Fatalf("always allow over a changed file: exit %d\n%s", code, shown)
	}
	e.riot("", "call", "Bash", `{"command":"touch w"}`).want(t, 1, "Bash(touch:*)")
}

// Issue 30 item 9: trust is the workspace's, so a trusted workspace whose
// only file is .mcp.json starts its servers, and riot plugins install
// does not call it untrusted.
func TestMCPJSONAloneIsTrusted(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.home, "mcp-ran")
	e.pull(".mcp.json", mcpMarker(marker))
	e.trust()
	if r := e.riot("", "tools"); strings.Contains(r.stderr, "not trusted") || !exists(marker) {
		t.Fatalf("the trusted .mcp.json did not start its server: %s", r.stderr)
	}
	r := e.riot("", "plugins", "install")
	r.want(t, 0, "no plugin declares a source")
	if strings.Contains(r.stdout+r.stderr, "not trusted") {
		t.Fatalf("riot plugins install calls a trusted workspace untrusted:\n%s%s", r.stdout, r.stderr)
	}
}

// Issue 30 item 14: what riot plugins and riot call print to enable a
// discovered plugin works as printed, trusted workspace or not.
func TestEnablePluginSuggestionWorks(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		e := newEnv(t)
		e.userConfig("plugin_dirs = [\"" + filepath.Dir(bin.testkit) + "\"]\n")
		if trusted {
			e.write(".riot/config.toml", "[permissions]\nask = [\"Bash(rm:*)\"]\n")
			e.trust()
		}
		for _, args := range [][]string{{"plugins"}, {"call", "Testkit"}} {
			r := e.riot("", args...)
			m := regexp.MustCompile(`add to \.riot/config\.toml:\n\s*(\[plugins\.testkit\])\n\s*(enabled = true)\n\s*then run: riot (trust \S+)\n`).FindStringSubmatch(r.stdout + r.stderr)
			if m == nil {
				t.Fatalf("riot %s (trusted %v): no suggestion to follow:\n%s%s", args[0], trusted, r.stdout, r.stderr)
			}
			old, _ := os.ReadFile(filepath.Join(e.ws, ".riot", "config.toml"))
			e.pull(".riot/config.toml", string(old)+"\n"+m[1]+"\n"+m[2]+"\n")
			e.riot("", strings.Fields(m[3])...).want(t, 0, "trusted ")
			e.riot("", "plugins").want(t, 0, "testkit (plugin, enabled)")
			e.pull(".riot/config.toml", string(old))
			e.riot("", "trust").want(t, 0, "trusted ")
		}
	}
}

// Issue 30 item 14: examples/README.md's steps for the hello plugin work
// as printed there: build it, enable it in .riot/config.toml, riot trust.
func TestExamplesReadmeHelloStepsWork(t *testing.T) {
	e := newEnv(t)
	root := filepath.Dir(goEnv(t, "GOMOD"))
	readme, err := os.ReadFile(filepath.Join(root, "examples", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)- ` + "`hello-tool/`" + `.*?\n\n      (go build [^\n]+)\n.*?\n\n      (\[plugins\.hello\]\n      enabled = true)\n.*?\n\n      (riot trust)\n`).FindSubmatch(readme)
	if m == nil {
		t.Fatalf("examples/README.md has no build, table and riot trust steps for hello-tool:\n%s", readme)
	}
	build := strings.Fields(strings.ReplaceAll(string(m[1]), "~", e.home))
	cmd := exec.Command(build[0], build[1:]...)
	cmd.Dir = root
	cmd.Env = append(e.environ(), "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"), "GOTOOLCHAIN=local", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, out)
	}
	e.pull(".riot/config.toml", strings.ReplaceAll(string(m[2]), "\n      ", "\n")+"\n")
	e.riot("", strings.Fields(string(m[3]))[1:]...).want(t, 0, "trusted ")
	e.riot("", "call", "Hello", `{"name":"readme"}`).want(t, 0, "Hello, readme!")
}

// Issue 30 item 9, from an empty workspace: after riot trust, riot
// plugins install neither calls the workspace untrusted nor leaves what it
// wrote (.riot/config.toml, the binary in .riot/plugins) waiting for
// another riot trust: riot's own writes on the user's command are vouched
// for.
func TestPluginInstallInTrustedEmptyWorkspace(t *testing.T) {
	e := newEnv(t)
	e.trust()
	r := e.riot("", "plugins", "install", bin.testkit, "--name", "kit")
	r.want(t, 0, "kit local installed as "+filepath.Join(e.ws, ".riot", "plugins", "riot-tool-kit"))
	if strings.Contains(r.stdout+r.stderr, "not trusted") {
		t.Fatalf("a trusted workspace was called untrusted:\n%s%s", r.stdout, r.stderr)
	}
	r = e.riot("", "plugins")
	r.want(t, 0, "kit (plugin, enabled)", "found in: .riot/plugins")
	if strings.Contains(r.stderr, "ignored") {
		t.Fatalf("riot's own install waits for riot trust: %s", r.stderr)
	}
	// Removed by riot on the user's command, the rest stays vouched.
	e.riot("", "plugins", "remove", "kit").want(t, 0, "removed kit")
	if r := e.riot("", "plugins"); strings.Contains(r.stderr, "ignored") || strings.Contains(r.stdout, "kit (plugin") {
		t.Fatalf("after remove: %s%s", r.stdout, r.stderr)
	}
}

// An "always allow" answered on the terminal of a session host's client
// is the user's too: saved as the user's, it applies in later runs, with
// the host and without it.
func TestAlwaysAllowThroughSessionHostKeepsApplying(t *testing.T) {
	e := newEnv(t)
	e.userConfig(leakGuard)
	e.write(".riot/config.toml", "[permissions]\nask = [\"Bash(rm:*)\"]\n")
	e.trust()
	startHost(t, e, "S")
	tm := e.onTerminal("call", "--session", "S", "Bash", `{"command":"touch asked"}`)
	tm.waitFor("[a] always allow")
	tm.waitFor("Answer: ")
	tm.answer("a")
	if shown, code := tm.wait(); code != 0 || !exists(filepath.Join(e.ws, "asked")) || !strings.Contains(shown, "riot: saved to .riot/config.local.toml\n") {
		t.Fatalf("always allow through the host: exit %d\n%s", code, shown)
	}
	for _, args := range [][]string{{"call", "--session", "S"}, {"call"}} {
		r := e.riot("", append(args, "Bash", `{"command":"touch later"}`)...)
		r.want(t, 0)
		if strings.Contains(r.stderr, "ignored") {
			t.Fatalf("riot %v: the saved rule waits for riot trust: %s", args, r.stderr)
		}
	}
}
