package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// A file the model knows by another name (ShowPath: the session's /tmp) is
// matched by rules on that name as on its resolved one, and a suggestion
// names it so; what the call really touches is still the resolved path.
func TestRulesMatchTheShownName(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	show := func(p string) string {
		if rest, ok := strings.CutPrefix(p, tmp); ok && (rest == "" || rest[0] == '/') {
			return "/tmp" + rest
		}
		return p
	}
	file := filepath.Join(tmp, "out.txt")
	policy := func(allow, deny []string) *Policy {
		var a, d []config.Rule
		for _, r := range allow {
			a = append(a, config.Rule{Text: r})
		}
		for _, r := range deny {
			d = append(d, config.Rule{Text: r})
		}
		p, err := New(Config{Roots: []string{ws, tmp}, Home: ws, Allow: a, Deny: d, ShowPath: show})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	expect(t, decide(policy([]string{"Edit(//tmp/out.txt)"}, nil), editReq(file)), Allow, StepAllowRule)
	expect(t, decide(policy([]string{"Edit(//tmp/other.txt)"}, nil), editReq(file)), Ask, StepMode)
	expect(t, decide(policy([]string{"Edit"}, []string{"Edit(//tmp/*.txt)"}), editReq(file)), Deny, StepDenyRule)
	d := decide(policy(nil, nil), editReq(file))
	if len(d.Suggestions) != 1 || d.Suggestions[0] != "Edit(//tmp/out.txt)" {
		t.Fatalf("suggestions %q", d.Suggestions)
	}
	if len(d.Writes) != 1 || d.Writes[0] != file {
		t.Fatalf("the write is %q, not the resolved %s", d.Writes, file)
	}
	// Without ShowPath, the /tmp rule is the host's /tmp.
	p, err := New(Config{Roots: []string{ws, tmp}, Home: ws, Allow: []config.Rule{{Text: "Edit(//tmp/out.txt)"}}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, decide(p, editReq(file)), Ask, StepMode)
}
