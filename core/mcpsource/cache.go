package mcpsource

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// Cache keeps each server's tool list, keyed by what starts the server, so
// that listing tools starts no server. An entry is the list the server gave
// when riot last started it: a change to how it starts (command, args, env,
// cwd, url, headers) misses the cache, and every start lists the tools
// again and refreshes the entry (Source.connect).
//
// It holds of each tool what riot serves, the schemas as the JSON a
// listing encodes them to, in gob: a cached listing parses no JSON and
// encodes no schema again, so that twenty cached servers cost little more
// than none.
type Cache struct {
	path  string
	mu    sync.Mutex
	m     map[string][]cachedTool
	dirty bool
}

// cacheVersion changes when cachedTool does; a file of another version
// is read as empty.
const cacheVersion = 1

type cacheFile struct {
	Version int
	Servers map[string][]cachedTool
}

// cachedTool is what riot uses of a listed tool (spec, addLocked).
type cachedTool struct {
	Name, Title, Description string
	// AnnotationsTitle is annotations.title, the title if Title is empty.
	AnnotationsTitle          string
	InputSchema, OutputSchema []byte
	TaskOnly                  bool
}

// LoadCache reads the cache at path; a missing or unreadable file is empty.
func LoadCache(path string) *Cache {
	c := &Cache{path: path, m: map[string][]cachedTool{}}
	if data, err := os.ReadFile(path); err == nil {
		var f cacheFile
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil && f.Version == cacheVersion && f.Servers != nil {
			c.m = f.Servers
		}
	}
	return c
}

// key is the digest of what starts the server: each string with its
// length before it, maps in the order of their keys.
func key(s config.MCPServer) string {
	h := sha256.New()
	var n [8]byte
	str := func(v string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write([]byte(v))
	}
	list := func(vs ...string) {
		str(strconv.Itoa(len(vs)))
		for _, v := range vs {
			str(v)
		}
	}
	dict := func(m map[string]string) {
		keys := slices.Sorted(maps.Keys(m))
		str(strconv.Itoa(len(keys)))
		for _, k := range keys {
			str(k)
			str(m[k])
		}
	}
	list(s.Name, s.Command)
	list(s.Args...)
	dict(s.Env)
	list(s.Cwd, s.URL)
	dict(s.Headers)
	return hex.EncodeToString(h.Sum(nil))
}

// get is the server's cached list, or nil if there is none. A schema is
// a json.RawMessage in the tool's schema fields.
func (c *Cache) get(s config.MCPServer) []*mcp.Tool {
	c.mu.Lock()
	cached, ok := c.m[key(s)]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	tools := make([]*mcp.Tool, 0, len(cached))
	for _, ct := range cached {
		t := &mcp.Tool{Name: ct.Name, Title: ct.Title, Description: ct.Description}
		if ct.AnnotationsTitle != "" {
			t.Annotations = &mcp.ToolAnnotations{Title: ct.AnnotationsTitle}
		}
		if len(ct.InputSchema) > 0 {
			t.InputSchema = json.RawMessage(ct.InputSchema)
		}
		if len(ct.OutputSchema) > 0 {
			t.OutputSchema = json.RawMessage(ct.OutputSchema)
		}
		if ct.TaskOnly {
			t.Meta = mcp.Meta{taskMeta: "required"}
		}
		tools = append(tools, t)
	}
	return tools
}

// put keeps the server's list; the file is written at Save only if a list
// changed.
func (c *Cache) put(s config.MCPServer, tools []*mcp.Tool) {
	cached := make([]cachedTool, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		ct := cachedTool{Name: t.Name, Title: t.Title, Description: t.Description, TaskOnly: taskOnly(t)}
		if t.Annotations != nil {
			ct.AnnotationsTitle = t.Annotations.Title
		}
		var err error
		if ct.InputSchema, err = schemaJSON(t.InputSchema); err != nil {
			return
		}
		if ct.OutputSchema, err = schemaJSON(t.OutputSchema); err != nil {
			return
		}
		cached = append(cached, ct)
	}
	k := key(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok && slices.EqualFunc(old, cached, sameTool) {
		return
	}
	c.m[k] = cached
	c.dirty = true
}

// schemaJSON is a schema as JSON, nil for none.
func schemaJSON(schema any) ([]byte, error) {
	if schema == nil {
		return nil, nil
	}
	if raw, ok := schema.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(schema)
}

func sameTool(a, b cachedTool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.AnnotationsTitle == b.AnnotationsTitle &&
		a.TaskOnly == b.TaskOnly && bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema)
}

// Save writes the cache if a list has changed since it was read.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	var data bytes.Buffer
	if err := gob.NewEncoder(&data).Encode(cacheFile{Version: cacheVersion, Servers: c.m}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(c.path, data.Bytes(), 0o600); err != nil {
		return err
	}
	c.dirty = false
	return nil
}
