package config

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

// An "always" answer about a host goes to [sandbox.network]
// allowed_domains in the local layer, by the same text edit as an allow
// rule, and loads back added to the defaults' entries.
func TestAppendAllowedDomain(t *testing.T) {
	for _, c := range []struct {
		name, before, after string
	}{
		{"empty file", "", "[sandbox.network]\nallowed_domains = [\"example.com:443\"]\n"},
		{"beside an allow rule", "[permissions]\nallow = [\"Bash(ls:*)\"]\n",
			"[permissions]\nallow = [\"Bash(ls:*)\"]\n\n[sandbox.network]\nallowed_domains = [\"example.com:443\"]\n"},
		{"after [sandbox]", "[sandbox]\nmode = \"required\"\n",
			"[sandbox]\nmode = \"required\"\n\n[sandbox.network]\nallowed_domains = [\"example.com:443\"]\n"},
		{"a table without the list", "[sandbox.network]\nmode = \"proxy\"\n",
			"[sandbox.network]\nallowed_domains = [\"example.com:443\"]\nmode = \"proxy\"\n"},
		{"a list", "[ sandbox . network ]\nallowed_domains = [\"a.test\"]\ndenied_domains = [\"b.test\"]\n",
			"[ sandbox . network ]\nallowed_domains = [\"a.test\", \"example.com:443\"]\ndenied_domains = [\"b.test\"]\n"},
		{"denied_domains is not it", "[sandbox.network]\ndenied_domains = [\"b.test\"]\n",
			"[sandbox.network]\nallowed_domains = [\"example.com:443\"]\ndenied_domains = [\"b.test\"]\n"},
		{"already there", "[sandbox.network]\nallowed_domains = [\"example.com:443\"]\n",
			"[sandbox.network]\nallowed_domains = [\"example.com:443\"]\n"},
		// Layouts the text edit does not handle are re-encoded.
		{"an inline table", "[sandbox]\nnetwork = {mode = \"proxy\"}\n",
			"# riot's local permission grants: machine-managed, not committed.\n[sandbox]\n  [sandbox.network]\n    allowed_domains = [\"example.com:443\"]\n    mode = \"proxy\"\n"},
	} {
		got, err := appendEntry(c.before, networkAllowed, "example.com:443", Source{Layer: "local", File: "f.toml"})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.after {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.after)
		}
	}

	w := newTrustCase(t, nil)
	w.trust(t)
	path, err := AppendAllowedDomain(w.ws, "example.com:443")
	if err != nil || path != LocalFile(w.ws) {
		t.Fatal(path, err)
	}
	if _, err := AppendAllowedDomain(w.ws, " "); err == nil || err.Error() != "the allowed_domains entry is empty" {
		t.Errorf("an empty entry: %v", err)
	}
	w.trust(t)
	c := w.load(t, Options{})
	got := c.Sandbox.Network.AllowedDomains
	if len(got) < 2 || got[len(got)-1].Text != "example.com:443" || got[len(got)-1].Source.Layer != "local" || got[0].Source.Layer != "default" {
		t.Errorf("loaded %+v", got)
	}
}

// The user's "always" on a terminal is written and vouched for in one
// step; over text nobody vouched for it writes nothing.
func TestAppendAllowedDomainsAsUser(t *testing.T) {
	w := newTrustCase(t, nil)
	if err := AppendAllowedDomainsAsUser(w.store, w.ws, []string{"example.com:443"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	c := w.load(t, Options{})
	got := c.Sandbox.Network.AllowedDomains
	if len(c.Trust.Ignored) != 0 || got[len(got)-1].Text != "example.com:443" {
		t.Fatalf("after the answer: %v %+v", ignoredKeys(c), got)
	}
	theirs := "[sandbox.network]\nallowed_domains = [\"*.test\"]\n"
	if err := os.WriteFile(LocalFile(w.ws), []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendAllowedDomainsAsUser(w.store, w.ws, []string{"other.test:443"}, time.Now()); !errors.Is(err, trust.ErrNotVouched) {
		t.Fatalf("over unvouched text: %v", err)
	}
	if data, _ := os.ReadFile(LocalFile(w.ws)); string(data) != theirs {
		t.Fatalf("wrote over unvouched text: %q", data)
	}
}
