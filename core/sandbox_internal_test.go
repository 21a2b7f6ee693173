package core

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// sandboxHostFor is a host with just what profiles are computed from.
func sandboxHostFor(t testing.TB, deny []string, sb config.Sandbox) (*Host, string) {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{".git/hooks", ".riot", "secrets"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".env", "sub/.env", "secrets/a.pem", "keep.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var rules []config.Rule
	for _, d := range deny {
		rules = append(rules, config.Rule{Text: d})
	}
	pol, err := permission.New(permission.Config{Roots: []string{ws}, Deny: rules, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Sandbox: sb}
	return &Host{opts: Options{Workspace: ws}, cfg: cfg, policy: pol, stateDir: t.TempDir(), now: time.Now, log: hclog.NewNullLogger()}, ws
}

func TestProfileFollowsTheDecision(t *testing.T) {
	h, ws := sandboxHostFor(t, []string{"Read(./.env)", "Read(**/.env)", "Read(./secrets/**)"}, config.Sandbox{Network: "none"})
	outside := t.TempDir()
	req := permission.Request{Subjects: []permission.Subject{
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "in.txt"), Access: permission.Read},
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "new", "out.txt"), Access: permission.Write},
	}}
	allowed := permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: &config.Rule{Text: "Bash(make:*)"}}

	ro := h.profile(true, req, allowed)
	if ro.GetMode() != toolv1.SandboxMode_SANDBOX_MODE_READ_ONLY || ro.GetReason() != "a call allowed as read-only" {
		t.Errorf("a read-only call: %v %q", ro.GetMode(), ro.GetReason())
	}
	w := h.profile(false, req, allowed)
	if w.GetMode() != toolv1.SandboxMode_SANDBOX_MODE_WRITE || w.GetReason() != "a call allowed by the rule Bash(make:*)" || w.GetNetwork() {
		t.Errorf("an allowed call: %v %q network %v", w.GetMode(), w.GetReason(), w.GetNetwork())
	}
	if !slices.Contains(w.GetWritePaths(), ws) {
		t.Errorf("the root is not writable: %v", w.GetWritePaths())
	}
	// The paths the decision allowed outside the roots are added: the read
	// read-only, the write's nearest existing directory writable.
	if !slices.Contains(w.GetWritePaths(), outside) || slices.Contains(w.GetReadPaths(), filepath.Join(outside, "in.txt")) {
		// in.txt does not exist, so it is not bound; its write sibling's
		// directory is.
		t.Errorf("granted paths: write %v read %v", w.GetWritePaths(), w.GetReadPaths())
	}
	for _, p := range []string{".git/hooks", ".git/config", ".riot"} {
		if !slices.Contains(w.GetProtectedPaths(), filepath.Join(ws, p)) {
			t.Errorf("%s is not protected: %v", p, w.GetProtectedPaths())
		}
	}
	for _, p := range []string{".env", "sub/.env", "secrets"} {
		if !slices.Contains(w.GetMaskedPaths(), filepath.Join(ws, p)) {
			t.Errorf("%s is not masked: %v", p, w.GetMaskedPaths())
		}
	}
	if slices.Contains(w.GetMaskedPaths(), filepath.Join(ws, "keep.txt")) {
		t.Error("a file no deny rule names is masked")
	}
	// Denied, nothing is added for the subjects.
	denied := h.profile(false, req, permission.Decision{Behavior: permission.Deny})
	if slices.Contains(denied.GetWritePaths(), outside) {
		t.Error("a path of a decision that did not allow was added")
	}
	// The user's answer to a protected-path check uncovers that path only.
	byUser := permission.Decision{Behavior: permission.Allow, ByUser: true, Check: "protected path in command: " + filepath.Join(ws, ".git/hooks")}
	u := h.profile(false, permission.Request{}, byUser)
	if slices.Contains(u.GetProtectedPaths(), filepath.Join(ws, ".git/hooks")) || !slices.Contains(u.GetProtectedPaths(), filepath.Join(ws, ".riot")) {
		t.Errorf("after the user allowed .git/hooks: %v", u.GetProtectedPaths())
	}
	if u.GetReason() != "a call the user allowed" {
		t.Errorf("reason %q", u.GetReason())
	}
}

func TestProfileHidesSecretsUnlessAllowed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{".ssh", ".aws"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := sandboxHostFor(t, nil, config.Sandbox{AllowRead: []config.SandboxPath{{Path: "~/.ssh"}}})
	p := h.profile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow})
	if slices.Contains(p.GetMaskedPaths(), filepath.Join(home, ".ssh")) || !slices.Contains(p.GetReadPaths(), filepath.Join(home, ".ssh")) {
		t.Errorf("~/.ssh listed in allow_read must be shown: masked %v read %v", p.GetMaskedPaths(), p.GetReadPaths())
	}
	if !slices.Contains(p.GetMaskedPaths(), filepath.Join(home, ".aws")) {
		t.Errorf("~/.aws must be hidden: %v", p.GetMaskedPaths())
	}
}

func TestExpandGlobsIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, "f"+string(rune('a'+i%26))+".txt"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, truncated := expandGlobs([]string{"/**/*.txt"}, []string{dir}, 10)
	if !truncated {
		t.Error("a walk past its limit must say so")
	}
	got, truncated := expandGlobs([]string{dir + "/fa.txt", dir + "/nope"}, nil, 10)
	if truncated || !slices.Equal(got, []string{dir + "/fa.txt"}) {
		t.Errorf("literal globs: %v %v", got, truncated)
	}
	for g, want := range map[string]string{"/a/b/*.go": "/a/b", "/a/b": "/a/b", "/*": "/", "/a/{b,c}/x": "/a"} {
		if got := literalPrefix(g); got != want {
			t.Errorf("literalPrefix(%q) = %q, want %q", g, got, want)
		}
	}
}
