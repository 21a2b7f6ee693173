package read

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin/filestate"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// Read records what it showed: size, modification time, the hash of the
// whole content and whether every line was shown, under the file's
// resolved path, for Edit and Write to check.
func TestReadRecordsWhatItSaw(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	dir := c.Cwd
	content := strings.Repeat("line\n", 10)
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	canon := filestate.Canonical(path)
	for _, tc := range []struct {
		name  string
		input map[string]any
		whole bool
	}{
		{"whole", map[string]any{"file_path": "a.txt"}, true},
		{"through a link", map[string]any{"file_path": "link.txt"}, true},
		{"a window from the start", map[string]any{"file_path": "a.txt", "limit": 3}, false},
		{"a window to the end", map[string]any{"file_path": "a.txt", "offset": 4}, false},
		{"a limit past the end", map[string]any{"file_path": "a.txt", "limit": 100}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Call("Read", tc.input)
			if !res.Ok {
				t.Fatalf("Read failed: %s", res.Message)
			}
			var rec filestate.Record
			if err := json.Unmarshal([]byte(res.State[filestate.Key(canon)]), &rec); err != nil {
				t.Fatalf("no record under %s: %v (%v)", filestate.Key(canon), err, res.State)
			}
			if rec.Size != info.Size() || rec.ModTime != info.ModTime().UnixNano() || rec.SHA256 != filestate.Hash([]byte(content)) || rec.Whole != tc.whole || rec.At == 0 {
				t.Errorf("record %+v; want size %d, mtime %d, the content's hash, whole=%v", rec, info.Size(), info.ModTime().UnixNano(), tc.whole)
			}
		})
	}
}

// An empty file and an image are recorded too; a failed read records
// nothing.
func TestReadRecordsEmptyAndNothingOnFailure(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	empty := filepath.Join(c.Cwd, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.Call("Read", map[string]any{"file_path": empty})
	if rec := res.State[filestate.Key(filestate.Canonical(empty))]; !strings.Contains(rec, filestate.Hash(nil)) {
		t.Errorf("empty file recorded as %q", rec)
	}
	bin := filepath.Join(c.Cwd, "bin")
	if err := os.WriteFile(bin, []byte("a\x00b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := c.Call("Read", map[string]any{"file_path": bin}); res.Ok || len(res.State) != 0 {
		t.Errorf("a refused read recorded %v", res.State)
	}
}

// The records are bounded: past filestate.MaxRecords the oldest goes.
func TestReadRecordsAreBounded(t *testing.T) {
	c := plugintest.Serve(t, Tools())
	for i := range filestate.MaxRecords {
		c.State[filestate.Key("/old/"+strings.Repeat("x", i+1))] = `{"at_ns":10}`
	}
	c.State[filestate.Key("/oldest")] = `{"at_ns":1}`
	path := filepath.Join(c.Cwd, "new.txt")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.Call("Read", map[string]any{"file_path": path})
	if v, ok := res.State[filestate.Key("/oldest")]; !ok || v != "" {
		t.Errorf("the oldest record was not dropped: %v", res.State)
	}
	n := 0
	for k := range c.State {
		if strings.HasPrefix(k, "file:") {
			n++
		}
	}
	if n != filestate.MaxRecords {
		t.Errorf("%d records kept, want %d", n, filestate.MaxRecords)
	}
}
