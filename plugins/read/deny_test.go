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

// swapper flips link between two targets, atomically (a new link renamed
// over it), until stop is closed; it reports how many flips it made.
func swapper(t *testing.T, link string, targets [2]string, stop <-chan struct{}) <-chan int {
	t.Helper()
	done := make(chan int, 1)
	tmp := link + ".swap"
	go func() {
		n := 0
		defer func() { done <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmp)
			if os.Symlink(targets[n%2], tmp) != nil || os.Rename(tmp, link) != nil {
				return
			}
			n++
		}
	}()
	return done
}

// TestReadChecksTheFileItOpened: a symlink that led inside when the chain
// checked it, and leads outside when Read opens it, is not read: Read
// checks the descriptor, not the name.
func TestReadChecksTheFileItOpened(t *testing.T) {
	c := serve(t)
	outside := t.TempDir()
	secret := write(t, outside, "secret.txt", []byte("OUTSIDE-SECRET\n"))
	inside := write(t, c.Cwd, "inside.txt", []byte("inside\n"))
	link := filepath.Join(c.Cwd, "link.txt")
	// Checked while it led inside; swapped before the call.
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	c.AllowedReads = []string{inside}
	res := c.Call("Read", map[string]any{"file_path": "link.txt"})
	want := "link.txt changed after the permission check: it now leads outside what this call was allowed to read"
	if res.Ok || !strings.HasPrefix(res.Message, want) || strings.Contains(res.Message, "OUTSIDE") {
		t.Fatalf("a swapped link: ok=%v %q", res.Ok, res.Message)
	}
	// The deny rules hold for what was opened, too.
	c.DenyRead = []string{"/**/secret.txt"}
	c.AllowedReads = []string{secret}
	res = c.Call("Read", map[string]any{"file_path": "link.txt"})
	if res.Ok || !strings.HasPrefix(res.Message, "link.txt leads to a file the user's Read deny rules cover, so it was not read.") {
		t.Fatalf("a link to a denied file: ok=%v %q", res.Ok, res.Message)
	}
	// What the chain allowed outside is read.
	c.DenyRead = nil
	if res = c.Call("Read", map[string]any{"file_path": "link.txt"}); !res.Ok || !strings.Contains(res.Text, "OUTSIDE-SECRET") {
		t.Fatalf("an allowed outside read: %+v", res)
	}

	// The race for real: calls run while the link flips between the two.
	c.AllowedReads = []string{inside}
	stop := make(chan struct{})
	flips := swapper(t, link, [2]string{inside, secret}, stop)
	read, refused := 0, 0
	for range 300 {
		res := c.Call("Read", map[string]any{"file_path": "link.txt"})
		if strings.Contains(res.Text+res.Message, "OUTSIDE-SECRET") {
			close(stop)
			<-flips
			t.Fatalf("Read showed the outside file while the link flipped: %+v", res)
		}
		switch {
		case res.Ok:
			read++
		case strings.Contains(res.Message, "changed"), strings.Contains(res.Message, "does not exist"):
			refused++
		default:
			t.Errorf("unexpected answer while the link flipped: %q", res.Message)
		}
	}
	close(stop)
	n := <-flips
	t.Logf("%d flips: %d calls read the inside file, %d were refused", n, read, refused)
}
