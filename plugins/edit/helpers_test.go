package edit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin/filestate"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugins/edit"
)

func serve(t testing.TB) *plugintest.Client {
	t.Helper()
	c := plugintest.Serve(t, edit.Tools())
	c.Shared = map[string]map[string]string{filestate.ReadPlugin: {}}
	return c
}

// markRead records path as Read does after showing it: whole, or a window.
func markRead(t testing.TB, c *plugintest.Client, path string, whole bool) {
	t.Helper()
	canon := filestate.Canonical(path)
	info, err := os.Stat(canon)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(canon)
	if err != nil {
		t.Fatal(err)
	}
	rec := filestate.Observe(info, data, whole, time.Now())
	b, _ := json.Marshal(rec)
	c.Shared[filestate.ReadPlugin][filestate.Key(canon)] = string(b)
}

func writeFile(t testing.TB, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// snapshot is a file's bytes, mode and modification time, to check that a
// refused call left it alone.
type snapshot struct {
	data  string
	mode  os.FileMode
	mtime time.Time
	err   bool
}

func snap(path string) snapshot {
	info, err := os.Lstat(path)
	if err != nil {
		return snapshot{err: true}
	}
	var data []byte
	if info.Mode().IsRegular() {
		data, _ = os.ReadFile(path)
	}
	return snapshot{data: string(data), mode: info.Mode(), mtime: info.ModTime()}
}
