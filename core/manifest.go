package core

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/riot-tools/riot/internal/atomicfile"
	"github.com/riot-tools/riot/internal/fileid"
	"github.com/riot-tools/riot/shared"
)

// manifestCacheVersion is the shape of the cache file; a file of another
// version reads as empty, so a change of shape costs one plugin start and
// never misreads an entry. Version 3 is gob, not JSON: every listing reads
// the whole file, which holds every plugin binary's manifest, and gob reads
// it in a quarter of encoding/json's time, with no base64 (see
// BENCHMARKS.md, "riot tools --json and cold start").
// Version 4: an entry's identity (fileid.ID) carries the file's mode.
const manifestCacheVersion = 4

// manifestCacheFile is the manifest cache's file name in the state
// directory's cache/.
const manifestCacheFile = "manifests.gob"

// manifestCache keeps on disk what riot learns by starting plugins, keyed
// by the command that serves a plugin and the identity of its binary, so
// listing tools starts no plugin whose binary has not changed:
//   - each plugin's manifest, whole (shared.MarshalManifest, the wire's
//     own encoding, so a ToolSpec field is never lost in the cache);
//   - the handshakes that timed out, so that a plugin that hangs at start
//     costs one start timeout and not one per invocation;
//   - SameBuild's verdicts on builtins' standalone binaries, which cost a
//     plugin start a millisecond or more of reading both binaries.
type manifestCache struct {
	path string

	mu       sync.Mutex
	entries  map[string]cacheEntry
	builds   map[string]string
	failures map[string]failureEntry
	dirty    bool
}

// cacheFile is the cache on disk.
type cacheFile struct {
	Version   int
	Manifests map[string]cacheEntry
	Failures  map[string]failureEntry
	// Builds maps two binaries, each by its identity (buildsKey), to
	// SameBuild's verdict: "" for the same build, or why not.
	Builds map[string]string
}

type cacheEntry struct {
	ID     binaryID
	SHA256 string
	// Protocol is the protocol version the plugin negotiated.
	Protocol int
	// Manifest is the manifest as shared.MarshalManifest encodes it.
	Manifest []byte
	// SchemasChecked: every tool's input schema in Manifest passed its
	// meta-schema check when the plugin sent it, so a process that loads
	// the entry compiles them without that check (compileValidator). An
	// entry written before the field existed reads as false: checked.
	SchemasChecked bool
}

// failureEntry is a start that failed in a way worth not repeating.
type failureEntry struct {
	ID      binaryID
	Message string
	AtUnix  int64
}

// binaryID identifies one version of a plugin binary (fileid.ID): one
// replaced or rewritten in place gets another, even at the same size and
// mtime.
type binaryID = fileid.ID

// identify is the identity of the binary at path now, symlinks followed.
func identify(path string) (binaryID, error) { return fileid.Stat(path) }

// specKey names the command that serves spec, whose binary is id: its
// arguments and environment can change what it serves as much as the
// binary can.
func specKey(spec PluginSpec, id binaryID) string {
	var b strings.Builder
	b.WriteString(idKey(id))
	for _, a := range spec.Args {
		b.WriteString("\x00a=" + a)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		b.WriteString("\x00e=" + k + "=" + spec.Env[k])
	}
	return b.String()
}

func loadManifestCache(path string) *manifestCache {
	c := &manifestCache{path: path, entries: map[string]cacheEntry{}, builds: map[string]string{}, failures: map[string]failureEntry{}}
	var f cacheFile
	if data, err := os.ReadFile(path); err == nil && gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil && f.Version == manifestCacheVersion {
		if f.Manifests != nil {
			c.entries = f.Manifests
		}
		if f.Builds != nil {
			c.builds = f.Builds
		}
		if f.Failures != nil {
			c.failures = f.Failures
		}
	}
	return c
}

// cachedManifest is a manifest from the cache.
type cachedManifest struct {
	m  *shared.Manifest
	id binaryID
	// schemasChecked is the entry's SchemasChecked.
	schemasChecked bool
}

// get returns the cached manifest of spec's binary as it is now, with
// that binary's identity.
func (c *manifestCache) get(spec PluginSpec) (cachedManifest, bool) {
	id, err := identify(spec.Path)
	if err != nil {
		return cachedManifest{id: id}, false
	}
	c.mu.Lock()
	e, ok := c.entries[specKey(spec, id)]
	c.mu.Unlock()
	if !ok || e.SHA256 != spec.SHA256 {
		return cachedManifest{id: id}, false
	}
	m, err := shared.UnmarshalManifest(e.Manifest)
	if err != nil {
		return cachedManifest{id: id}, false
	}
	return cachedManifest{m: &m, id: id, schemasChecked: e.SchemasChecked}, true
}

// put records the manifest a started plugin sent, for its binary as it
// was when it started, and reports whether its schemas passed their
// meta-schema check. A pinned plugin's entry carries its pin, since the
// binary passed the check to start.
func (c *manifestCache) put(spec PluginSpec, id binaryID, m *shared.Manifest) bool {
	checked := schemasCheck(m)
	data, err := shared.MarshalManifest(*m)
	if err != nil {
		return checked
	}
	c.mu.Lock()
	c.entries[specKey(spec, id)] = cacheEntry{ID: id, SHA256: spec.SHA256, Manifest: data, SchemasChecked: checked}
	c.dirty = true
	c.mu.Unlock()
	return checked
}

// schemasCheck reports whether every tool's input schema in m compiles
// with its meta-schema check. It runs where a plugin has just started
// to send m, which costs far more than the check.
func schemasCheck(m *shared.Manifest) bool {
	for _, t := range m.Tools {
		if _, err := compileValidator(t.Name, t.InputSchema, false); err != nil {
			return false
		}
	}
	return true
}

// setProtocol records the protocol version spec's binary id negotiated,
// beside its manifest, for `riot plugins` to show without a start.
func (c *manifestCache) setProtocol(spec PluginSpec, id binaryID, protocol int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[specKey(spec, id)]; ok && e.Protocol != protocol {
		e.Protocol = protocol
		c.entries[specKey(spec, id)] = e
		c.dirty = true
	}
}

// protocol is the protocol version recorded for spec's binary id, or 0.
func (c *manifestCache) protocol(spec PluginSpec, id binaryID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[specKey(spec, id)].Protocol
}

// failure returns the remembered start failure of spec's binary id.
func (c *manifestCache) failure(spec PluginSpec, id binaryID) (failureEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.failures[specKey(spec, id)]
	return f, ok
}

// putFailure remembers that spec's binary id failed to start, until the
// binary or its command changes.
func (c *manifestCache) putFailure(spec PluginSpec, id binaryID, msg string, at time.Time) {
	c.mu.Lock()
	c.failures[specKey(spec, id)] = failureEntry{ID: id, Message: msg, AtUnix: at.Unix()}
	c.dirty = true
	c.mu.Unlock()
}

// save writes the cache if it changed; a cache that cannot be written only
// costs plugin starts later. It drops the entries of binaries that are
// gone or have changed since, which every start would otherwise read: the
// cache is shared by every workspace and every riot binary, and test and
// benchmark runs each leave one behind.
func (c *manifestCache) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.path == "" {
		return nil
	}
	for key, e := range c.entries {
		if !e.ID.Current() {
			delete(c.entries, key)
		}
	}
	for key, f := range c.failures {
		if !f.ID.Current() {
			delete(c.failures, key)
		}
	}
	for key := range c.builds {
		parts := strings.Split(key, "\x00")
		if len(parts) != 2*idKeyParts || gone(parts[0]) || gone(parts[idKeyParts]) {
			delete(c.builds, key)
		}
	}
	var data bytes.Buffer
	if err := gob.NewEncoder(&data).Encode(cacheFile{Version: manifestCacheVersion, Manifests: c.entries, Failures: c.failures, Builds: c.builds}); err != nil {
		return err
	}
	if err := atomicfile.Write(c.path, data.Bytes(), 0o600); err != nil {
		return err
	}
	// The JSON cache of versions before 3, which no riot reads any more.
	if legacy := filepath.Join(filepath.Dir(c.path), "manifests.json"); legacy != c.path {
		_ = os.Remove(legacy)
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

// buildsKey names a pair of binaries by their identities: a verdict holds
// while neither binary changes.
func buildsKey(a, b string) (string, bool) {
	ia, err := fileid.Stat(a)
	if err != nil {
		return "", false
	}
	ib, err := fileid.Stat(b)
	if err != nil {
		return "", false
	}
	return idKey(ia) + "\x00" + idKey(ib), true
}

// idKey is a file's identity as a key: every field of it, so a key names
// one version of one file. Its first part is the path.
func idKey(id fileid.ID) string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%d\x00%d\x00%d\x00%d", id.Path, id.Size, id.MtimeNs, id.CtimeNs, id.Ino, id.Dev, id.Mode)
}

// idKeyParts is how many parts of a key split at NUL idKey makes.
const idKeyParts = 7
