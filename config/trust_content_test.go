package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

// Trust covers the content the user trusted: a workspace file created or
// changed since may only tighten, and says so; the rest still applies.
func TestTrustCoversContent(t *testing.T) {
	w := newTrustCase(t, map[string]string{
		".riot/config.toml": "[permissions]\nallow = [\"Bash(make:*)\"]\n",
	})
	w.trust(t)
	c := w.load(t, Options{})
	if len(c.Trust.Ignored) != 0 || len(c.Trust.Changed) != 0 || c.Trust.Unsummed {
		t.Fatalf("as trusted: %+v", c.Trust)
	}
	cfgFile, local := filepath.Join(w.ws, ".riot", "config.toml"), LocalFile(w.ws)
	// A local file the user never saw, and a changed config.toml.
	if err := os.WriteFile(local, []byte("[permissions]\nmode = \"bypassPermissions\"\ndeny = [\"Read(x)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, []byte("[permissions]\nallow = [\"Bash\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = w.load(t, Options{})
	if got := strings.Join(ignoredKeys(c), " "); got != "permissions.allow@"+cfgFile+":2 permissions.mode@"+local+":2" {
		t.Fatalf("ignored %s", got)
	}
	if !c.Trust.Trusted() || !c.Trust.ChangedSince(cfgFile) || !c.Trust.ChangedSince(local) {
		t.Fatalf("changed: %+v", c.Trust)
	}
	if c.Permissions.Mode != "default" || c.Permissions.Allow[len(c.Permissions.Allow)-1].Source.Layer == "workspace" {
		t.Fatalf("a changed file loosened: mode %s, allow %+v", c.Permissions.Mode, c.Permissions.Allow)
	}
	if d := c.Permissions.Deny[len(c.Permissions.Deny)-1]; d.Text != "Read(x)" {
		t.Fatalf("a changed file's deny rule did not apply: %+v", c.Permissions.Deny)
	}
	// What the load read is what trusting records: then it applies.
	if _, err := w.store.Trust(w.ws, c.Trust.Sums, time.Now()); err != nil {
		t.Fatal(err)
	}
	if c = w.load(t, Options{}); len(c.Trust.Ignored) != 0 || c.Permissions.Mode != "bypassPermissions" {
		t.Fatalf("re-trusted: %+v", c.Trust)
	}
	// A file removed since only tightens: nothing to say.
	if err := os.Remove(local); err != nil {
		t.Fatal(err)
	}
	if c = w.load(t, Options{}); len(c.Trust.Ignored) != 0 || len(c.Trust.Changed) != 0 {
		t.Fatalf("removed: %+v", c.Trust)
	}
}

// A trust recorded before riot kept sums vouches for no file: fail closed
// until the user runs riot trust again.
func TestUnsummedTrustFailsClosed(t *testing.T) {
	w := newTrustCase(t, map[string]string{".riot/config.toml": "[permissions]\nmode = \"dontAsk\"\n"})
	if err := os.MkdirAll(filepath.Dir(w.store.File), 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{"version":1,"workspaces":[{"dir":"` + w.ws + `","trusted":true,"at":"2026-12-01T10:00:00Z"}]}`
	if err := os.WriteFile(w.store.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c := w.load(t, Options{})
	if !c.Trust.Trusted() || !c.Trust.Unsummed || c.Permissions.Mode != "default" || !c.Trust.ChangedSince(filepath.Join(w.ws, ".riot", "config.toml")) {
		t.Fatalf("old record: mode %s, %+v", c.Permissions.Mode, c.Trust)
	}
}

// Issue 30 item 9: trust is the workspace's, so a trusted workspace whose
// only file is .mcp.json starts its servers, and one whose .mcp.json
// changed since does not.
func TestMCPJSONAloneInTrustedWorkspace(t *testing.T) {
	w := newTrustCase(t, map[string]string{".mcp.json": `{"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`})
	w.trust(t)
	c := w.load(t, Options{})
	if err := c.LoadMCPJSON(w.ws); err != nil {
		t.Fatal(err)
	}
	if !c.Trust.Trusted() || len(c.MCPServers) != 1 || len(c.Trust.Ignored) != 0 {
		t.Fatalf("trusted .mcp.json alone: servers %+v, %+v", c.MCPServers, c.Trust)
	}
	// Read apart from Load's workspace, it looks the trust up itself.
	c, err := Load(Options{UserFile: w.user, TrustFile: w.store.File, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.LoadMCPJSON(w.ws); err != nil || len(c.MCPServers) != 1 || c.Trust.Workspace != w.ws {
		t.Fatalf("apart from Load: %v, servers %+v", err, c.MCPServers)
	}
	if err := os.WriteFile(filepath.Join(w.ws, ".mcp.json"), []byte(`{"mcpServers": {"evil": {"command": "sh"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c = w.load(t, Options{})
	if err := c.LoadMCPJSON(w.ws); err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 0 || strings.Join(ignoredKeys(c), " ") != "mcpServers@"+filepath.Join(w.ws, ".mcp.json") || !c.Trust.ChangedSince(filepath.Join(w.ws, ".mcp.json")) {
		t.Fatalf("changed .mcp.json: servers %+v, %+v", c.MCPServers, c.Trust)
	}
}

// A plugin binary added to, or replaced in, a trusted workspace's
// .riot/plugins is not searched until riot trust runs again.
func TestPluginsDirContentIsTrusted(t *testing.T) {
	w := newTrustCase(t, map[string]string{".riot/plugins/riot-tool-a": "#!/bin/sh\n"})
	getenv := func(string) string { return "" }
	w.trust(t)
	c := w.load(t, Options{})
	if !c.Trust.SearchesPlugins() || len(c.Discover(w.ws, "", getenv)) != 1 {
		t.Fatalf("as trusted: %+v", c.Trust)
	}
	for _, change := range []func(dir string) error{
		func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "riot-tool-b"), []byte("#!/bin/sh\n"), 0o755)
		},
		func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "riot-tool-a"), []byte("#!/bin/sh\necho\n"), 0o755)
		},
		func(dir string) error { return os.Chmod(filepath.Join(dir, "riot-tool-a"), 0o644) },
	} {
		w.trust(t)
		dir := filepath.Join(w.ws, ".riot", "plugins")
		if err := change(dir); err != nil {
			t.Fatal(err)
		}
		c = w.load(t, Options{})
		if c.Trust.SearchesPlugins() || len(c.Discover(w.ws, "", getenv)) != 0 || strings.Join(ignoredKeys(c), " ") != "discovery@"+dir {
			t.Fatalf("changed: %v, %+v", ignoredKeys(c), c.Trust)
		}
	}
}

// The user's "always allow" answer is written and vouched for in one
// step, trusted or not; over text nobody vouched for it writes nothing.
func TestAppendAllowRulesAsUser(t *testing.T) {
	w := newTrustCase(t, map[string]string{".riot/config.toml": "[permissions]\nmode = \"acceptEdits\"\n"})
	w.trust(t)
	if err := AppendAllowRulesAsUser(w.store, w.ws, []string{"Bash(touch:*)", "Bash(mkdir:*)"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	c := w.load(t, Options{})
	if len(c.Trust.Ignored) != 0 || c.Permissions.Allow[len(c.Permissions.Allow)-1].Text != "Bash(mkdir:*)" || c.Permissions.Mode != "acceptEdits" {
		t.Fatalf("after the answer: %v %+v", ignoredKeys(c), c.Permissions.Allow)
	}
	if data, err := os.ReadFile(filepath.Join(w.ws, ".gitignore")); err != nil || !strings.Contains(string(data), ".riot/config.local.toml") {
		t.Fatalf(".gitignore: %q, %v", data, err)
	}
	if err := AppendAllowRulesAsUser(w.store, w.ws, []string{" "}, time.Now()); err == nil || err.Error() != "the rule is empty" {
		t.Fatalf("an empty rule: %v", err)
	}
	theirs := "[permissions]\nallow = [\"Bash\"]\n"
	if err := os.WriteFile(LocalFile(w.ws), []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendAllowRulesAsUser(w.store, w.ws, []string{"Bash(ls:*)"}, time.Now()); !errors.Is(err, trust.ErrNotVouched) {
		t.Fatalf("over unvouched text: %v", err)
	}
	if data, _ := os.ReadFile(LocalFile(w.ws)); string(data) != theirs {
		t.Fatalf("wrote over unvouched text: %q", data)
	}
}

// ContentSums are what riot trust records: each of ContentFiles that
// exists, .riot/plugins as its riot-tool-* entries together.
func TestContentSums(t *testing.T) {
	w := newTrustCase(t, map[string]string{
		".riot/config.toml":         "[permissions]\n",
		".mcp.json":                 "{}",
		".riot/plugins/riot-tool-a": "#!/bin/sh\n",
		".riot/plugins/README":      "not a plugin",
	})
	if err := os.Mkdir(filepath.Join(w.ws, ".riot", "plugins", "riot-tool-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	sums, err := ContentSums(w.ws)
	if err != nil || len(sums) != 3 || sums[".riot/config.toml"] != trust.Sum([]byte("[permissions]\n")) || sums[".mcp.json"] != trust.Sum([]byte("{}")) || sums[PluginsDirName] == "" {
		t.Fatalf("sums %v, %v", sums, err)
	}
	if s, err := ContentSum(w.ws, trust.LocalName); s != "" || err != nil {
		t.Fatalf("absent local file: %q, %v", s, err)
	}
	// Only riot-tool-* entries count, and a directory of that name is
	// not content a file can take.
	if err := os.WriteFile(filepath.Join(w.ws, ".riot", "plugins", "README"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := ContentSum(w.ws, PluginsDirName); s != sums[PluginsDirName] {
		t.Fatal("a file that is no plugin changed the sum")
	}
	if err := os.Remove(filepath.Join(w.ws, ".riot", "plugins", "riot-tool-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.ws, ".riot", "plugins", "riot-tool-dir"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if s, _ := ContentSum(w.ws, PluginsDirName); s == sums[PluginsDirName] {
		t.Fatal("a directory replaced by a binary left the sum as it was")
	}
	// A file riot cannot read is an error naming it, not an absent file.
	if err := os.Remove(filepath.Join(w.ws, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w.ws, ".mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ContentSums(w.ws); err == nil || !strings.Contains(err.Error(), filepath.Join(w.ws, ".mcp.json")) {
		t.Fatalf("unreadable: %v", err)
	}
	for ws, want := range map[string]bool{"": false, t.TempDir(): false, w.ws: true} {
		if got := hasContent(ws); got != want {
			t.Errorf("hasContent(%q) = %v", ws, got)
		}
	}
	only := newTrustCase(t, map[string]string{".riot/plugins/riot-tool-x": "x"})
	if !hasContent(only.ws) {
		t.Fatal(".riot/plugins alone is content")
	}
}
