package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// BenchmarkProfile is the sandbox profile of one call allowed by a rule,
// with deny rules, an allow_read path and two secrets under $HOME: what
// every sandboxed call pays in the host before its RPC.
func BenchmarkProfile(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	for _, d := range []string{".ssh", ".aws", "go"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	h, _ := sandboxHostFor(b, []string{"Read(./.env)", "Read(**/.env)"}, config.Sandbox{AllowRead: []config.SandboxPath{{Path: "~/go"}}})
	allowed := permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: &config.Rule{Text: "Bash(make:*)"}}
	req := permission.Request{}
	// $HOME was made just now; a real one has settled (see racyWindow).
	h.sbox.trustRecent = true
	for b.Loop() {
		_ = h.profile(false, req, allowed)
	}
}

// BenchmarkProfileDefaults is the same with the embedded defaults'
// [sandbox], most of whose paths do not exist in this home.
func BenchmarkProfileDefaults(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	for _, d := range []string{".ssh", ".cache", "go"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	h, ws := sandboxHostFor(b, []string{"Read(./.env)", "Read(**/.env)"}, config.Sandbox{})
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	h.cfg.Sandbox = cfg.Sandbox
	h.sbox.trustRecent = true
	allowed := permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: &config.Rule{Text: "Bash(make:*)"}}
	for b.Loop() {
		_ = h.profile(false, permission.Request{}, allowed)
	}
}

// BenchmarkStartProfile is the profile of a call about to run sandboxed
// (startProfile: the protected directories made first) with the defaults'
// [sandbox], in a workspace without .git, once this session has spilled
// (its results dir exists): what a sandboxed call pays in the host before
// its RPC.
func BenchmarkStartProfile(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	for _, d := range []string{".ssh", ".cache", "go"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	h, ws := sandboxHostFor(b, []string{"Read(./.env)", "Read(**/.env)"}, config.Sandbox{})
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	h.cfg.Sandbox = cfg.Sandbox
	h.resultDir = filepath.Join(home, ".local", "state", "riot", "results", "ws-0123")
	if err := os.MkdirAll(h.resultDir, 0o700); err != nil {
		b.Fatal(err)
	}
	h.sbox.trustRecent = true
	allowed := permission.Decision{Behavior: permission.Allow, Step: permission.StepAllowRule, Rule: &config.Rule{Text: "Bash(make:*)"}}
	for b.Loop() {
		_ = h.startProfile(false, permission.Request{}, allowed)
	}
}
