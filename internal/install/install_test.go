package install

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestConstraints(t *testing.T) {
	versions := []string{"v0.9.0", "v1.0.0", "v1.1.0", "v1.2.3", "v1.3.0-rc.1", "v2.0.0"}
	if k, _ := ParseConstraint("v1.2.3"); k.Allows("v1.2.3+meta") {
		t.Error("an exact pin allows another build")
	}
	for _, c := range []struct{ constraint, want string }{
		{"v1.1.0", "v1.1.0"},
		{"1.1.0", "v1.1.0"},
		{"latest", "v2.0.0"},
		{"~> 1.0", "v1.2.3"},
		{"~> 1.1.0", "v1.1.0"},
		{"~> 1", "v2.0.0"},
		{">= 1.0, < 2.0", "v1.2.3"},
		{">= 1.0, < 2.0, != 1.2.3", "v1.1.0"},
		{"> 2.0", ""},
		{"<= v1.0.0", "v1.0.0"},
		{"= 0.9.0", "v0.9.0"},
		{"v1.3.0-rc.1", "v1.3.0-rc.1"},
		{"v3.0.0+incompatible", "v3.0.0+incompatible"},
	} {
		k, err := ParseConstraint(c.constraint)
		if err != nil {
			t.Fatalf("%q: %v", c.constraint, err)
		}
		got := k.Newest(versions)
		if k.Exact() != "" {
			got = ""
			if k.Allows(c.want) {
				got = c.want
			}
		}
		if got != c.want {
			t.Errorf("%q picks %q, want %q", c.constraint, got, c.want)
		}
	}
	for _, bad := range []string{"", "  ", "one", "~>", ">= x", "1.0 || 2.0"} {
		_, err := ParseConstraint(bad)
		var ie *Error
		if !errors.As(err, &ie) || !ie.Usage {
			t.Errorf("%q: got %v, want a usage error", bad, err)
		}
	}
}

func TestParseSource(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "riot-tool-bin"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		raw  string
		kind Kind
		name string
	}{
		{"example.com/org/repo/cmd/riot-tool-x", GoPackage, "x"},
		{"example.com/org/riot-tool-y/v2", GoPackage, "y"},
		{"./tool", LocalDir, "tool"},
		{"./riot-tool-bin", LocalBinary, "bin"},
		{"https://example.com/r/riot-tool-z_linux_amd64.tar.gz", URL, "z"},
		{"file:///srv/riot-tool-w", URL, "w"},
		{"https://example.com/r/v1/riot-tool-p_{os}_{arch}.tar.gz", URL, "p"},
	} {
		s, err := ParseSource(c.raw, ws)
		if err != nil || s.Kind != c.kind || NameOf(s) != c.name {
			t.Errorf("%q: got %v %q %v, want %v %q", c.raw, s.Kind, NameOf(s), err, c.kind, c.name)
		}
	}
	for raw, want := range map[string]string{
		"":                     "has no source",
		"nodots/pkg":           "no form riot knows",
		"http://example.com/x": "is not a URL riot installs from",
		"https://example.com/": "is not a URL riot installs from",
		"./missing":            "does not exist",
		"example.com/a b":      "no form riot knows",
	} {
		_, err := ParseSource(raw, ws)
		var ie *Error
		if !errors.As(err, &ie) || !ie.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want a usage error with %q", raw, err, want)
		}
	}
}

func TestSumFor(t *testing.T) {
	h := strings.Repeat("ab", 32)
	sums := "# comment\n" + strings.Repeat("cd", 32) + "  other.tar.gz\n" + strings.ToUpper(h) + " *riot-tool-x.tar.gz\n"
	if got, ok := sumFor(sums, "riot-tool-x.tar.gz"); !ok || got != h {
		t.Fatalf("got %q %v", got, ok)
	}
	if _, ok := sumFor(sums, "riot-tool-x"); ok {
		t.Fatal("a file the sums do not list was found")
	}
}

func FuzzConstraint(f *testing.F) {
	for _, s := range []string{"v1.2.3", "~> 1.2", ">= 1.0, < 2.0", "latest", "~> 1", "!= 0.1.0"} {
		f.Add(s, "v1.2.4")
	}
	f.Fuzz(func(t *testing.T, raw, v string) {
		c, err := ParseConstraint(raw)
		if err != nil {
			return
		}
		// What a constraint allows is a valid version, and an exact one
		// allows only itself.
		if c.Allows(v) && canon(strings.TrimPrefix(v, "v")) == "" {
			t.Fatalf("%q allows %q, which is no version", raw, v)
		}
		if e := c.Exact(); e != "" && c.Allows(v) && v != e {
			t.Fatalf("exact %q allows %q", e, v)
		}
	})
}

// A URL source names one binary per platform with {os} and {arch}: the
// URL fetched is this machine's.
func TestPlatformURL(t *testing.T) {
	s, err := ParseSource("https://example.com/r/riot-tool-p_{os}_{arch}.tar.gz", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := "https://example.com/r/riot-tool-p_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	if s.URL.String() != want || s.Raw != "https://example.com/r/riot-tool-p_{os}_{arch}.tar.gz" {
		t.Fatalf("URL %s (raw %s), want %s with the raw source kept", s.URL, s.Raw, want)
	}
}
