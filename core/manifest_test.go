package core

import (
	"os"
	"path/filepath"
	"testing"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// TestManifestCache: an entry holds while its binary is unchanged, and
// saving drops the entries of binaries that are gone.
func TestManifestCache(t *testing.T) {
	dir := t.TempDir()
	bin := func(name string) PluginSpec {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return PluginSpec{Name: name, Path: p, Args: []string{"serve"}}
	}
	kept, gone := bin("kept"), bin("gone")
	m := &toolv1.ManifestResponse{SdkVersion: "0.1.0", Tools: []*toolv1.ToolSpec{{Name: "T", InputSchema: []byte(`{"type":"object"}`)}}}
	path := filepath.Join(dir, "cache", "manifests.json")

	c := loadManifestCache(path)
	c.put(kept, m)
	c.put(gone, m)
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if got, ok := loadManifestCache(path).get(gone); !ok || got.GetTools()[0].GetName() != "T" {
		t.Fatalf("a saved entry does not load: %v %v", got, ok)
	}

	if err := os.Remove(gone.Path); err != nil {
		t.Fatal(err)
	}
	c = loadManifestCache(path)
	c.put(kept, m) // any change makes the cache save
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	c = loadManifestCache(path)
	if len(c.entries) != 1 {
		t.Fatalf("after its binary was removed, the cache keeps %d entries, want 1", len(c.entries))
	}
	if _, ok := c.get(kept); !ok {
		t.Fatal("the entry of an unchanged binary was dropped")
	}

	if err := os.WriteFile(kept.Path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(kept); ok {
		t.Fatal("the entry of a changed binary still holds")
	}
}

// TestSameBuildVerdictCached: the verdict on a pair of binaries is kept
// while neither changes, and asked again when one does.
func TestSameBuildVerdictCached(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "riot"), filepath.Join(dir, "riot-tool-x")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("not a Go binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "manifests.json")
	c := loadManifestCache(path)
	first := c.sameBuild(a, b)
	if first == nil {
		t.Fatal("files that are not Go binaries were the same build")
	}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	c = loadManifestCache(path)
	key, _ := buildsKey(a, b)
	c.builds[key] = "" // a verdict only the cache can give
	if err := c.sameBuild(a, b); err != nil {
		t.Fatalf("the cached verdict was not used: %v", err)
	}
	if err := os.WriteFile(b, []byte("another binary, not Go either"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.sameBuild(a, b); err == nil || err.Error() != first.Error() {
		t.Fatalf("after the binary changed: %v, want SameBuild's own verdict %q", err, first)
	}
}

// TestManifestCacheKeepsAnnotations: a tool listed from the cache carries
// the annotations its plugin declared, and one that declared none keeps
// the conservative reading rather than gaining any.
func TestManifestCacheKeepsAnnotations(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "riot-tool-x")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := PluginSpec{Name: "x", Path: p}
	ann := &toolv1.Annotations{Title: "Look", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
	m := &toolv1.ManifestResponse{Tools: []*toolv1.ToolSpec{{Name: "Look", Annotations: ann}, {Name: "Plain"}}}
	path := filepath.Join(dir, "manifests.json")
	c := loadManifestCache(path)
	c.put(spec, m)
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	got, ok := loadManifestCache(path).get(spec)
	if !ok {
		t.Fatal("the saved entry does not load")
	}
	if a := annotationsOf(got.GetTools()[0].GetAnnotations()); a != (Annotations{Title: "Look", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}) {
		t.Fatalf("cached annotations = %+v", a)
	}
	if a := annotationsOf(got.GetTools()[1].GetAnnotations()); a != (Annotations{}) {
		t.Fatalf("a tool that declared nothing reads from the cache as %+v, want the conservative zero", a)
	}
}
