package core

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/riot-tools/riot/shared"
)

// TestManifestCache: an entry holds while its binary is unchanged, and
// saving drops the entries of binaries that are gone or changed.
func TestManifestCache(t *testing.T) {
	dir := t.TempDir()
	bin := func(name string) (PluginSpec, binaryID) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		id, err := identify(p)
		if err != nil {
			t.Fatal(err)
		}
		return PluginSpec{Name: name, Path: p, Args: []string{"serve"}}, id
	}
	kept, keptID := bin("kept")
	gone, goneID := bin("gone")
	m := &shared.Manifest{SDKVersion: "0.1.0", Tools: []shared.ToolSpec{{Name: "T", InputSchema: []byte(`{"type":"object"}`)}}}
	path := filepath.Join(dir, "cache", "manifests.json")

	c := loadManifestCache(path)
	c.put(kept, keptID, m)
	c.put(gone, goneID, m)
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if got, ok := loadManifestCache(path).get(gone); !ok || got.m.Tools[0].Name != "T" {
		t.Fatalf("a saved entry does not load: %v %v", got, ok)
	}

	if err := os.Remove(gone.Path); err != nil {
		t.Fatal(err)
	}
	c = loadManifestCache(path)
	c.put(kept, keptID, m) // any change makes the cache save
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
	other := kept
	other.Env = map[string]string{"MODE": "x"}
	if _, ok := c.get(other); ok {
		t.Fatal("the entry of one command served another environment")
	}

	if err := os.WriteFile(kept.Path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(kept); ok {
		t.Fatal("the entry of a changed binary still holds")
	}
}

// A binary replaced by one of the same size and modification time is
// another binary: its old manifest must not serve it.
func TestManifestCacheKnowsAReplacedBinary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "riot-tool-x")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := PluginSpec{Name: "x", Path: p}
	id, _ := identify(p)
	c := loadManifestCache(filepath.Join(dir, "m.json"))
	c.put(spec, id, &shared.Manifest{Tools: []shared.ToolSpec{{Name: "Old"}}})
	mtime := time.Unix(1700000000, 0)
	_ = os.Chtimes(p, mtime, mtime)
	id, _ = identify(p)
	c.put(spec, id, &shared.Manifest{Tools: []shared.ToolSpec{{Name: "Old"}}})

	repl := filepath.Join(dir, "new")
	if err := os.WriteFile(repl, []byte("#!/bin/sh\necho 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(repl, mtime, mtime)
	if err := os.Rename(repl, p); err != nil {
		t.Fatal(err)
	}
	if c, ok := c.get(spec); ok {
		t.Fatalf("a replaced binary of the same size and mtime got the old manifest %v", c.m)
	}
}

// Every field of ToolSpec survives the cache, including ones added after
// this test was written: the test fills whatever fields the type has.
// So does the manifest's declaration that the plugin starts no processes.
func TestManifestCacheKeepsEveryToolSpecField(t *testing.T) {
	var spec shared.ToolSpec
	fillFields(t, reflect.ValueOf(&spec).Elem())
	m := &shared.Manifest{SDKVersion: "9", Tools: []shared.ToolSpec{spec}, StartsNoProcesses: true}
	dir := t.TempDir()
	p := filepath.Join(dir, "bin")
	if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	ps := PluginSpec{Name: "x", Path: p}
	id, _ := identify(p)
	path := filepath.Join(dir, "m.json")
	c := loadManifestCache(path)
	c.put(ps, id, m)
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	got, ok := loadManifestCache(path).get(ps)
	if !ok || !reflect.DeepEqual(got.m, m) {
		t.Fatalf("the cache lost fields:\n got %v\nwant %v", got.m, m)
	}
}

// fillFields sets every field of the struct v, at every depth, to a value
// other than its zero; a field of a kind it does not know fails the test,
// so that a new one is filled too.
func fillFields(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("s-" + name)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.Uint8 {
				t.Fatalf("fillFields: field %s is a list, which it does not fill", name)
			}
			f.SetBytes([]byte(`{"f":"` + name + `"}`))
		case reflect.Int, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			fillFields(t, f.Elem())
		default:
			t.Fatalf("fillFields: field %s is of kind %s, which it does not fill", name, f.Kind())
		}
	}
}

// A cache file of another version reads as empty.
func TestManifestCacheVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(path, []byte(`{"manifests":{"k":{"size":1,"tools":[{"name":"T"}]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := loadManifestCache(path); len(c.entries) != 0 {
		t.Fatalf("an unversioned cache was read: %v", c.entries)
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
	ann := &shared.Annotations{Title: "Look", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
	m := &shared.Manifest{Tools: []shared.ToolSpec{{Name: "Look", Annotations: ann}, {Name: "Plain"}}}
	path := filepath.Join(dir, "manifests.json")
	id, err := identify(p)
	if err != nil {
		t.Fatal(err)
	}
	c := loadManifestCache(path)
	c.put(spec, id, m)
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	got, ok := loadManifestCache(path).get(spec)
	if !ok {
		t.Fatal("the saved entry does not load")
	}
	if a := annotationsOf(got.m.Tools[0].Annotations); a != (Annotations{Title: "Look", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}) {
		t.Fatalf("cached annotations = %+v", a)
	}
	if a := annotationsOf(got.m.Tools[1].Annotations); a != (Annotations{}) {
		t.Fatalf("a tool that declared nothing reads from the cache as %+v, want the conservative zero", a)
	}
}

// A cache file that does not decode whole, whether cut short, of the JSON
// shape riot wrote before, or of another version, reads as empty: it costs
// plugin starts, never a misread entry. A save removes the JSON file of
// earlier versions.
func TestManifestCacheUnreadable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "riot-tool-x")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := PluginSpec{Name: "x", Path: p}
	id, err := identify(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, manifestCacheFile)
	legacy := filepath.Join(dir, "manifests.json")
	if err := os.WriteFile(legacy, []byte(`{"version":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := loadManifestCache(path)
	c.put(spec, id, &shared.Manifest{Tools: []shared.ToolSpec{{Name: "T"}}})
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the JSON cache riot no longer reads is still there after a save: %v", err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := loadManifestCache(path).get(spec); !ok {
		t.Fatal("the saved entry does not load")
	}
	var other bytes.Buffer
	if err := gob.NewEncoder(&other).Encode(cacheFile{Version: manifestCacheVersion + 1, Manifests: c.entries}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"cut short":     whole[:len(whole)-8],
		"JSON":          []byte(`{"version":2,"manifests":{}}`),
		"other version": other.Bytes(),
		"empty":         nil,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if c := loadManifestCache(path); len(c.entries) != 0 {
			t.Errorf("%s: the cache read %d entries, want none", name, len(c.entries))
		}
	}
}

// TestManifestCacheRecordsSchemasChecked: an entry says its schemas passed
// their meta-schema check only when every one did, the mark survives the
// file, and a host built from the entry compiles its tools' schemas
// without the check only then.
func TestManifestCacheRecordsSchemasChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache", manifestCacheFile)
	good := shared.ToolSpec{Name: "Good", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}
	for _, tc := range []struct {
		name  string
		tools []shared.ToolSpec
		want  bool
	}{
		{"all valid", []shared.ToolSpec{good, {Name: "Other", InputSchema: []byte(`{"type":"object"}`)}}, true},
		{"one its meta-schema rejects", []shared.ToolSpec{good, {Name: "Bad", InputSchema: []byte(`{"type":5}`)}}, false},
		{"one not JSON", []shared.ToolSpec{good, {Name: "Bad", InputSchema: []byte(`{`)}}, false},
		{"no tools", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			id, err := identify(p)
			if err != nil {
				t.Fatal(err)
			}
			spec := PluginSpec{Name: "p", Path: p}
			c := loadManifestCache(path)
			c.put(spec, id, &shared.Manifest{Tools: tc.tools})
			if err := c.save(); err != nil {
				t.Fatal(err)
			}
			got, ok := loadManifestCache(path).get(spec)
			if !ok {
				t.Fatal("the saved entry does not load")
			}
			if got.schemasChecked != tc.want {
				t.Fatalf("schemasChecked = %v, want %v", got.schemasChecked, tc.want)
			}
		})
	}
}

// TestCheckedSchemaCompilesAsAChecked: a schema compiled without its
// meta-schema check (a cache entry's mark) accepts and rejects what the
// checked compile does, with the same hints; one that should not have
// been marked (a cache file edited by hand) compiles or fails to, but
// never panics the host: a check on each update of internal/jsonschema.
func TestCheckedSchemaCompilesAsAChecked(t *testing.T) {
	schema := []byte(`{"type":"object","required":["path"],"additionalProperties":false,"properties":{"path":{"type":"string","description":"The file."},"limit":{"type":"integer","minimum":1}}}`)
	checked, err := compileValidator("T", schema, false)
	if err != nil {
		t.Fatal(err)
	}
	unchecked, err := compileValidator("T", schema, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{"path":"a"}`, `{"path":"a","limit":2}`, `{}`, `{"path":1}`, `{"path":"a","limit":0}`, `{"path":"a","x":1}`, `[]`, `{`} {
		if a, b := unchecked.check([]byte(in)), checked.check([]byte(in)); a != b {
			t.Errorf("%s: hint without the check %q, with it %q", in, a, b)
		}
	}
	for _, bad := range []string{`{"type":5}`, `{"properties":[]}`, `{"properties":{"a":5}}`, `{"required":"x"}`, `{"minimum":"1"}`,
		`{"maxLength":-1}`, `{"maxLength":1.5}`, `{"$ref":5}`, `{"$ref":"#/x"}`, `{"items":7}`, `{"prefixItems":{}}`, `{"pattern":"("}`,
		`{"patternProperties":{"(":{}}}`, `{"enum":{}}`, `{"allOf":5}`, `{"allOf":[5]}`, `{"not":5}`, `{"if":5,"then":5}`,
		`{"$defs":5}`, `{"$id":5}`, `{"$schema":5}`, `{"$anchor":5}`, `{"$dynamicRef":5}`, `{"dependentRequired":{"a":5}}`,
		`{"unevaluatedProperties":5}`, `{"additionalProperties":5}`, `{"format":5}`, `[]`, `7`} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: compiling without the check panicked: %v", bad, r)
				}
			}()
			_, _ = compileValidator("T", []byte(bad), true)
		}()
	}
}
