package permission

import (
	"errors"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// Without a home directory the policy still builds: only what names ~
// needs one. A ~ rule is a config error naming the rule (a deny rule that
// matched nothing would fail open), and a ~ path in a call cannot be
// resolved, so it asks.
func TestNoHomeNeededOnlyForTilde(t *testing.T) {
	e := newEnv(t)
	t.Chdir(e.ws) // so that an empty Protect entry taken as the working directory would show
	noHome := func() (string, error) { return "", config.ErrNoHome }
	c := e.cfg("default", "deny:Read(**/.env)", "allow:Bash(ls:*)")
	c.Home, c.lookupHome = "", noHome
	c.Protect = []string{"", e.state} // an unknown default is skipped, not the working directory
	p := mustPolicy(t, c)
	if d := decide(p, readReq("src/a.go")); d.Behavior != Allow {
		t.Fatalf("a read in the workspace: %v %s", d.Behavior, d.Reason)
	}
	if d := decide(p, editReq("src/a.go")); d.Behavior != Ask || strings.Contains(d.Reason, "protected") {
		t.Fatalf("an edit in the workspace asks as in default mode, not as protected: %v %s", d.Behavior, d.Reason)
	}
	// A rule that matches at any depth still denies a ~ path.
	if d := decide(p, readReq("~/.env")); d.Behavior != Deny || d.Step != StepDenyRule {
		t.Fatalf("~/.env without a home under Read(**/.env): %v at %v %s", d.Behavior, d.Step, d.Reason)
	}
	d := decide(p, readReq("~/notes.txt"))
	if d.Behavior != Ask || !strings.Contains(d.Reason, `The path "~/notes.txt" cannot be resolved (it is under ~, and riot cannot find your home directory (set HOME))`) {
		t.Fatalf("a ~ path without a home: %v %s", d.Behavior, d.Reason)
	}
	if d.Check != "cannot resolve: /~/notes.txt" {
		t.Fatalf("a ~ path without a home is not written as under the root: %q", d.Check)
	}

	for _, rule := range []string{"deny:Read(~/.aws/**)", "allow:Edit(~)", "ask:Bash(~/bin/deploy:*)"} {
		c := e.cfg("default", rule)
		c.Home, c.lookupHome = "", noHome
		_, err := New(c)
		var ce *config.Error
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "names a path under ~, but riot cannot find your home directory") || ce.Source.Name == "" {
			t.Fatalf("%s without a home: %v", rule, err)
		}
	}
	// With a home found by the lookup, ~ rules work.
	c = e.cfg("default", "deny:Read(~/secret)")
	c.Home, c.lookupHome = "", func() (string, error) { return e.home, nil }
	if d := decide(mustPolicy(t, c), readReq(e.home+"/secret")); d.Behavior != Deny {
		t.Fatalf("~ rule with a looked-up home: %v %s", d.Behavior, d.Reason)
	}
}
