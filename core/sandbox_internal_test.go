package core

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/shared"
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
	h, ws := sandboxHostFor(t, []string{"Read(./.env)", "Read(**/.env)", "Read(./secrets/**)"}, config.Sandbox{Network: config.SandboxNetwork{Mode: config.NetworkNone}})
	outside := t.TempDir()
	req := permission.Request{Subjects: []permission.Subject{
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "in.txt"), Access: permission.Read},
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "new", "out.txt"), Access: permission.Write},
	}}
	allowed := permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: &config.Rule{Text: "Bash(make:*)"}}

	ro := h.startProfile(true, req, allowed)
	if ro.Writable || ro.Reason != "a call allowed as read-only" {
		t.Errorf("a read-only call: %v %q", ro.Writable, ro.Reason)
	}
	w := h.startProfile(false, req, allowed)
	if !w.Writable || w.Reason != "a call allowed by the rule Bash(make:*)" || w.Network {
		t.Errorf("an allowed call: %v %q network %v", w.Writable, w.Reason, w.Network)
	}
	if !slices.Contains(w.WritePaths, ws) {
		t.Errorf("the root is not writable: %v", w.WritePaths)
	}
	// The paths the decision allowed outside the roots are added: the read
	// read-only, the write's nearest existing directory writable.
	if !slices.Contains(w.WritePaths, outside) || slices.Contains(w.ReadPaths, filepath.Join(outside, "in.txt")) {
		// in.txt does not exist, so it is not bound; its write sibling's
		// directory is.
		t.Errorf("granted paths: write %v read %v", w.WritePaths, w.ReadPaths)
	}
	for _, p := range []string{".git/hooks", ".git/config", ".riot"} {
		if !slices.Contains(w.ProtectedPaths, filepath.Join(ws, p)) {
			t.Errorf("%s is not protected: %v", p, w.ProtectedPaths)
		}
	}
	for _, p := range []string{".env", "sub/.env", "secrets"} {
		if !slices.Contains(w.MaskedPaths, filepath.Join(ws, p)) {
			t.Errorf("%s is not masked: %v", p, w.MaskedPaths)
		}
	}
	if slices.Contains(w.MaskedPaths, filepath.Join(ws, "keep.txt")) {
		t.Error("a file no deny rule names is masked")
	}
	// Denied, nothing is added for the subjects.
	denied := h.startProfile(false, req, permission.Decision{Behavior: permission.Deny})
	if slices.Contains(denied.WritePaths, outside) {
		t.Error("a path of a decision that did not allow was added")
	}
	// The user's answer to a protected-path check uncovers that path only.
	byUser := permission.Decision{Behavior: permission.Allow, ByUser: true, Check: "protected path in command: " + filepath.Join(ws, ".git/hooks")}
	u := h.startProfile(false, permission.Request{}, byUser)
	if slices.Contains(u.ProtectedPaths, filepath.Join(ws, ".git/hooks")) || !slices.Contains(u.ProtectedPaths, filepath.Join(ws, ".riot")) {
		t.Errorf("after the user allowed .git/hooks: %v", u.ProtectedPaths)
	}
	if u.Reason != "a call the user allowed" {
		t.Errorf("reason %q", u.Reason)
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
	p := h.startProfile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow})
	if slices.Contains(p.MaskedPaths, filepath.Join(home, ".ssh")) || !slices.Contains(p.ReadPaths, filepath.Join(home, ".ssh")) {
		t.Errorf("~/.ssh listed in allow_read must be shown: masked %v read %v", p.MaskedPaths, p.ReadPaths)
	}
	if !slices.Contains(p.MaskedPaths, filepath.Join(home, ".aws")) {
		t.Errorf("~/.aws must be hidden: %v", p.MaskedPaths)
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
	// The limit is the number of entries walked: the directory and its
	// three files fit in four.
	small := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, filepath.Join(small, f))
	}
	if got, truncated := expandGlobs([]string{"/**/*.txt"}, []string{small}, 4); truncated || len(got) != 3 {
		t.Errorf("a walk within its limit: %v truncated %v", got, truncated)
	}
	if _, truncated := expandGlobs([]string{"/**/*.txt"}, []string{small}, 3); !truncated {
		t.Error("a walk one entry past its limit must say so")
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

// uncachedProfile is the profile as every call computed it before there was
// a base: the oracle the base is checked against.
func uncachedProfile(h *Host, readOnly bool, req permission.Request, d permission.Decision) *shared.SandboxProfile {
	sb := h.cfg.Sandbox
	p := &shared.SandboxProfile{
		Writable: !readOnly,
		Network:  sb.Network.Mode == config.NetworkHost,
		Required: h.sandboxMode() == "required",
		Reason:   profileReason(readOnly, d),
		HideEnv:  config.Texts(sb.SecretEnv),
		PassEnv:  config.Texts(sb.PassEnv),
	}
	roots := h.roots()
	for _, r := range roots {
		p.WritePaths = appendForms(p.WritePaths, r, nil)
	}
	if !readOnly {
		for _, w := range sb.AllowWrite {
			p.WritePaths = appendForms(p.WritePaths, config.ExpandHome(w.Path), nil)
		}
	}
	allowRead := make([]string, 0, len(sb.AllowRead))
	for _, r := range sb.AllowRead {
		abs := filepath.Clean(config.ExpandHome(r.Path))
		allowRead = append(allowRead, abs)
		p.ReadPaths = appendForms(p.ReadPaths, abs, nil)
	}
	h.addAllowedPaths(p, req, d)
	results := appendForms(nil, h.resultDir, nil)
	p.ReadPaths = append(p.ReadPaths, results...)
	var w watches
	for _, r := range roots {
		for _, pp := range protectedInRoot {
			if prot, ok := inRootProtection(r, pp, &w); ok && !decisionCovers(d, prot) {
				p.ProtectedPaths = append(p.ProtectedPaths, prot)
			}
		}
	}
	var hidden []string
	for _, own := range h.hiddenOwn() {
		if _, err := os.Lstat(own); err == nil {
			hidden = appendForms(hidden, own, nil)
		} else {
			p.ProtectedPaths = append(p.ProtectedPaths, own)
		}
	}
	for _, own := range h.ownProtected(&w) {
		if _, err := os.Lstat(own); err == nil {
			p.ProtectedPaths = appendForms(p.ProtectedPaths, own, nil)
		} else if !slices.Contains(p.ProtectedPaths, own) {
			p.ProtectedPaths = append(p.ProtectedPaths, own)
		}
	}
	defer func() {
		rootForms := []string{}
		for _, r := range roots {
			rootForms = appendForms(rootForms, r, nil)
		}
		masks := slices.Clone(p.MaskedPaths)
		shown := func(path string) bool {
			return !coveredBy(masks, path) && (!coveredBy(hidden, path) || slices.Contains(rootForms, path) || slices.Contains(results, path))
		}
		p.ReadPaths = slices.DeleteFunc(p.ReadPaths, func(path string) bool { return !shown(path) })
		p.WritePaths = slices.DeleteFunc(p.WritePaths, func(path string) bool { return !shown(path) })
		p.MaskedPaths = append(p.MaskedPaths, hidden...)
		// The system's secrets, but one the profile lists itself.
		var system []string
		for _, pre := range permission.SystemSecrets() {
			matches, _ := filepath.Glob(pre + "*")
			for _, m := range matches {
				if phys, err := filepath.EvalSymlinks(m); err == nil && !slices.Contains(system, phys) &&
					!slices.Contains(p.ReadPaths, phys) && !slices.Contains(p.WritePaths, phys) {
					system = append(system, phys)
				}
			}
		}
		p.MaskedPaths = append(p.MaskedPaths, system...)
	}()
	p.MaskedPaths = append(p.MaskedPaths, h.denyMasks()...)
	for _, d := range sb.DenyRead {
		p.MaskedPaths = appendForms(p.MaskedPaths, config.ExpandHome(d.Path), nil)
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, rel := range secretPaths {
			secret := filepath.Join(home, rel)
			if _, err := os.Lstat(secret); err == nil && !slices.ContainsFunc(allowRead, func(a string) bool { return within(a, secret) }) {
				p.MaskedPaths = append(p.MaskedPaths, secret)
			}
		}
	}
	return p
}

// fakeClock is a host's injected clock, moved by the test.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// cachedHost is a host whose profiles come from a base, with a home of
// its own holding ~/.ssh and ~/.aws, ~/.ssh uncovered by allow_read, a
// symlinked additional dir, allow_write, deny_read and deny rules.
func cachedHost(t *testing.T) (h *Host, ws, home string, clock *fakeClock) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, d := range []string{".ssh", ".aws", ".config/riot", "out", "real"} {
		mkdir(t, filepath.Join(home, d))
	}
	if err := os.Symlink(filepath.Join(home, "real"), filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	h, ws = sandboxHostFor(t, []string{"Read(./.env)", "Read(**/.env)", "Read(./secrets/**)"}, config.Sandbox{
		Network:    config.SandboxNetwork{Mode: config.NetworkNone},
		AllowWrite: []config.SandboxPath{{Path: "~/out"}},
		AllowRead:  []config.SandboxPath{{Path: "~/.ssh"}},
		DenyRead:   []config.SandboxPath{{Path: "~/out/token"}},
	})
	h.cfg.Permissions.AdditionalDirs = []string{"~/link"}
	writeFile(t, filepath.Join(home, "out", "token"))
	clock = &fakeClock{t: time.Unix(1_800_000_000, 0)}
	h.now = clock.now
	// Directories the test just made changed within racyWindow; tests of
	// the racy window unset this.
	h.sbox.trustRecent = true
	return h, ws, home, clock
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestProfileFromTheBaseEqualsTheComputation(t *testing.T) {
	h, ws, home, _ := cachedHost(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "in.txt"))
	subjects := permission.Request{Subjects: []permission.Subject{
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "in.txt"), Access: permission.Read},
		{Kind: permission.PathSubject, Value: filepath.Join(outside, "new", "deep", "out.txt"), Access: permission.Write},
		{Kind: permission.PathSubject, Value: "~/out/inside.txt", Access: permission.Write},
		{Kind: permission.PathSubject, Value: "rel.txt", Access: permission.Read},
	}}
	rule := &config.Rule{Text: "Bash(make:*)"}
	for _, tc := range []struct {
		name     string
		readOnly bool
		req      permission.Request
		d        permission.Decision
		reason   string
	}{
		{"read-only", true, subjects, permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: rule}, "a call allowed as read-only"},
		{"by rule", false, subjects, permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: rule}, "a call allowed by the rule Bash(make:*)"},
		{"by mode", false, subjects, permission.Decision{Behavior: permission.Allow, Step: permission.StepMode, Mode: "acceptEdits"}, "a call allowed by the acceptEdits mode"},
		{"by user past a protected path", false, subjects, permission.Decision{Behavior: permission.Allow, ByUser: true, Check: "protected path in command: " + filepath.Join(ws, ".git")}, "a call the user allowed"},
		{"by its tool", false, permission.Request{}, permission.Decision{Behavior: permission.Allow}, "a call allowed by its tool"},
		{"denied", false, subjects, permission.Decision{Behavior: permission.Deny}, "a call allowed by its tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := uncachedProfile(h, tc.readOnly, tc.req, tc.d)
			for i := range 2 { // the first computes the base, the second reuses it
				got := h.startProfile(tc.readOnly, tc.req, tc.d)
				if !sameProfile(got, want) {
					t.Fatalf("call %d: the profile from the base differs from the computation:\n got %v\nwant %v", i, got, want)
				}
			}
			if want.Reason != tc.reason {
				t.Errorf("reason %q, want %q", want.Reason, tc.reason)
			}
		})
	}
	// What the table covers: both forms of the symlinked root, allow_write
	// only for writes, the user's answer uncovering only what it named.
	ro := h.startProfile(true, permission.Request{}, permission.Decision{Behavior: permission.Allow})
	rw := h.startProfile(false, subjects, permission.Decision{Behavior: permission.Allow})
	for _, p := range []string{ws, filepath.Join(home, "link"), filepath.Join(home, "real")} {
		if !slices.Contains(ro.WritePaths, p) {
			t.Errorf("root form %s is missing: %v", p, ro.WritePaths)
		}
	}
	if slices.Contains(ro.WritePaths, filepath.Join(home, "out")) || !slices.Contains(h.startProfile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow}).WritePaths, filepath.Join(home, "out")) {
		t.Errorf("allow_write must be writable for writes only: read-only %v, write %v", ro.WritePaths, rw.WritePaths)
	}
	if !slices.Contains(rw.WritePaths, outside) || !slices.Contains(rw.ReadPaths, filepath.Join(outside, "in.txt")) {
		t.Errorf("the granted paths outside the roots: write %v read %v", rw.WritePaths, rw.ReadPaths)
	}
	u := h.startProfile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow, ByUser: true, Check: "protected path in command: " + filepath.Join(ws, ".git")})
	for _, p := range []string{".git/hooks", ".git/config"} {
		if slices.Contains(u.ProtectedPaths, filepath.Join(ws, p)) {
			t.Errorf("%s stays protected after the user allowed .git: %v", p, u.ProtectedPaths)
		}
	}
	for _, p := range []string{filepath.Join(ws, ".riot"), filepath.Join(home, "link", ".riot")} {
		if !slices.Contains(u.ProtectedPaths, p) {
			t.Errorf("%s must stay protected: %v", p, u.ProtectedPaths)
		}
	}
	for _, p := range []string{filepath.Join(home, ".config", "riot"), h.stateDir} {
		if !slices.Contains(u.MaskedPaths, p) {
			t.Errorf("%s must stay hidden: %v", p, u.MaskedPaths)
		}
	}
	for _, p := range []string{filepath.Join(home, ".aws"), filepath.Join(home, "out", "token"), filepath.Join(ws, ".env")} {
		if !slices.Contains(rw.MaskedPaths, p) {
			t.Errorf("%s must be masked: %v", p, rw.MaskedPaths)
		}
	}
	if slices.Contains(rw.MaskedPaths, filepath.Join(home, ".ssh")) {
		t.Errorf("~/.ssh is in allow_read and must be shown: %v", rw.MaskedPaths)
	}
}

// settle sets the times of dirs an hour back, so that a base computed now
// trusts them: a change shows by their times alone.
func settle(t *testing.T, dirs ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, d := range dirs {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProfileSecretMadeLaterIsMaskedOnTheNextCall(t *testing.T) {
	h, ws, home, clock := cachedHost(t)
	allowed := permission.Decision{Behavior: permission.Allow}
	mkdir(t, filepath.Join(home, ".config"))
	settle(t, home, filepath.Join(home, ".config"))
	_ = h.startProfile(false, permission.Request{}, allowed)
	// The clock does not move: a secret made in $HOME or in a directory
	// below it is masked on the next call.
	for _, secret := range []string{filepath.Join(home, ".kube"), filepath.Join(home, ".config", "gh")} {
		mkdir(t, secret)
		p := h.startProfile(false, permission.Request{}, allowed)
		if !slices.Contains(p.MaskedPaths, secret) {
			t.Errorf("%s, made after the first call, is not masked on the next: %v", secret, p.MaskedPaths)
		}
		if want := uncachedProfile(h, false, permission.Request{}, allowed); !sameProfile(p, want) {
			t.Errorf("after %s was made:\n got %v\nwant %v", secret, p, want)
		}
		settle(t, home, filepath.Join(home, ".config"))
		_ = h.startProfile(false, permission.Request{}, allowed)
	}
	// A deny rule's match made later waits for the refresh.
	mkdir(t, filepath.Join(ws, "sub", "new"))
	env := filepath.Join(ws, "sub", "new", ".env")
	writeFile(t, env)
	clock.advance(maskRefresh)
	if p := h.startProfile(false, permission.Request{}, allowed); slices.Contains(p.MaskedPaths, env) {
		t.Fatalf("the base was found again before maskRefresh passed: %v", p.MaskedPaths)
	}
	clock.advance(time.Nanosecond)
	p := h.startProfile(false, permission.Request{}, allowed)
	if !slices.Contains(p.MaskedPaths, env) {
		t.Errorf("%s, made after the first call, is not masked once maskRefresh passed: %v", env, p.MaskedPaths)
	}
	if want := uncachedProfile(h, false, permission.Request{}, allowed); !sameProfile(p, want) {
		t.Errorf("after the refresh:\n got %v\nwant %v", p, want)
	}
}

// TestProfileBaseOverARecentChangeIsNotReused: a directory changed within
// racyWindow of the base may change again without its times moving, so
// the base is computed again on each call until it settles.
func TestProfileBaseOverARecentChangeIsNotReused(t *testing.T) {
	h, _, _, _ := cachedHost(t)
	h.sbox.trustRecent = false
	allowed := permission.Decision{Behavior: permission.Allow}
	_ = h.startProfile(false, permission.Request{}, allowed)
	first := h.sbox.base
	if !first.watched.racy {
		t.Fatal("a base over a directory changed just now is not racy")
	}
	_ = h.startProfile(false, permission.Request{}, allowed)
	if h.sbox.base == first {
		t.Error("a racy base was reused")
	}
	// Once the change is older than racyWindow (here: trusted), the base
	// is reused.
	h.sbox.trustRecent = true
	_ = h.startProfile(false, permission.Request{}, allowed)
	settled := h.sbox.base
	_ = h.startProfile(false, permission.Request{}, allowed)
	if h.sbox.base != settled {
		t.Error("a settled base was not reused")
	}
}

func TestProfileWritableAndProtectedPathsFollowTheFilesystem(t *testing.T) {
	h, _, home, clock := cachedHost(t)
	allowed := permission.Decision{Behavior: permission.Allow}
	first := h.startProfile(false, permission.Request{}, allowed)
	real := filepath.Join(home, "real")
	if !slices.Contains(first.WritePaths, real) {
		t.Fatalf("the additional dir's target is not writable: %v", first.WritePaths)
	}
	// The clock does not move: each change shows on the next call.
	mkdir(t, filepath.Join(home, "other"))
	link := filepath.Join(home, "link")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "other"), link); err != nil {
		t.Fatal(err)
	}
	p := h.startProfile(false, permission.Request{}, allowed)
	if slices.Contains(p.WritePaths, real) || !slices.Contains(p.WritePaths, filepath.Join(home, "other")) {
		t.Errorf("after the additional dir's link moved, the old target must not stay writable: %v", p.WritePaths)
	}
	// A path removed stays listed until the refresh: bwrap skips a bind
	// of a missing path, so that grants nothing the computation would not.
	out := filepath.Join(home, "out")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	assertNoWider(t, h.startProfile(false, permission.Request{}, allowed), uncachedProfile(h, false, permission.Request{}, allowed))
	// A path missing when the base was computed and made since only
	// narrows the profile while left out: bound from the refresh on.
	clock.advance(maskRefresh + time.Nanosecond)
	if p = h.startProfile(false, permission.Request{}, allowed); slices.Contains(p.WritePaths, out) {
		t.Fatalf("a missing allow_write path is listed: %v", p.WritePaths)
	}
	mkdir(t, out)
	clock.advance(maskRefresh)
	assertNoWider(t, h.startProfile(false, permission.Request{}, allowed), uncachedProfile(h, false, permission.Request{}, allowed))
	clock.advance(time.Nanosecond)
	if p = h.startProfile(false, permission.Request{}, allowed); !slices.Contains(p.WritePaths, out) {
		t.Errorf("an allow_write path made during the session is not bound after the refresh: %v", p.WritePaths)
	}
	// riot's config dir, missing, is protected so that no command makes
	// it; made during the session, it is hidden at once.
	conf := filepath.Join(home, ".config", "riot")
	if err := os.RemoveAll(conf); err != nil {
		t.Fatal(err)
	}
	clock.advance(maskRefresh + time.Nanosecond)
	if p = h.startProfile(false, permission.Request{}, allowed); !slices.Contains(p.ProtectedPaths, conf) || slices.Contains(p.MaskedPaths, conf) {
		t.Fatalf("a missing config dir must be protected, not masked: protected %v masked %v", p.ProtectedPaths, p.MaskedPaths)
	}
	mkdir(t, conf)
	if p = h.startProfile(false, permission.Request{}, allowed); !slices.Contains(p.MaskedPaths, conf) {
		t.Errorf("riot's config dir made during the session is not hidden on the next call: %v", p.MaskedPaths)
	}
	if want := uncachedProfile(h, false, permission.Request{}, allowed); !sameProfile(p, want) {
		t.Errorf("after the changes:\n got %v\nwant %v", p, want)
	}
}

// assertNoWider fails when got makes writable or shows a path that exists
// and want does not, or protects less than want.
func assertNoWider(t *testing.T, got, want *shared.SandboxProfile) {
	t.Helper()
	if got.Writable != want.Writable || got.Network != want.Network {
		t.Errorf("writable %v network %v, the computation's %v %v", got.Writable, got.Network, want.Writable, want.Network)
	}
	for _, l := range []struct {
		what      string
		got, want []string
	}{{"writable", got.WritePaths, want.WritePaths}, {"shown", got.ReadPaths, want.ReadPaths}} {
		for _, p := range l.got {
			if _, err := os.Lstat(p); err == nil && !slices.Contains(l.want, p) {
				t.Errorf("%s is %s, which the computation does not give: %v", p, l.what, l.want)
			}
		}
	}
	for _, p := range want.ProtectedPaths {
		if !slices.Contains(got.ProtectedPaths, p) {
			t.Errorf("%s is not protected, which the computation protects: %v", p, got.ProtectedPaths)
		}
	}
}

func TestProfileBaseIsComputedAgainForANewConfig(t *testing.T) {
	h, _, home, _ := cachedHost(t)
	allowed := permission.Decision{Behavior: permission.Allow}
	_ = h.startProfile(false, permission.Request{}, allowed)
	// A reload's config: allow_write gone, a deny_read added, another
	// network. The clock does not move.
	cfg := *h.cfg
	cfg.Sandbox.AllowWrite = nil
	cfg.Sandbox.AllowRead = nil
	cfg.Sandbox.Network.Mode = config.NetworkHost
	h.cfg = &cfg
	p := h.startProfile(false, permission.Request{}, allowed)
	if slices.Contains(p.WritePaths, filepath.Join(home, "out")) || !slices.Contains(p.MaskedPaths, filepath.Join(home, ".ssh")) || !p.Network {
		t.Errorf("the profile still follows the old config: write %v masked %v network %v", p.WritePaths, p.MaskedPaths, p.Network)
	}
	if want := uncachedProfile(h, false, permission.Request{}, allowed); !sameProfile(p, want) {
		t.Errorf("after the new config:\n got %v\nwant %v", p, want)
	}
	// A new policy (its deny rules) and a new $HOME count too.
	pol, err := permission.New(permission.Config{Roots: h.roots(), Deny: []config.Rule{{Text: "Read(./keep.txt)"}}, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	h.policy = pol
	if p = h.startProfile(false, permission.Request{}, allowed); !slices.Contains(p.MaskedPaths, filepath.Join(h.opts.Workspace, "keep.txt")) {
		t.Errorf("a new policy's deny rule is not masked: %v", p.MaskedPaths)
	}
	other := t.TempDir()
	mkdir(t, filepath.Join(other, ".gnupg"))
	t.Setenv("HOME", other)
	if p = h.startProfile(false, permission.Request{}, allowed); !slices.Contains(p.MaskedPaths, filepath.Join(other, ".gnupg")) {
		t.Errorf("the secrets of a new $HOME are not masked: %v", p.MaskedPaths)
	}
}

func TestProfileListsAreTheCallsOwn(t *testing.T) {
	h, _, _, _ := cachedHost(t)
	allowed := permission.Decision{Behavior: permission.Allow}
	want := uncachedProfile(h, false, permission.Request{}, allowed)
	for _, readOnly := range []bool{true, false} {
		p := h.startProfile(readOnly, permission.Request{}, allowed)
		for _, l := range [][]string{p.WritePaths, p.ReadPaths, p.ProtectedPaths, p.MaskedPaths} {
			for i := range l {
				l[i] = "/"
			}
		}
	}
	if got := h.startProfile(false, permission.Request{}, allowed); !sameProfile(got, want) {
		t.Errorf("a call's change to its profile reached the next call's:\n got %v\nwant %v", got, want)
	}
}

func TestProfileConcurrentCallsShareTheBaseSafely(t *testing.T) {
	h, _, _, _ := cachedHost(t)
	allowed := permission.Decision{Behavior: permission.Allow}
	want := uncachedProfile(h, false, permission.Request{}, allowed)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				p := h.startProfile(false, permission.Request{}, allowed)
				if !sameProfile(p, want) {
					errs <- fmt.Sprintf("%+v", *p)
					return
				}
				// Each call may change its own lists: -race finds a
				// list shared with the base or another call.
				for i := range p.WritePaths {
					p.WritePaths[i] = "/"
				}
				p.MaskedPaths = append(p.MaskedPaths, "/x")
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent call's profile: %s\nwant %v", e, want)
	}
}

// sameProfile reports whether two profiles are equal, an empty list and
// none alike.
func sameProfile(a, b *shared.SandboxProfile) bool {
	if a == nil || b == nil {
		return a == b
	}
	norm := func(p shared.SandboxProfile) shared.SandboxProfile {
		for _, l := range []*[]string{&p.ReadPaths, &p.WritePaths, &p.ProtectedPaths, &p.MaskedPaths} {
			if len(*l) == 0 {
				*l = nil
			}
		}
		return p
	}
	return reflect.DeepEqual(norm(*a), norm(*b))
}

// prefixMatches finds every name a prefix starts, by its resolved path,
// and watches the directory, so that a match made later is hidden from
// the next call on.
func TestPrefixMatches(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"shadow", "shadow-", "shadowed", "passwd", "key.real"} {
		writeFile(t, filepath.Join(dir, f))
	}
	mkdir(t, filepath.Join(dir, "ssh"))
	writeFile(t, filepath.Join(dir, "ssh", "host_a_key"))
	if err := os.Symlink(filepath.Join(dir, "key.real"), filepath.Join(dir, "ssh", "host_b_key")); err != nil {
		t.Fatal(err)
	}
	var w watches
	prefixes := []string{filepath.Join(dir, "shadow"), filepath.Join(dir, "ssh", "host_"), filepath.Join(dir, "none", "x"), filepath.Join(dir, "gone")}
	got := prefixMatches(prefixes, &w, true)
	want := []string{
		filepath.Join(dir, "shadow"), filepath.Join(dir, "shadow-"), filepath.Join(dir, "shadowed"),
		filepath.Join(dir, "ssh", "host_a_key"), filepath.Join(dir, "key.real"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("matches %v, want %v", got, want)
	}
	if !w.hold() {
		t.Fatal("nothing changed, yet the watches do not hold")
	}
	// Directories changed just now may change again unseen, unless trusted.
	var racy watches
	if _ = prefixMatches(prefixes, &racy, false); !racy.racy {
		t.Error("the directories just made are trusted")
	}
	// A missing directory is watched through the one above it.
	mkdir(t, filepath.Join(dir, "none"))
	if w.hold() {
		t.Error("making the directory a prefix names does not invalidate the base")
	}
	var w2 watches
	_ = prefixMatches(prefixes, &w2, true)
	writeFile(t, filepath.Join(dir, "ssh", "host_c_key"))
	if w2.hold() {
		t.Error("a host key made later does not invalidate the base")
	}
	if got := prefixMatches(prefixes, &w2, true); !slices.Contains(got, filepath.Join(dir, "ssh", "host_c_key")) {
		t.Errorf("the key made later is not found: %v", got)
	}
}

// The system's secrets are hidden from every profile, but one the call's
// decision allowed by name (or allow_read names); a directory above one
// uncovers nothing, and a path below one is shown inside its mask.
func TestProfileHidesSystemSecrets(t *testing.T) {
	var secrets []string
	for _, s := range []string{"/etc/shadow", "/etc/gshadow"} {
		if _, err := os.Lstat(s); err == nil {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) == 0 {
		t.Skip("this system has no /etc/shadow nor /etc/gshadow")
	}
	h, _ := sandboxHostFor(t, nil, config.Sandbox{Network: config.SandboxNetwork{Mode: config.NetworkNone}})
	read := func(paths ...string) permission.Request {
		var r permission.Request
		for _, p := range paths {
			r.Subjects = append(r.Subjects, permission.Subject{Kind: permission.PathSubject, Value: p, Access: permission.Read})
		}
		return r
	}
	allow := permission.Decision{Behavior: permission.Allow, ByUser: true}
	for _, tc := range []struct {
		name     string
		readOnly bool
		req      permission.Request
		d        permission.Decision
		shown    string // the secret the profile shows, if any
	}{
		{"a read-only call naming none", true, permission.Request{}, permission.Decision{Behavior: permission.Allow}, ""},
		{"a call allowed to write", false, permission.Request{}, permission.Decision{Behavior: permission.Allow, Step: permission.StepMode}, ""},
		{"the directory above", true, read("/etc"), allow, ""},
		{"denied by name", true, read(secrets[0]), permission.Decision{Behavior: permission.Deny}, ""},
		{"asked by name", true, read(secrets[0]), permission.Decision{Behavior: permission.Ask}, ""},
		{"allowed by name", true, read(secrets[0]), allow, secrets[0]},
		{"written by name", false, permission.Request{Subjects: []permission.Subject{{Kind: permission.PathSubject, Value: secrets[0], Access: permission.Write}}}, allow, secrets[0]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := h.startProfile(tc.readOnly, tc.req, tc.d)
			for _, s := range secrets {
				if masked := slices.Contains(p.MaskedPaths, s); masked == (s == tc.shown) {
					t.Errorf("%s masked %v: %v", s, masked, p.MaskedPaths)
				}
			}
			if tc.shown != "" && !slices.Contains(slices.Concat(p.ReadPaths, p.WritePaths), tc.shown) {
				t.Errorf("%s is allowed but not listed: read %v write %v", tc.shown, p.ReadPaths, p.WritePaths)
			}
		})
	}
	// allow_read naming one shows it to every call.
	h2, _ := sandboxHostFor(t, nil, config.Sandbox{AllowRead: []config.SandboxPath{{Path: secrets[0]}}})
	if p := h2.startProfile(true, permission.Request{}, permission.Decision{Behavior: permission.Allow}); slices.Contains(p.MaskedPaths, secrets[0]) {
		t.Errorf("%s is in allow_read and must be shown: %v", secrets[0], p.MaskedPaths)
	}
}

func TestSystemSecretMasks(t *testing.T) {
	secrets := []string{"/etc/shadow", "/etc/ssl/private", "/etc/sudoers"}
	p := &shared.SandboxProfile{ReadPaths: []string{"/etc", "/etc/ssl/private/x.pem", "/etc/shadow"}, WritePaths: []string{"/etc/sudoers"}}
	if got, want := systemSecretMasks(secrets, p), []string{"/etc/ssl/private"}; !slices.Equal(got, want) {
		t.Errorf("masks %v, want %v", got, want)
	}
	if !slices.Equal(secrets, []string{"/etc/shadow", "/etc/ssl/private", "/etc/sudoers"}) {
		t.Errorf("the base's list changed: %v", secrets)
	}
}
