package lock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func entry() *Entry {
	return &Entry{Source: "example.com/x/cmd/riot-tool-x", Constraint: "~> 1.0", Version: "v1.2.0", Sum: "h1:" + strings.Repeat("A", 43) + "=", Protocol: 1, Tools: []string{"A", "B"}, SHA256: map[string]string{Platform(): sum}}
}

func TestWriteThenReadIsTheSame(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".riot", Name)
	f := &File{Plugins: map[string]*Entry{"x": entry()}}
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	e := got.Plugins["x"]
	if e.Version != "v1.2.0" || e.Constraint != "~> 1.0" || strings.Join(e.Tools, ",") != "A,B" || e.BinarySHA256() != sum || e.Protocol != 1 {
		t.Fatalf("read back %+v", e)
	}
}

func TestMissingFileIsAnEmptyLock(t *testing.T) {
	f, err := Read(filepath.Join(t.TempDir(), Name))
	if err != nil || len(f.Plugins) != 0 {
		t.Fatalf("got %v, %v", f, err)
	}
}

// TestBrokenLocksAreRefusedWithWhereAndWhat: each hand edit riot did not
// write is an Error naming the line and what is wrong.
func TestBrokenLocksAreRefusedWithWhereAndWhat(t *testing.T) {
	good := "version = 1\n\n[plugins.x]\nsource = \"s\"\nversion = \"v1\"\nprotocol = 1\ntools = [\"A\"]\n[plugins.x.sha256]\nlinux_amd64 = \"" + sum + "\"\n"
	if _, err := Parse("L", []byte(good)); err != nil {
		t.Fatalf("a good lock is refused: %v", err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"invalid TOML", "version = 1\n[plugins\n", "to end table name"},
		{"unknown key", strings.Replace(good, "protocol = 1", "protocol = 1\ncolour = 1", 1), `L:7: has an unknown key "plugins.x.colour"`},
		{"wrong type", strings.Replace(good, "protocol = 1", `protocol = "one"`, 1), "has a value of the wrong type"},
		{"other version", strings.Replace(good, "version = 1", "version = 2", 1), "has version 2; this riot reads version 1"},
		{"no source", strings.Replace(good, `source = "s"`, "", 1), "L:3: [plugins.x] has no source"},
		{"no version", strings.Replace(good, `version = "v1"`, "", 1), "[plugins.x] has no version"},
		{"bad sum", strings.Replace(good, "protocol = 1", `protocol = 1`+"\n"+`sum = "h1:short"`, 1), `sum "h1:short" is not an h1: module hash`},
		{"no protocol", strings.Replace(good, "protocol = 1", "", 1), "has no protocol version"},
		{"no tools", strings.Replace(good, `tools = ["A"]`, "tools = []", 1), "lists no tools"},
		{"twice", strings.Replace(good, `tools = ["A"]`, `tools = ["A", "A"]`, 1), `tools lists "A" twice`},
		{"no binary", good[:strings.Index(good, "[plugins.x.sha256]")], "pins no binary"},
		{"bad sha", strings.Replace(good, sum, "xyz", 1), `sha256 linux_amd64 = "xyz" is not`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("L", []byte(c.text))
			var le *Error
			if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "restore it from version control") {
				t.Fatalf("got %v, want an Error with %q", err, c.want)
			}
		})
	}
}

func TestUnreadableLockIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, Name), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(filepath.Join(dir, Name)); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("version = 1\n[plugins.x]\nsource = \"s\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := Parse("L", data)
		if err != nil {
			return
		}
		// Whatever parses is whole: every entry passes validation.
		for name, e := range lf.Plugins {
			if e.problem() != "" {
				t.Fatalf("%s parsed with a problem: %s", name, e.problem())
			}
		}
	})
}
