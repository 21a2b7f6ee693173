package read_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuggestionsNearNames: a missing name gets the names near it by an
// edit distance relative to its length, or by the same stem, best first.
func TestSuggestionsNearNames(t *testing.T) {
	c := serve(t)
	for _, name := range []string{"README.md", "config.toml", "config.yaml", "server_test.go", "a-long-file-name-here.txt"} {
		write(t, c.Cwd, name, []byte("x\n"))
	}
	for path, want := range map[string]string{
		"READ.md":               "Did you mean README.md?",
		"config.json":           "Did you mean one of: config.toml, config.yaml?",
		"server_tset.go":        "Did you mean server_test.go?",
		"a-lng-fil-nme-hre.txt": "Did you mean a-long-file-name-here.txt?",
	} {
		p := c.Prepare("Read", map[string]any{"file_path": path})
		if !strings.HasPrefix(p.Rejected, "File does not exist: "+path+".") || !strings.Contains(p.Rejected, "\n"+want+" Call Read again with the right path.") {
			t.Errorf("%s: rejected = %q, want %q", path, p.Rejected, want)
		}
	}
}

// TestSuggestionsNeverNameADeniedFile: "Did you mean" never names a file
// the deny rules cover, nor a link out of the fence, and the next best
// takes its place.
func TestSuggestionsNeverNameADeniedFile(t *testing.T) {
	c := serve(t)
	outside := t.TempDir()
	write(t, outside, "secret.txt", []byte("s3cret\n"))
	write(t, c.Cwd, "secret.txt", []byte("s3cret\n"))
	write(t, c.Cwd, "secrets.txt", []byte("fine\n"))
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(c.Cwd, "secret.tx")); err != nil {
		t.Fatal(err)
	}
	c.DenyRead = []string{"/**/secret.txt"}
	for _, path := range []string{"secret.txx", "secre.txt", "secret.txtt"} {
		p := c.Prepare("Read", map[string]any{"file_path": path})
		if strings.Contains(p.Rejected, "secret.txt,") || strings.Contains(p.Rejected, "secret.txt?") || strings.Contains(p.Rejected, "secret.tx,") || strings.Contains(p.Rejected, "secret.tx?") {
			t.Errorf("%s: a denied or outside file is suggested: %q", path, p.Rejected)
		}
		if !strings.Contains(p.Rejected, "Did you mean secrets.txt?") {
			t.Errorf("%s: the next best name is not offered: %q", path, p.Rejected)
		}
	}
	// Without the rule, the file is offered.
	c.DenyRead = nil
	if p := c.Prepare("Read", map[string]any{"file_path": "secret.txx"}); !strings.Contains(p.Rejected, "secret.txt,") {
		t.Errorf("without deny rules: %q", p.Rejected)
	}
}

// The check that the suggestion test is not vacuous: with a rule, the
// denied name was a candidate (it is the nearest), so leaving it out is
// the filter's doing.
func TestDeniedSuggestionWasACandidate(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "secret.txt", []byte("s3cret\n"))
	p := c.Prepare("Read", map[string]any{"file_path": "secret.txx"})
	if !strings.Contains(p.Rejected, "Did you mean secret.txt?") {
		t.Fatalf("rejected = %q", p.Rejected)
	}
	c.DenyRead = []string{"/**/secret.txt"}
	p = c.Prepare("Read", map[string]any{"file_path": "secret.txx"})
	if strings.Contains(p.Rejected, "secret.txt") || !strings.Contains(p.Rejected, "Check the path.") {
		t.Fatalf("with the rule, rejected = %q", p.Rejected)
	}
}
