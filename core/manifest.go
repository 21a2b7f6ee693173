package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// manifestCache keeps plugin manifests on disk, keyed by the binary's path,
// arguments, size and modification time, so listing tools starts no plugin
// whose binary has not changed.
type manifestCache struct {
	path string

	mu      sync.Mutex
	entries map[string]cacheEntry
	dirty   bool
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
}

func loadManifestCache(path string) *manifestCache {
	c := &manifestCache{path: path, entries: map[string]cacheEntry{}}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &c.entries)
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
		})
	}
	c.mu.Lock()
	c.entries[cacheKey(spec)] = e
	c.dirty = true
	c.mu.Unlock()
}

// save writes the cache if it changed; a cache that cannot be written only
// costs plugin starts later.
func (c *manifestCache) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.path == "" {
		return nil
	}
	data, err := json.Marshal(c.entries)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(c.path, data); err != nil {
		return err
	}
	c.dirty = false
	return nil
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
