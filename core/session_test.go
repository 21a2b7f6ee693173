package core

import (
	"strings"
	"testing"
)

func TestSessionIDs(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"a", "s1", "A.b_c-d", "9", strings.Repeat("x", 128)} {
		if _, err := openSession(dir, id); err != nil {
			t.Errorf("openSession(%q): %v", id, err)
		}
	}
	// Anything that could leave the sessions directory, hide a file or
	// surprise a shell is refused, with what is allowed.
	for _, id := range []string{"..", "../x", ".x", "-x", "_x", "a/b", "a b", "é", "a\x00", strings.Repeat("x", 129)} {
		_, err := openSession(dir, id)
		if err == nil || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("openSession(%q) = %v, want a refusal saying what is allowed", id, err)
		}
	}
}
