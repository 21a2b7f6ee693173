package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// manifestCache keeps plugin manifests on disk, keyed by the binary's path,
// arguments, size and modification time, so listing tools starts no plugin
// whose binary has not changed. It also keeps SameBuild's verdicts on
// builtins' standalone binaries, which cost a plugin start a millisecond or
// more of reading both binaries.
type manifestCache struct {
	path string

	mu      sync.Mutex
	entries map[string]cacheEntry
	builds  map[string]string
	dirty   bool
}

// cacheFile is the cache on disk. A file in another shape reads as empty.
type cacheFile struct {
	Manifests map[string]cacheEntry `json:"manifests"`
	// Builds maps two binaries, each by path, size and modification time,
	// to SameBuild's verdict: "" for the same build, or why not.
	Builds map[string]string `json:"builds,omitempty"`
}

type cacheEntry struct {
	Size    int64       `json:"size"`
	MtimeNs int64       `json:"mtime_ns"`
	SHA256  string      `json:"sha256,omitempty"`
	SDK     string      `json:"sdk,omitempty"`
	Tools   []cacheTool `json:"tools"`
}

type cacheTool struct {
	Name      string          `json:"name"`
	Prompt    string          `json:"prompt"`
	Schema    json.RawMessage `json:"input_schema"`
	Cascades  bool            `json:"cascades_on_failure,omitempty"`
	Unlimited bool            `json:"unlimited,omitempty"`
	Limit     int64           `json:"limit_chars,omitempty"`
	// Annotations is the tool's declared annotations; nil reads as the
	// conservative values.
	Annotations *cacheAnnotations `json:"annotations,omitempty"`
}

type cacheAnnotations struct {
	Title          string `json:"title,omitempty"`
	ReadOnly       bool   `json:"read_only,omitempty"`
	NonDestructive bool   `json:"non_destructive,omitempty"`
	Idempotent     bool   `json:"idempotent,omitempty"`
	Local          bool   `json:"local,omitempty"`
}

func cachedAnnotations(a *toolv1.Annotations) *cacheAnnotations {
	if a == nil {
		return nil
	}
	return &cacheAnnotations{Title: a.GetTitle(), ReadOnly: a.GetReadOnly(), NonDestructive: a.GetNonDestructive(), Idempotent: a.GetIdempotent(), Local: a.GetLocal()}
}

func (a *cacheAnnotations) wire() *toolv1.Annotations {
	if a == nil {
		return nil
	}
	return &toolv1.Annotations{Title: a.Title, ReadOnly: a.ReadOnly, NonDestructive: a.NonDestructive, Idempotent: a.Idempotent, Local: a.Local}
}

func loadManifestCache(path string) *manifestCache {
	c := &manifestCache{path: path, entries: map[string]cacheEntry{}, builds: map[string]string{}}
	var f cacheFile
	if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &f) == nil {
		if f.Manifests != nil {
			c.entries = f.Manifests
		}
		if f.Builds != nil {
			c.builds = f.Builds
		}
	}
	return c
}

func cacheKey(spec PluginSpec) string {
	return spec.Path + "\x00" + strings.Join(spec.Args, "\x00")
}

// get returns the cached manifest of spec's binary if it has not changed.
func (c *manifestCache) get(spec PluginSpec) (*toolv1.ManifestResponse, bool) {
	info, err := os.Stat(spec.Path)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.entries[cacheKey(spec)]
	c.mu.Unlock()
	if !ok || e.Size != info.Size() || e.MtimeNs != info.ModTime().UnixNano() || e.SHA256 != spec.SHA256 {
		return nil, false
	}
	m := &toolv1.ManifestResponse{SdkVersion: e.SDK}
	for _, t := range e.Tools {
		m.Tools = append(m.Tools, &toolv1.ToolSpec{
			Name: t.Name, Prompt: t.Prompt, InputSchema: t.Schema, CascadesOnFailure: t.Cascades,
			ResultBudget: &toolv1.Budget{Unlimited: t.Unlimited, LimitChars: t.Limit},
			Annotations:  t.Annotations.wire(),
		})
	}
	return m, true
}

// put records the manifest a started plugin sent. A pinned plugin's entry
// carries its pin, since the binary passed the check to start.
func (c *manifestCache) put(spec PluginSpec, m *toolv1.ManifestResponse) {
	info, err := os.Stat(spec.Path)
	if err != nil {
		return
	}
	e := cacheEntry{Size: info.Size(), MtimeNs: info.ModTime().UnixNano(), SHA256: spec.SHA256, SDK: m.GetSdkVersion()}
	for _, t := range m.GetTools() {
		e.Tools = append(e.Tools, cacheTool{
			Name: t.GetName(), Prompt: t.GetPrompt(), Schema: t.GetInputSchema(), Cascades: t.GetCascadesOnFailure(),
			Unlimited: t.GetResultBudget().GetUnlimited(), Limit: t.GetResultBudget().GetLimitChars(),
			Annotations: cachedAnnotations(t.GetAnnotations()),
		})
	}
	c.mu.Lock()
	c.entries[cacheKey(spec)] = e
	c.dirty = true
	c.mu.Unlock()
}

// save writes the cache if it changed; a cache that cannot be written only
// costs plugin starts later. It drops the entries of binaries that no
// longer exist, which every start would otherwise read: the cache is
// shared by every workspace and every riot binary, and test and benchmark
// runs each leave one behind.
func (c *manifestCache) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.path == "" {
		return nil
	}
	for key := range c.entries {
		path, _, _ := strings.Cut(key, "\x00")
		if gone(path) {
			delete(c.entries, key)
		}
	}
	for key := range c.builds {
		parts := strings.Split(key, "\x00")
		if len(parts) != 6 || gone(parts[0]) || gone(parts[3]) {
			delete(c.builds, key)
		}
	}
	data, err := json.Marshal(cacheFile{Manifests: c.entries, Builds: c.builds})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(c.path, data); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

func gone(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// sameBuild is SameBuild(a, b), from the cache while neither binary has
// changed.
func (c *manifestCache) sameBuild(a, b string) error {
	key, ok := buildsKey(a, b)
	if ok {
		c.mu.Lock()
		reason, hit := c.builds[key]
		c.mu.Unlock()
		if hit {
			if reason != "" {
				return errors.New(reason)
			}
			return nil
		}
	}
	err := SameBuild(a, b)
	if ok {
		reason := ""
		if err != nil {
			reason = err.Error()
		}
		c.mu.Lock()
		c.builds[key] = reason
		c.dirty = true
		c.mu.Unlock()
	}
	return err
}

func buildsKey(a, b string) (string, bool) {
	ia, err := os.Stat(a)
	if err != nil {
		return "", false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%d\x00%d", a, ia.Size(), ia.ModTime().UnixNano(), b, ib.Size(), ib.ModTime().UnixNano()), true
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
