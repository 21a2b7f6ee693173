package permission_test

import (
	"context"
	"slices"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

func bashAsk(cmd string, allowed bool, writes ...string) permission.Asked {
	a := permission.Asked{Tool: "Bash", Step: permission.StepMode, Allowed: allowed,
		Subjects: []permission.Subject{{Kind: permission.CommandSubject, Value: cmd}}}
	for _, w := range writes {
		a.Subjects = append(a.Subjects, permission.Subject{Kind: permission.PathSubject, Value: w, Access: permission.Write})
	}
	return a
}

// decide is how a policy with rules as its allow rules decides a Bash call
// of cmd that is not read-only.
func decide(t *testing.T, root string, rules []string, cmd string) permission.Behavior {
	t.Helper()
	var allow []config.Rule
	for _, r := range rules {
		allow = append(allow, config.Rule{Text: r})
	}
	p, err := permission.New(permission.Config{Roots: []string{root}, Allow: allow, Home: root})
	if err != nil {
		t.Fatalf("the suggested rules do not load: %v", err)
	}
	return p.Decide(context.Background(), permission.Request{Tool: "Bash", Subjects: []permission.Subject{{Kind: permission.CommandSubject, Value: cmd}}}).Behavior
}

func TestSuggestRules(t *testing.T) {
	root := t.TempDir()
	p, err := permission.New(permission.Config{Roots: []string{root}, Home: root})
	if err != nil {
		t.Fatal(err)
	}
	asks := []permission.Asked{
		bashAsk("npm test", true),
		bashAsk("npm test -- --watch", true),
		bashAsk("npm publish", false),
		bashAsk("git push origin main", true),
		bashAsk("npm test", true),
		// Writes outside the workspace: never covered.
		bashAsk("cp build.tar /etc/build.tar", true, "/etc/build.tar"),
		// Asked by a safety check, which no allow rule answers.
		{Tool: "Bash", Step: permission.StepSafety, Allowed: true, Subjects: []permission.Subject{{Kind: permission.CommandSubject, Value: "cat /etc/shadow"}}},
		// Writes inside the workspace: the exact command only.
		bashAsk("touch a", true, root+"/a"),
		bashAsk("touch b", true, root+"/b"),
	}
	got := p.SuggestRules(asks)
	want := []permission.Suggestion{
		{Rule: "Bash(npm test:*)", Asks: 3},
		{Rule: "Bash(git push origin main)", Asks: 1},
		{Rule: "Bash(touch a)", Asks: 1},
		{Rule: "Bash(touch b)", Asks: 1},
		// A Bash call is allowed when each of its subjects is: the path
		// it writes too.
		{Rule: "Edit(./a)", Asks: 1},
		{Rule: "Edit(./b)", Asks: 1},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("suggested %+v, want %+v", got, want)
	}
	var rules []string
	for _, s := range got {
		rules = append(rules, s.Rule)
	}
	for _, cmd := range []string{"npm test", "npm test -- --watch", "git push origin main", "touch a"} {
		if b := decide(t, root, rules, cmd); b != permission.Allow {
			t.Errorf("the suggested rules do not allow %q: %v", cmd, b)
		}
	}
	for _, cmd := range []string{"npm publish", "cp build.tar /etc/build.tar", "touch c", "git push origin other"} {
		if b := decide(t, root, rules, cmd); b == permission.Allow {
			t.Errorf("the suggested rules allow %q, which was denied, writes outside the workspace or was never asked", cmd)
		}
	}
}

// A prefix that would cover a denied command is split until it does not:
// `npm test` and `npm run build` share only `npm`, which `npm publish`
// denied rules out.
func TestSuggestRulesNeverCoverADenial(t *testing.T) {
	root := t.TempDir()
	p, err := permission.New(permission.Config{Roots: []string{root}, Home: root})
	if err != nil {
		t.Fatal(err)
	}
	got := p.SuggestRules([]permission.Asked{bashAsk("npm test", true), bashAsk("npm run build", true), bashAsk("npm publish", false)})
	want := []permission.Suggestion{{Rule: "Bash(npm test)", Asks: 1}, {Rule: "Bash(npm run build)", Asks: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("suggested %+v, want %+v", got, want)
	}
	// Without the denial, the two share a prefix rule.
	got = p.SuggestRules([]permission.Asked{bashAsk("npm test", true), bashAsk("npm run build", true)})
	if want := []permission.Suggestion{{Rule: "Bash(npm:*)", Asks: 2}}; !slices.Equal(got, want) {
		t.Fatalf("suggested %+v, want %+v", got, want)
	}
}

// The Bash plugin sends each word quoted where bash needs it: a prefix is
// made of whole parsed words, never cut inside a quoted one, and still
// never covers a denied or a writing command.
func TestSuggestRulesOnQuotedWords(t *testing.T) {
	root := t.TempDir()
	p, err := permission.New(permission.Config{Roots: []string{root}, Home: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		asks []permission.Asked
		want []permission.Suggestion
		// allowed must be allowed by the suggestions, refused not.
		allowed, refused []string
	}{
		{
			name: "a quoted separator stays inside its word",
			asks: []permission.Asked{
				bashAsk(`python3 -c 'import a; print(1)'`, true),
				bashAsk(`python3 -c 'import a; print(2)'`, true),
				bashAsk(`python3 -m http.server`, false),
			},
			want:    []permission.Suggestion{{Rule: "Bash(python3 -c:*)", Asks: 2}},
			allowed: []string{`python3 -c 'import a; print(1)'`, `python3 -c 'import a; print(2)'`},
			refused: []string{`python3 -m http.server`, `python3 -c 'print(1)'; rm -rf x`},
		},
		{
			name: "a quoted word with a blank is one word of the prefix",
			asks: []permission.Asked{
				bashAsk(`grep -n 'TODO: fix' a.go`, true),
				bashAsk(`grep -n 'TODO: fix' b.go`, true),
				bashAsk(`grep -n 'TODO: other' c.go`, false),
			},
			want:    []permission.Suggestion{{Rule: "Bash(grep -n 'TODO: fix':*)", Asks: 2}},
			allowed: []string{`grep -n 'TODO: fix' a.go`, `grep -n "TODO: fix" d.go`},
			refused: []string{`grep -n 'TODO: other' c.go`, `grep -n TODO: fix`},
		},
		{
			name: "a denial inside the shared prefix leaves the exact commands",
			asks: []permission.Asked{
				bashAsk(`python3 -c 'import a; print(1)'`, true),
				bashAsk(`python3 -c 'import b; print(1)'`, true),
				bashAsk(`python3 -c 'import shutil; shutil.rmtree(1)'`, false),
			},
			want: []permission.Suggestion{
				{Rule: "Bash(python3 -c 'import a; print(1)')", Asks: 1},
				{Rule: "Bash(python3 -c 'import b; print(1)')", Asks: 1},
			},
			allowed: []string{`python3 -c 'import a; print(1)'`, `python3 -c 'import b; print(1)'`},
			refused: []string{`python3 -c 'import shutil; shutil.rmtree(1)'`, `python3 -c 'import a; print(2)'`},
		},
		{
			name: "commands that write are not generalised",
			asks: []permission.Asked{
				bashAsk(`sed -i 's/a b/c/' x`, true, root+"/x"),
				bashAsk(`sed -i 's/a b/d/' y`, true, root+"/y"),
			},
			want: []permission.Suggestion{
				{Rule: "Bash(sed -i 's/a b/c/' x)", Asks: 1},
				{Rule: "Bash(sed -i 's/a b/d/' y)", Asks: 1},
				{Rule: "Edit(./x)", Asks: 1},
				{Rule: "Edit(./y)", Asks: 1},
			},
			refused: []string{`sed -i 's/a b/e/' z`},
		},
		{
			name: "a command that chains shares no prefix",
			asks: []permission.Asked{
				bashAsk(`make test`, true),
				bashAsk(`make lint; rm -rf build`, true),
				bashAsk(`make build`, true),
			},
			want: []permission.Suggestion{
				{Rule: "Bash(make:*)", Asks: 2},
				{Rule: "Bash(make lint; rm -rf build)", Asks: 1},
			},
			allowed: []string{`make test`, `make build`, `make lint; rm -rf build`},
			refused: []string{`make test; rm -rf build`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := p.SuggestRules(c.asks)
			if !slices.Equal(got, c.want) {
				t.Fatalf("suggested %+v, want %+v", got, c.want)
			}
			var rules []string
			for _, s := range got {
				rules = append(rules, s.Rule)
			}
			for _, cmd := range c.allowed {
				if b := decide(t, root, rules, cmd); b != permission.Allow {
					t.Errorf("the suggested rules do not allow %q: %v", cmd, b)
				}
			}
			for _, cmd := range c.refused {
				if b := decide(t, root, rules, cmd); b == permission.Allow {
					t.Errorf("the suggested rules allow %q", cmd)
				}
			}
		})
	}
}
