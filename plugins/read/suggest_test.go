package read

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

func TestSimilarity(t *testing.T) {
	tests := []struct {
		target, cand string
		ok           bool
	}{
		{"main.go", "main.go", false}, // the same name is no suggestion
		{"Makefile", "makefile", true},
		{"mian.go", "main.go", true},
		{"main.go", "main.rs", true},      // same stem
		{"README", "README.md", true},     // same stem
		{"READ.md", "README.md", true},    // two edits in nine characters
		{"config", "config.toml", true},   // prefix
		{"main.go.orig", "main.go", true}, // prefix the other way
		{"ab", "abc", true},               // short: one edit allowed
		{"ab", "xy", false},
		{"a", "abc", false}, // too short for a prefix match
		{"server.go", "client.go", false},
		{"confg.yaml", "config.yaml", true},
		{"abcdefghijkl", "abcxyzghijkl", true}, // 12 characters: three edits
		{"abcdefghijkl", "abwxyzghijkl", false},
		{"a-long-file-name-here.txt", "a-lng-fil-nme-hre.txt", true},      // four edits in 25
		{".bashrc", ".zshrc", false},                                      // dotfiles have no stem to share
		{strings.Repeat("a", 70), strings.Repeat("a", 70) + ".txt", true}, // long: prefix only
		{strings.Repeat("a", 70), strings.Repeat("b", 70), false},
		// 64 characters is still compared by distance; one name over it is not.
		{strings.Repeat("a", 63) + "b", strings.Repeat("a", 63) + "c", true},
		{"abcdefghij", "abcdefghij" + strings.Repeat("x", 60), true},
	}
	for _, tt := range tests {
		if _, ok := similarity(tt.target, tt.cand); ok != tt.ok {
			t.Errorf("similarity(%q, %q) ok = %v, want %v", tt.target, tt.cand, ok, tt.ok)
		}
	}
	// Ranked by distance relative to length: a case change first, then one
	// edit in seven, then two in nine, then another extension.
	order := []string{"Main.go", "mian.go", "mainxy.go", "main.rs"}
	prev := -1
	for _, cand := range order {
		score, ok := similarity("main.go", cand)
		if !ok || score <= prev {
			t.Errorf("similarity(main.go, %s) = %d, %v: not ranked after the one before (%d)", cand, score, ok, prev)
		}
		prev = score
	}
}

func TestDistanceAllowed(t *testing.T) {
	for n, want := range map[int]int{0: 1, 2: 1, 7: 1, 8: 2, 11: 2, 12: 3, 40: 10} {
		if got := distanceAllowed(n); got != want {
			t.Errorf("distanceAllowed(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestSimilarNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"main.go", "main_test.go", "mains.go", "maim.go", "other.go"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "mainx.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Best first, ties by name, at most three, files only.
	if got := similarNames(dir, "mainn.go", false, nil); fmt.Sprint(got) != "[main.go mains.go maim.go]" {
		t.Errorf("files: %v", got)
	}
	if got := similarNames(dir, "mainy.go", true, nil); fmt.Sprint(got) != "[mainx.go]" {
		t.Errorf("directories: %v", got)
	}
	if got := similarNames(filepath.Join(dir, "missing"), "x", false, nil); len(got) != 0 {
		t.Errorf("missing directory: %v", got)
	}
}

func TestSimilarNamesScanIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 7 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ batch, maxScan, scanned, found int }{
		{2, 3, 3, 3},   // a short last batch
		{2, 2, 2, 2},   // stops at the bound
		{2, 100, 7, 3}, // several batches to the end
		{512, 100, 7, 3},
		{3, 6, 6, 3},
	}
	for _, tt := range tests {
		names, scanned := similarNamesScan(dir, "file.txt", false, tt.batch, tt.maxScan, nil)
		if scanned != tt.scanned || len(names) != tt.found {
			t.Errorf("batch %d, max %d: scanned %d, found %v", tt.batch, tt.maxScan, scanned, names)
		}
	}
}

func TestWebpSize(t *testing.T) {
	riff := func(chunk string, payload ...byte) []byte {
		b := append([]byte("RIFF\x00\x00\x00\x00WEBP"+chunk+"\x00\x00\x00\x00"), payload...)
		return b
	}
	// VP8X: flags and reserved (4 bytes), then 24-bit width-1 and height-1:
	// exactly 30 bytes.
	vp8x := riff("VP8X", 0, 0, 0, 0, 0x3f, 0x01, 0x00, 0xc7, 0x00, 0x00)
	// VP8: a 3-byte frame tag, the start code, then 14-bit sizes: 30 bytes.
	vp8 := riff("VP8 ", 0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xc8, 0x00)
	tests := []struct {
		name string
		data []byte
		w, h int
		ok   bool
	}{
		{"VP8X", vp8x, 320, 200, true},
		{"VP8", vp8, 320, 200, true},
		{"VP8 without its start code", riff("VP8 ", 0, 0, 0, 0x9d, 0x01, 0x2b, 0x40, 0x01, 0xc8, 0x00), 0, 0, false},
		{"VP8L without its signature", riff("VP8L", 0x2e, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, 0, false},
		{"too short", vp8x[:29], 0, 0, false},
		{"unknown chunk", riff("VP9 ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, 0, false},
	}
	for _, tt := range tests {
		w, h, ok := webpSize(tt.data)
		if w != tt.w || h != tt.h || ok != tt.ok {
			t.Errorf("%s: %d×%d %v", tt.name, w, h, ok)
		}
	}
}

func TestInFence(t *testing.T) {
	root := t.TempDir()
	results := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(outside, "back")); err != nil {
		t.Fatal(err)
	}
	env := &plugin.Env{Cwd: root, Roots: []string{root, "", "relative"}, ResultsDirs: []string{results}}
	tests := []struct {
		path string
		want bool
	}{
		{root, true},
		{filepath.Join(root, "a/b/missing.txt"), true},
		{filepath.Join(results, "call.txt"), true},
		{filepath.Join(root, "link", "x.txt"), false},   // a symlink out of the root
		{filepath.Join(outside, "back", "x.txt"), true}, // a symlink into it
		{outside, false},
		{root + "-sibling/x", false}, // a shared prefix is not containment
		{filepath.Join(root, ".."), false},
		{"/", false},
	}
	for _, tt := range tests {
		if got := env.InFence(filepath.Clean(tt.path)); got != tt.want {
			t.Errorf("InFence(%s) = %v", tt.path, got)
		}
	}
	if (&plugin.Env{Cwd: root}).InFence(filepath.Join(root, "x")) {
		t.Error("with no roots, nothing is inside")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"src/main.go": "src/main.go", "my dir": "'my dir'", "it's": `'it'\''s'`, "": "''", "$(rm -rf x)": "'$(rm -rf x)'", "a;b": "'a;b'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
