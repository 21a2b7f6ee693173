package mcpsource

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// Cache keeps each server's tool list, keyed by what starts the server, so
// that listing tools does not start every server every time.
type Cache struct {
	path string
	mu   sync.Mutex
	m    map[string][]*mcp.Tool
}

// LoadCache reads the cache at path; a missing or unreadable file is empty.
func LoadCache(path string) *Cache {
	c := &Cache{path: path, m: map[string][]*mcp.Tool{}}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &c.m)
	}
	return c
}

func key(s config.MCPServer) string {
	b, _ := json.Marshal([]any{s.Name, s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers})
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func (c *Cache) get(s config.MCPServer) []*mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key(s)]
}

func (c *Cache) put(s config.MCPServer, tools []*mcp.Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	c.m[key(s)] = tools
}

// Save writes the cache.
func (c *Cache) Save() error {
	c.mu.Lock()
	data, err := json.Marshal(c.m)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(c.path, data, 0o600)
}
