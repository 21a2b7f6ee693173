package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core/session"
)

// recordAsks writes asks into the named session's state under e's state
// dir, as a host records them.
func (e *env) recordAsks(id string, asks ...session.Ask) {
	e.t.Helper()
	s, err := session.Open(filepath.Join(e.state, "riot"), id)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, a := range asks {
		if err := s.RecordAsk(a); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		e.t.Fatal(err)
	}
}

func bashAsk(cmd string, allowed bool) session.Ask {
	return session.Ask{Tool: "Bash", Step: "mode", Allowed: allowed, ByUser: true, Subjects: []session.AskSubject{{Kind: "command", Value: cmd}}}
}

// riot permissions suggest proposes the narrowest rules for the approved
// asks and none for the denied one; pasted under [permissions] as printed,
// they allow what was approved and not what was denied.
func TestPermissionsSuggest(t *testing.T) {
	e := newEnv(t)
	e.recordAsks("work",
		bashAsk("npm test", true), bashAsk("npm test -- --watch", true),
		bashAsk("npm publish", false), bashAsk("git push origin main", true))
	r := e.riot("", "permissions", "suggest", "--session", "work")
	r.want(t, 0, `"Bash(npm test:*)", # 2 asks`, `"Bash(git push origin main)", # 1 ask`, "4 asks, 3 approved, 1 denied")
	if strings.Contains(r.stdout, "publish") || strings.Contains(r.stdout, "Bash(npm:*)") {
		t.Fatalf("a rule covers the denied npm publish:\n%s", r.stdout)
	}
	// The last session is the default.
	e.riot("", "permissions", "suggest").want(t, 0, `"Bash(npm test:*)", # 2 asks`)

	j := e.riot("", "permissions", "suggest", "--last", "1", "--json")
	j.want(t, 0)
	var out struct {
		Sessions    []string
		Suggestions []struct {
			Rule string
			Asks int
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, j.stdout)
	}
	if len(out.Sessions) != 1 || out.Sessions[0] != "work" || len(out.Suggestions) != 2 || out.Suggestions[0].Rule != "Bash(npm test:*)" || out.Suggestions[0].Asks != 2 {
		t.Fatalf("--json: %+v", out)
	}

	// Pasted as printed.
	e.userConfig("[permissions]\n" + r.stdout)
	for cmd, want := range map[string]string{
		"npm test -- --coverage": "allow",
		"git push origin main":   "allow",
		"npm publish":            "ask",
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		x := e.riot("", "explain", "Bash", string(in), "--json", "--no-hooks")
		var ex struct{ Decision string }
		if err := json.Unmarshal([]byte(x.stdout), &ex); err != nil || ex.Decision != want {
			t.Errorf("riot explain %s with the suggested rules: %q, want %s (%v)\n%s%s", cmd, ex.Decision, want, err, x.stdout, x.stderr)
		}
	}

	e.riot("", "permissions", "suggest", "--session", "nosuch").want(t, 2, `there is no session "nosuch"`)
}
