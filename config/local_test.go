package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadAllow loads the workspace's layers and returns the allow rules.
func loadAllow(t *testing.T, ws string) []Rule {
	t.Helper()
	st := trust.Store{File: filepath.Join(t.TempDir(), "trusted.json")}
	sums, err := ContentSums(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Trust(ws, sums, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{Workspace: ws, UserFile: filepath.Join(ws, "no-user.toml"), TrustFile: st.File, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// Only the rules the files give, not the defaults'.
	var rules []Rule
	for _, r := range c.Permissions.Allow {
		if r.Source.Layer != "default" {
			rules = append(rules, r)
		}
	}
	return rules
}

func TestAppendAllowRuleCreates(t *testing.T) {
	ws := t.TempDir()
	path, err := AppendAllowRule(ws, "Bash(touch:*)")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(ws, ".riot", "config.local.toml") {
		t.Errorf("path %s", path)
	}
	if got := readFile(t, path); got != "[permissions]\nallow = [\"Bash(touch:*)\"]\n" {
		t.Errorf("file %q", got)
	}
	if got := readFile(t, filepath.Join(ws, ".gitignore")); got != ".riot/config.local.toml\n" {
		t.Errorf(".gitignore %q", got)
	}
	if _, err := AppendAllowRule(ws, `Bash(echo "a\b")`); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(ws, "Bash(touch:*)"); err != nil { // already there
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "[permissions]\nallow = [\"Bash(touch:*)\", \"Bash(echo \\\"a\\\\b\\\")\"]\n" {
		t.Errorf("file %q", got)
	}
	if got := readFile(t, filepath.Join(ws, ".gitignore")); got != ".riot/config.local.toml\n" {
		t.Errorf(".gitignore changed: %q", got)
	}
	rules := loadAllow(t, ws)
	if len(rules) != 2 || rules[0].Text != "Bash(touch:*)" || rules[1].Text != `Bash(echo "a\b")` ||
		rules[0].Source.Layer != "local" || rules[0].Source.File != path || rules[0].Source.Line != 2 {
		t.Errorf("loaded %+v", rules)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v %v", info.Mode(), err)
	}
	if _, err := AppendAllowRule(ws, "  "); err == nil {
		t.Error("an empty rule is written")
	}
}

func TestAppendAllowRuleEdits(t *testing.T) {
	for _, c := range []struct {
		name, before, after string
	}{
		{"empty file", "", "[permissions]\nallow = [\"R\"]\n"},
		{"other tables", "# mine\n[limits]\nmax_parallel = 4\n",
			"# mine\n[limits]\nmax_parallel = 4\n\n[permissions]\nallow = [\"R\"]\n"},
		{"no final newline", "[limits]\nmax_parallel = 4",
			"[limits]\nmax_parallel = 4\n\n[permissions]\nallow = [\"R\"]\n"},
		{"a table without allow", "[permissions] # local\nmode = \"plan\"\n\n[log]\nlevel = \"info\"\n",
			"[permissions] # local\nallow = [\"R\"]\nmode = \"plan\"\n\n[log]\nlevel = \"info\"\n"},
		{"an empty list", "[permissions]\nallow = []\n", "[permissions]\nallow = [\"R\"]\n"},
		{"one rule", "[permissions]\nallow = [\"A\"] # keep\n", "[permissions]\nallow = [\"A\", \"R\"] # keep\n"},
		{"a trailing comma", "[permissions]\nallow = [\"A\",]\n", "[permissions]\nallow = [\"A\", \"R\"]\n"},
		{"multi-line", "[permissions]\nallow = [\n  \"A\", # why\n  \"B\",\n]\ndeny = [\"C\"]\n",
			"[permissions]\nallow = [\n  \"A\", # why\n  \"B\",\n  \"R\",\n]\ndeny = [\"C\"]\n"},
		{"multi-line, no comma", "[permissions]\nallow = [\n  \"A\"\n]\n", "[permissions]\nallow = [\n  \"A\",\n  \"R\",\n]\n"},
		{"brackets in strings", "[permissions]\nallow = [\"Bash(echo ])\", 'Read([a])']\n",
			"[permissions]\nallow = [\"Bash(echo ])\", 'Read([a])', \"R\"]\n"},
		{"after a subtable", "[permissions.classifier]\nurl = \"http://x\"\n[permissions]\nmode = \"plan\"\n",
			"[permissions.classifier]\nurl = \"http://x\"\n[permissions]\nallow = [\"R\"]\nmode = \"plan\"\n"},
		{"allow in another table is not it", "[permissions]\nmode = \"plan\"\n[plugins.x]\nargs = [\"allow = [\"]\n",
			"[permissions]\nallow = [\"R\"]\nmode = \"plan\"\n[plugins.x]\nargs = [\"allow = [\"]\n"},
		// Layouts the text edit does not handle are re-encoded.
		{"dotted keys", "permissions.mode = \"plan\"\n",
			"# riot's local permission grants: machine-managed, not committed.\n[permissions]\n  allow = [\"R\"]\n  mode = \"plan\"\n"},
		{"an inline table", "permissions = {allow = [\"A\"]}\n",
			"# riot's local permission grants: machine-managed, not committed.\n[permissions]\n  allow = [\"A\", \"R\"]\n"},
		{"multi-line strings", "[permissions]\nallow = [\"\"\"A\"\"\", '''B''']\n",
			"[permissions]\nallow = [\"\"\"A\"\"\", '''B''', \"R\"]\n"},
	} {
		got, err := appendEntry(c.before, permissionsAllow, "R", Source{Layer: "local", File: "f.toml"})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.after {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.after)
		}
	}
}

func TestAppendAllowRuleRefusesABadFile(t *testing.T) {
	ws := t.TempDir()
	path := LocalFile(ws)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"[permissions\n", "[permissions]\nallwo = []\n", "[permissions]\nallow = 3\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := AppendAllowRule(ws, "R")
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v", bad, err)
		}
		if got := readFile(t, path); got != bad {
			t.Errorf("%q was changed to %q", bad, got)
		}
	}
	// Unreadable: a directory where the file should be.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(ws, "R"); err == nil {
		t.Error("a directory in place of the file is no error")
	}
	// .riot is a file: nowhere to write.
	ws = t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".riot"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(ws, "R"); err == nil {
		t.Error("no error when .riot is a file")
	}
	// .gitignore is a directory: the rule is written, and the error said.
	ws = t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".gitignore"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(ws, "R"); err == nil {
		t.Error("no error when .gitignore cannot be written")
	}
}

func TestAppendAllowRuleGitignore(t *testing.T) {
	for _, c := range []struct {
		before string
		adds   bool
	}{
		{"", true},
		{"node_modules/\n", true},
		{"node_modules/", true},
		{".riot/config.local.toml\n", false},
		{"/.riot/config.local.toml\n", false},
		{".riot/\n", false},
		{"/.riot/\n", false},
		{".riot\n", false},
		{".riot/*\n", false},
		{"config.local.toml\n", false},
		{"*.local.toml\n", false},
		{"**/config.local.toml\n", false},
		{"# .riot/config.local.toml\n", true},
		{".riot/config.local.toml\n!.riot/config.local.toml\n", true},
		{".riot/\n!.riot/config.local.toml\n", false}, // a file in an ignored directory stays ignored
		{".riot/\n!.riot/\n", true},
		{"config.local.toml/\n", true}, // directories only
		{"src/.riot/\n", true},
		{".riot/config.local.toml   \n", false},
	} {
		ws := t.TempDir()
		if c.before != "" {
			if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := AppendAllowRule(ws, "R"); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, filepath.Join(ws, ".gitignore"))
		want := c.before
		if c.adds {
			if want != "" && !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			want += ".riot/config.local.toml\n"
		}
		if got != want {
			t.Errorf("%q: .gitignore became %q, want %q", c.before, got, want)
		}
	}
}

func TestTomlString(t *testing.T) {
	for in, want := range map[string]string{
		"Bash(ls)":     `"Bash(ls)"`,
		`a"b\c`:        `"a\"b\\c"`,
		"tab\there":    `"tab\u0009here"`,
		"del\x7f":      `"del\u007F"`,
		"unicode é ✓":  `"unicode é ✓"`,
		"nl\n":         `"nl\u000A"`,
		"":             `""`,
		"x\x1b[31m":    `"x\u001B[31m"`,
		"Read(./a b)":  `"Read(./a b)"`,
		"Bash(echo ')": `"Bash(echo ')"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
		m, err := decodeMap("k = " + tomlString(in))
		if err != nil || m["k"] != in {
			t.Errorf("%q does not decode back: %v %v", in, m["k"], err)
		}
	}
}

func TestArrayEnd(t *testing.T) {
	for src, want := range map[string]int{
		`[]`:                 1,
		`[[1], [2]]`:         9,
		`["]"]`:              4,
		`['a]']`:             5,
		`["\"]"]`:            6,
		"[ # ]\n]":           6,
		`["""]"""]`:          8,
		`[''']''']`:          8,
		`[`:                  -1,
		`["]`:                -1,
		"[\"a\n\"]":          -1,
		`["""]`:              -1,
		`['''x`:              -1,
		"[ # unterminated ]": -1,
	} {
		if got := arrayEnd(src, 0); got != want {
			t.Errorf("arrayEnd(%q) = %d, want %d", src, got, want)
		}
	}
	if !slices.Equal([]int{arrayEnd("x = [1]", 4)}, []int{6}) {
		t.Error("arrayEnd from an offset")
	}
}
