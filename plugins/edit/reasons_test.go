package edit_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin/filestate"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// reasons are the refusals, each by a phrase only its message has.
var reasons = map[string]string{
	"not read":      "you have not read this one",
	"changed":       "changed since you read it",
	"not found":     "was not found in",
	"several":       "times in",
	"same":          "are the same",
	"missing":       "does not exist, so there is nothing to edit",
	"binary":        "is a binary file",
	"not utf-8":     "is not valid UTF-8",
	"directory":     "is a directory",
	"empty old":     "`old_string` must not be empty",
	"empty path":    "`file_path` must not be empty",
	"too large":     "handles files of up to",
	"partial":       "read only part of",
	"not regular":   "is not a regular file",
	"trailing path": "ends in a slash",
}

// wantReason checks that msg gives reason and no other.
func wantReason(t *testing.T, msg, reason string) {
	t.Helper()
	if !strings.Contains(msg, reasons[reason]) {
		t.Errorf("message %q does not give the reason %q (%q)", msg, reason, reasons[reason])
	}
	for other, phrase := range reasons {
		if other != reason && strings.Contains(msg, phrase) {
			t.Errorf("message %q gives the reason %q too, besides %q", msg, other, reason)
		}
	}
}

// Every refusal of Edit, each with its own reason, in Prepare and in
// Call, and the file untouched after each.
func TestEditRefusals(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, c *plugintest.Client) string // returns the path
		input  func(path string) map[string]any
		reason string
	}{
		{"not read", func(t *testing.T, c *plugintest.Client) string {
			return writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
		}, replace("package a", "package b"), "not read"},
		{"changed: content", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			info, _ := os.Stat(p)
			// Same size, same time: only the hash can tell.
			if err := os.WriteFile(p, []byte("package z\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(p, info.ModTime(), info.ModTime())
			return p
		}, replace("package", "pkg"), "changed"},
		{"changed: size", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			if err := os.WriteFile(p, []byte("package a\n// more\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, replace("package a", "package b"), "changed"},
		{"changed: time only", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			later := time.Now().Add(time.Hour)
			_ = os.Chtimes(p, later, later)
			return p
		}, replace("package a", "package b"), "changed"},
		{"not found", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("func main", "func Main"), "not found"},
		{"several", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "x := 1\nx := 1\ny\nx := 1\n", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("x := 1", "x := 2"), "several"},
		{"same", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("package a", "package a"), "same"},
		{"missing", func(t *testing.T, c *plugintest.Client) string {
			return filepath.Join(c.Cwd, "nope.go")
		}, replace("a", "b"), "missing"},
		{"binary", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.png", "\x89PNG\r\n\x1a\n\x00\x00data", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("data", "atad"), "binary"},
		{"binary from the first byte", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "nul.txt", "\x00text", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("text", "txet"), "binary"},
		{"exactly the largest size", func(t *testing.T, c *plugintest.Client) string {
			// Not too large: refused for what it holds, zero bytes.
			p := filepath.Join(c.Cwd, "max.bin")
			f, _ := os.Create(p)
			_ = f.Truncate(filestate.MaxBytes)
			_ = f.Close()
			markRead(t, c, p, true)
			return p
		}, replace("a", "b"), "binary"},
		{"not utf-8", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "latin1.txt", "caf\xe9 au lait\n", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("au", "with"), "not utf-8"},
		{"directory", func(t *testing.T, c *plugintest.Client) string {
			p := filepath.Join(c.Cwd, "dir")
			_ = os.Mkdir(p, 0o755)
			return p
		}, replace("a", "b"), "directory"},
		{"empty old_string", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.go", "package a\n", 0o644)
			markRead(t, c, p, true)
			return p
		}, replace("", "x"), "empty old"},
		{"empty path", func(t *testing.T, c *plugintest.Client) string { return "" }, replace("a", "b"), "empty path"},
		{"too large", func(t *testing.T, c *plugintest.Client) string {
			p := filepath.Join(c.Cwd, "big.txt")
			f, _ := os.Create(p)
			_ = f.Truncate(17 << 20)
			_ = f.Close()
			return p
		}, replace("a", "b"), "too large"},
		{"fifo", func(t *testing.T, c *plugintest.Client) string {
			p := filepath.Join(c.Cwd, "fifo")
			if err := mkfifo(p); err != nil {
				t.Skip("no mkfifo:", err)
			}
			return p
		}, replace("a", "b"), "not regular"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t)
			path := tc.setup(t, c)
			before := snap(path)
			in := tc.input(path)
			if p := c.Prepare("Edit", in); p.Rejected == "" {
				t.Errorf("Prepare accepted it")
			} else {
				wantReason(t, p.Rejected, tc.reason)
			}
			res := c.Call("Edit", in)
			if res.Ok {
				t.Fatalf("Call succeeded: %s", res.Text)
			}
			wantReason(t, res.Message, tc.reason)
			if after := snap(path); after != before {
				t.Errorf("the file changed on a refusal: %+v -> %+v", before, after)
			}
			if len(res.State) != 0 {
				t.Errorf("a refusal recorded state %v", res.State)
			}
		})
	}
}

func replace(old, new string) func(string) map[string]any {
	return func(path string) map[string]any {
		return map[string]any{"file_path": path, "old_string": old, "new_string": new}
	}
}

// Every refusal of Write, each with its own reason, and the file untouched.
func TestWriteRefusals(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, c *plugintest.Client) string
		reason string
	}{
		{"overwrite unread", func(t *testing.T, c *plugintest.Client) string {
			return writeFile(t, c.Cwd, "a.txt", "old\n", 0o644)
		}, "not read"},
		{"overwrite changed", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.txt", "old\n", 0o644)
			markRead(t, c, p, true)
			_ = os.WriteFile(p, []byte("newer\n"), 0o644)
			return p
		}, "changed"},
		{"overwrite partly read", func(t *testing.T, c *plugintest.Client) string {
			p := writeFile(t, c.Cwd, "a.txt", "old\n", 0o644)
			markRead(t, c, p, false)
			return p
		}, "partial"},
		{"directory", func(t *testing.T, c *plugintest.Client) string {
			p := filepath.Join(c.Cwd, "d")
			_ = os.Mkdir(p, 0o755)
			return p
		}, "directory"},
		{"parent is a file", func(t *testing.T, c *plugintest.Client) string {
			writeFile(t, c.Cwd, "f", "x", 0o644)
			return filepath.Join(c.Cwd, "f", "child.txt")
		}, ""},
		{"trailing slash", func(t *testing.T, c *plugintest.Client) string { return filepath.Join(c.Cwd, "new") + "/" }, "trailing path"},
		{"empty path", func(t *testing.T, c *plugintest.Client) string { return "" }, "empty path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t)
			path := tc.setup(t, c)
			before := snap(path)
			in := map[string]any{"file_path": path, "content": "replaced\n"}
			p := c.Prepare("Write", in)
			res := c.Call("Write", in)
			if p.Rejected == "" || res.Ok {
				t.Fatalf("accepted: prepare %q, call ok=%v", p.Rejected, res.Ok)
			}
			if tc.reason == "not read" && !strings.Contains(res.Message, "Write only replaces a file you have seen") {
				t.Errorf("not-read message %q does not speak of Write", res.Message)
			}
			if tc.reason != "" {
				wantReason(t, p.Rejected, tc.reason)
				wantReason(t, res.Message, tc.reason)
			} else if !strings.Contains(res.Message, "is a file, not a directory") {
				t.Errorf("message %q", res.Message)
			}
			if after := snap(path); after != before {
				t.Errorf("the file changed on a refusal: %+v -> %+v", before, after)
			}
		})
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
