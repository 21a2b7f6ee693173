package core

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// Computing a profile, as `riot explain` does, makes nothing on disk: the
// protected directories a root lacks (.riot, .git/hooks) are listed, and
// made only when a sandbox of the profile is about to start.
func TestExplainedProfileMakesNothing(t *testing.T) {
	h, ws := sandboxHostFor(t, nil, config.Sandbox{})
	for _, d := range []string{".riot", ".git/hooks"} {
		if err := os.RemoveAll(filepath.Join(ws, d)); err != nil {
			t.Fatal(err)
		}
	}
	allowed := permission.Decision{Behavior: permission.Allow}
	want := []string{filepath.Join(ws, ".riot"), filepath.Join(ws, ".git", "hooks")}
	for range 2 { // a cached base too
		p := h.explainSandbox(context.Background(), false, permission.Request{}, allowed)
		if p == nil {
			p = h.profile(false, permission.Request{}, allowed)
		}
		for _, dir := range want {
			if !slices.Contains(p.ProtectedPaths, dir) {
				t.Errorf("%s is not listed as protected: %v", dir, p.ProtectedPaths)
			}
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Fatalf("computing a profile made %s (%v)", dir, err)
			}
		}
	}
	p := h.startProfile(false, permission.Request{}, allowed)
	for _, dir := range want {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			t.Errorf("a sandbox about to start: %s was not made (%v)", dir, err)
		}
		if !slices.Contains(p.ProtectedPaths, dir) {
			t.Errorf("%s is not protected: %v", dir, p.ProtectedPaths)
		}
	}
}

// A path subject under /proc, /dev or /sys is never added: the sandbox has
// its own /proc and /dev, and binding /proc/self/... (riot's pid) made
// bwrap fail every sandbox of the call.
func TestKernelPathSubjectsAreNotBound(t *testing.T) {
	h, _ := sandboxHostFor(t, nil, config.Sandbox{})
	req := permission.Request{Subjects: []permission.Subject{
		{Kind: permission.PathSubject, Value: "/proc/self/status", Access: permission.Read},
		{Kind: permission.PathSubject, Value: "/dev/shm/x", Access: permission.Write},
		{Kind: permission.PathSubject, Value: "/sys/kernel", Access: permission.Read},
	}}
	p := h.profile(false, req, permission.Decision{Behavior: permission.Allow})
	for _, list := range [][]string{p.ReadPaths, p.WritePaths} {
		for _, path := range list {
			if coveredBy(kernelDirs, path) {
				t.Errorf("%s is bound from the host: read %v write %v", path, p.ReadPaths, p.WritePaths)
			}
		}
	}
}
