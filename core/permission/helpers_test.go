package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// testEnv is a temporary tree: a workspace, a home, a directory outside
// both, and a read-only results directory.
type testEnv struct {
	base, ws, home, out, state string
}

func newEnv(t testing.TB) *testEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{
		base:  base,
		ws:    filepath.Join(base, "ws"),
		home:  filepath.Join(base, "home"),
		out:   filepath.Join(base, "outside"),
		state: filepath.Join(base, "state", "results"),
	}
	for _, d := range []string{e.ws, e.home, e.out, e.state, filepath.Join(e.ws, "src"), filepath.Join(e.ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// cfg is a Config on the tree with the mode and rules given as
// "allow:Bash(ls:*)", "ask:...", "deny:...".
func (e *testEnv) cfg(mode config.Mode, rules ...string) Config {
	c := Config{Mode: mode, Roots: []string{e.ws}, ReadOnlyRoots: []string{e.state}, Home: e.home}
	for _, r := range rules {
		kind, text, _ := strings.Cut(r, ":")
		rule := config.Rule{Text: text, Source: config.Source{Layer: "flag", Name: "--" + kind}}
		switch kind {
		case "allow":
			c.Allow = append(c.Allow, rule)
		case "ask":
			c.Ask = append(c.Ask, rule)
		case "deny":
			c.Deny = append(c.Deny, rule)
		default:
			panic("bad rule kind " + kind)
		}
	}
	return c
}

func mustPolicy(t testing.TB, c Config) *Policy {
	t.Helper()
	p, err := New(c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func (e *testEnv) policy(t testing.TB, mode config.Mode, rules ...string) *Policy {
	t.Helper()
	return mustPolicy(t, e.cfg(mode, rules...))
}

// write creates a file under the tree.
func write(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// bash is a Bash call with one command subject per command, plus the read
// paths given.
func bash(readOnly bool, cmds []string, reads ...string) Request {
	r := Request{Tool: "Bash", ReadOnly: readOnly, Describe: strings.Join(cmds, " && "),
		ClassifierInput: "Run shell command: " + strings.Join(cmds, " && ")}
	for _, c := range cmds {
		r.Subjects = append(r.Subjects, Subject{Kind: CommandSubject, Value: c})
	}
	for _, p := range reads {
		r.Subjects = append(r.Subjects, Subject{Kind: PathSubject, Value: p, Access: Read})
	}
	return r
}

func readReq(path string) Request {
	return Request{Tool: "Read", ReadOnly: true, Describe: "Read " + path,
		Subjects: []Subject{{Kind: PathSubject, Value: path, Access: Read}}}
}

func editReq(paths ...string) Request {
	r := Request{Tool: "Edit", Describe: "Edit " + strings.Join(paths, ", "), ClassifierInput: "Edit files"}
	for _, p := range paths {
		r.Subjects = append(r.Subjects, Subject{Kind: PathSubject, Value: p, Access: Write})
	}
	return r
}

func decide(p *Policy, r Request) Decision { return p.Decide(context.Background(), r) }

// expect checks a decision's behavior and step.
func expect(t *testing.T, d Decision, b Behavior, s Step) {
	t.Helper()
	if d.Behavior != b || d.Step != s {
		t.Fatalf("got %v at %v (check %q, reason %q), want %v at %v", d.Behavior, d.Step, d.Check, d.Reason, b, s)
	}
}

// fakeClassifier answers as told and records what it was asked.
type fakeClassifier struct {
	b     Behavior
	err   error
	calls []string
}

func (f *fakeClassifier) Classify(_ context.Context, tool, input string) (Behavior, error) {
	f.calls = append(f.calls, tool+": "+input)
	return f.b, f.err
}
