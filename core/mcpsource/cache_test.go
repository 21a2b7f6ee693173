package mcpsource

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/shared"
)

// A listing from the cache serves the specs a listing from the server
// does, byte for byte (the prompt cache's prefix depends on them), output
// schemas included, starts no server, and writes no file.
func TestCachedListingIsTheServersListing(t *testing.T) {
	t.Setenv("MCPSERVE_SHAPE", "1")
	path := filepath.Join(t.TempDir(), "mcp-tools.gob")
	srv := config.MCPServer{Name: "srv", Command: buildFixture(t)}
	cache := LoadCache(path)
	fresh := New(Options{Server: srv, Cache: cache})
	want, err := fresh.Manifest(context.Background())
	_ = fresh.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Save(); err != nil {
		t.Fatal(err)
	}
	written, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	cached := New(Options{Server: srv, Cache: LoadCache(path)})
	defer cached.Close()
	got, err := cached.Manifest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("from the cache:\n%+v\nfrom the server:\n%+v", got, want)
	}
	if s := cached.State(); s != "not started" {
		t.Fatalf("a cached listing started the server: %s", s)
	}
	if !reflect.DeepEqual(cached.Tools(), want.Tools) {
		t.Fatalf("Tools() = %+v", cached.Tools())
	}
	if err := cached.opts.Cache.Save(); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(path); err != nil || !now.ModTime().Equal(written.ModTime()) || !os.SameFile(now, written) {
		t.Fatalf("a cached listing wrote the cache: %v", err)
	}
}

// The first start of a server listed from the cache lists its tools again
// before the call that started it returns: the tools it has gained are
// appended (the host is told), and the cache is brought up to date.
func TestStartRefreshesACachedListing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-tools.gob")
	srv := config.MCPServer{Name: "srv", Command: buildFixture(t)}
	stale := LoadCache(path)
	stale.put(srv, []*mcp.Tool{{Name: "echo", Description: "Echo text.", InputSchema: map[string]any{"type": "object"}}})
	if err := stale.Save(); err != nil {
		t.Fatal(err)
	}

	changed := make(chan struct{}, 1)
	cache := LoadCache(path)
	src := New(Options{Server: srv, Cache: cache, OnToolsChanged: func() { changed <- struct{}{} }})
	defer src.Close()
	m, err := src.Manifest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m); got != "mcp__srv__echo" {
		t.Fatalf("cached tools %q", got)
	}
	if final, text, _ := callOnce(t, src, "mcp__srv__echo", `{"text":"hi"}`); final.Status != shared.StatusOK || text != "echo: hi" {
		t.Fatalf("echo: %+v %q", final, text)
	}
	select {
	case <-changed:
	default:
		t.Fatal("the host was not told of the tools the refresh added")
	}
	var names []string
	for _, ts := range src.Tools() {
		names = append(names, ts.Name)
	}
	if want := []string{"mcp__srv__echo", "mcp__srv__ask", "mcp__srv__big", "mcp__srv__grow"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tools after the refresh %v, want %v", names, want)
	}
	if err := cache.Save(); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range LoadCache(path).get(srv) {
		listed = append(listed, tool.Name)
	}
	if want := []string{"ask", "big", "echo", "grow"}; !reflect.DeepEqual(listed, want) {
		t.Fatalf("cache after the refresh %v, want %v", listed, want)
	}
}
