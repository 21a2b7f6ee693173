package read_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugins/read"
)

// serve serves Read with the workspace in a fresh temp dir.
func serve(t *testing.T) *plugintest.Client {
	t.Helper()
	return plugintest.Serve(t, read.Tools())
}

// write creates a file under dir, with its parents.
func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// numbered is n lines "line 1".."line n" from first, each ending in "\n".
func numbered(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// catN is what `cat -n` prints for numbered(first, n).
func catN(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

func ui(t *testing.T, res plugintest.Result) read.UI {
	t.Helper()
	var u read.UI
	if err := json.Unmarshal(res.UI, &u); err != nil {
		t.Fatalf("UI payload %s: %v", res.UI, err)
	}
	return u
}

func TestTextWindows(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "small.txt", []byte(numbered(1, 5)))
	write(t, c.Cwd, "big.txt", []byte(numbered(1, 48211)))
	write(t, c.Cwd, "noeol.txt", []byte("a\nb"))
	write(t, c.Cwd, "blank.txt", []byte("\n\n"))

	tests := []struct {
		name   string
		input  map[string]any
		text   string
		first  int
		last   int
		total  int // -1: null
		isPart bool
	}{
		{"whole small file, no footer", map[string]any{"file_path": "small.txt"}, catN(1, 5), 1, 5, 5, false},
		{"default window of 2000 lines with a footer",
			map[string]any{"file_path": "big.txt"},
			catN(1, 2000) + "\nShowing lines 1–2000 of 48,211; continue with offset=2001.\n", 1, 2000, 48211, true},
		{"offset and limit",
			map[string]any{"file_path": "big.txt", "offset": 2001, "limit": 3},
			catN(2001, 3) + "\nShowing lines 2001–2003 of 48,211; continue with offset=2004.\n", 2001, 2003, 48211, true},
		{"offset 0 is the start",
			map[string]any{"file_path": "small.txt", "offset": 0, "limit": 2},
			catN(1, 2) + "\nShowing lines 1–2 of 5; continue with offset=3.\n", 1, 2, 5, true},
		{"a window reaching the end says so",
			map[string]any{"file_path": "small.txt", "offset": 4},
			catN(4, 2) + "\nShowing lines 4–5 of 5 (the end of the file).\n", 4, 5, 5, false},
		{"a limit past the end stops at the end",
			map[string]any{"file_path": "big.txt", "offset": 48210, "limit": 100},
			catN(48210, 2) + "\nShowing lines 48210–48211 of 48,211 (the end of the file).\n", 48210, 48211, 48211, false},
		{"last line without a newline is a line", map[string]any{"file_path": "noeol.txt"}, "     1\ta\n     2\tb\n", 1, 2, 2, false},
		{"the unterminated last line alone", map[string]any{"file_path": "noeol.txt", "offset": 2}, "     2\tb\n\nShowing lines 2–2 of 2 (the end of the file).\n", 2, 2, 2, false},
		{"empty lines are lines", map[string]any{"file_path": "blank.txt"}, "     1\t\n     2\t\n", 1, 2, 2, false},
		{"absolute path", map[string]any{"file_path": filepath.Join(c.Cwd, "small.txt"), "limit": 1},
			catN(1, 1) + "\nShowing lines 1–1 of 5; continue with offset=2.\n", 1, 1, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Call("Read", tt.input)
			if !res.Ok {
				t.Fatalf("failed: %s", res.Message)
			}
			if res.Text != tt.text {
				t.Fatalf("text:\n%q\nwant:\n%q", tail(res.Text), tail(tt.text))
			}
			u := ui(t, res)
			if u.StartLine != tt.first || u.EndLine != tt.last || u.TotalLines == nil || *u.TotalLines != tt.total || u.TruncatedLines != 0 {
				t.Fatalf("ui = %s", res.UI)
			}
			if !filepath.IsAbs(u.Path) {
				t.Fatalf("ui path %q is not absolute", u.Path)
			}
		})
	}
}

// tail keeps a failure message short.
func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

func TestUIPayloadFieldNames(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "a.txt", []byte("x\n"))
	res := c.Call("Read", map[string]any{"file_path": "a.txt"})
	var m map[string]any
	if err := json.Unmarshal(res.UI, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"path", "start_line", "end_line", "total_lines", "truncated_lines"} {
		if _, ok := m[k]; !ok {
			t.Errorf("UI payload %s lacks %q", res.UI, k)
		}
	}
	if _, ok := m["image"]; ok {
		t.Errorf("a text read has an image in its UI payload: %s", res.UI)
	}
}

func TestLongLinesAreCut(t *testing.T) {
	c := serve(t)
	long := strings.Repeat("é", 2500) // 2 bytes each
	write(t, c.Cwd, "long.txt", []byte("short\n"+long+"\n"+strings.Repeat("x", 2000)+"\n"))
	res := c.Call("Read", map[string]any{"file_path": "long.txt"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	lines := strings.Split(res.Text, "\n")
	want2 := "     2\t" + strings.Repeat("é", 2000) + "… [line cut at 2,000 characters; it is 5,000 bytes long]"
	if lines[1] != want2 {
		t.Fatalf("line 2 = %q…", lines[1][:60])
	}
	if lines[2] != "     3\t"+strings.Repeat("x", 2000) {
		t.Fatal("a line of exactly 2000 characters was cut")
	}
	if !strings.Contains(res.Text, "\n1 line longer than 2,000 characters was cut where marked.\n") {
		t.Fatalf("no note on the cut line: %q", tail(res.Text))
	}
	if u := ui(t, res); u.TruncatedLines != 1 {
		t.Fatalf("truncated_lines = %d", u.TruncatedLines)
	}
}

func TestOutputCapStopsTheWindowAndSaysWhere(t *testing.T) {
	c := serve(t)
	// 300 lines of 2000 characters: 600 KB, over the 256 KiB cap.
	line := strings.Repeat("y", 2000) + "\n"
	write(t, c.Cwd, "wide.txt", []byte(strings.Repeat(line, 300)))
	res := c.Call("Read", map[string]any{"file_path": "wide.txt"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	u := ui(t, res)
	// Each shown line is 6+1+2000+1 bytes: 130 of them fit in 256 KiB.
	if u.EndLine != 130 || len(res.Text) > 256<<10+200 {
		t.Fatalf("end_line = %d, %d bytes", u.EndLine, len(res.Text))
	}
	want := "\nShowing lines 1–130 of 300 (the result stopped at 256 KiB of text, before `limit` lines); continue with offset=131.\n"
	if !strings.HasSuffix(res.Text, want) {
		t.Fatalf("footer: %q", tail(res.Text))
	}
	next := c.Call("Read", map[string]any{"file_path": "wide.txt", "offset": 131})
	if !strings.HasPrefix(next.Text, "   131\tyyy") {
		t.Fatalf("continuing at the offset given: %q", next.Text[:20])
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "latin1.txt", []byte("caf\xe9\nok\n\xff\xfe\xfd\n"))
	res := c.Call("Read", map[string]any{"file_path": "latin1.txt"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	want := "     1\tcaf\uFFFD\n     2\tok\n     3\t\uFFFD\uFFFD\uFFFD\n" +
		"\nBytes that are not valid UTF-8 are shown as U+FFFD (\uFFFD); the file may not be UTF-8 text.\n"
	if res.Text != want || !utf8.ValidString(res.Text) {
		t.Fatalf("text = %q", res.Text)
	}
}

func TestCRLFIsShownWithoutCR(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "dos.txt", []byte("one\r\ntwo\r\nlone\rcr\n"))
	write(t, c.Cwd, "unix.txt", []byte("one\ntwo\n"))
	res := c.Call("Read", map[string]any{"file_path": "dos.txt"})
	want := "     1\tone\n     2\ttwo\n     3\tlone\rcr\n\nThe file has CRLF (\\r\\n) line endings; the \\r is not shown.\n"
	if res.Text != want {
		t.Fatalf("text = %q", res.Text)
	}
	if res := c.Call("Read", map[string]any{"file_path": "unix.txt"}); strings.Contains(res.Text, "CRLF") {
		t.Fatalf("LF file reported as CRLF: %q", res.Text)
	}
}

func TestEmptyFile(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "empty.txt", nil)
	for _, in := range []map[string]any{
		{"file_path": "empty.txt"},
		{"file_path": "empty.txt", "offset": 10},
	} {
		res := c.Call("Read", in)
		if !res.Ok || res.Text != "empty.txt is empty (0 bytes)." {
			t.Fatalf("%v: ok=%v text=%q message=%q", in, res.Ok, res.Text, res.Message)
		}
		if u := ui(t, res); u.TotalLines == nil || *u.TotalLines != 0 || u.StartLine != 0 || u.EndLine != 0 {
			t.Fatalf("ui = %s", res.UI)
		}
	}
}

func TestOffsetPastTheEnd(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "five.txt", []byte(numbered(1, 5)))
	write(t, c.Cwd, "one.txt", []byte("only"))
	tests := []struct {
		file   string
		offset int
		want   string
	}{
		{"five.txt", 6, "`offset` 6 is past the end of five.txt, which has 5 lines.\nUse an offset from 1 to 5."},
		{"five.txt", 1_000_000, "`offset` 1000000 is past the end of five.txt, which has 5 lines.\nUse an offset from 1 to 5."},
		{"one.txt", 2, "`offset` 2 is past the end of one.txt, which has 1 line.\nUse an offset from 1 to 1."},
	}
	for _, tt := range tests {
		res := c.Call("Read", map[string]any{"file_path": tt.file, "offset": tt.offset})
		if res.Ok || res.Message != tt.want {
			t.Errorf("offset %d: ok=%v message=%q", tt.offset, res.Ok, res.Message)
		}
	}
}

func TestBadWindowIsRejected(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "a.txt", []byte("a\n"))
	tests := []struct {
		input any
		want  string
	}{
		{map[string]any{"file_path": "a.txt", "offset": -1}, "`offset` is -1, but lines are numbered from 1."},
		{map[string]any{"file_path": "a.txt", "limit": 0}, "`limit` is 0, but it must be at least 1."},
		{map[string]any{"file_path": "a.txt", "limit": -5}, "`limit` is -5, but it must be at least 1."},
		{map[string]any{"file_path": "  "}, "`file_path` is empty."},
		{`{"file_path":"a.txt","offset":"3"}`, "`offset` must be an integer, not string."},
		{`{"path":"a.txt"}`, "`path` is not a field of this tool."},
	}
	for _, tt := range tests {
		p := c.Prepare("Read", tt.input)
		if !strings.HasPrefix(p.Rejected, tt.want) {
			t.Errorf("%v: rejected = %q, want prefix %q", tt.input, p.Rejected, tt.want)
		}
		if res := c.Call("Read", tt.input); res.Ok || !strings.HasPrefix(res.Message, tt.want) {
			t.Errorf("%v: Call message = %q", tt.input, res.Message)
		}
	}
}

func TestDirectoryFails(t *testing.T) {
	c := serve(t)
	if err := os.MkdirAll(filepath.Join(c.Cwd, "src", "my dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"src", "src is a directory, not a file.\nRead reads one file at a time. List the directory with Bash `ls src`, or search the files in it with Grep (path \"src\")."},
		{"src/my dir", "src/my dir is a directory, not a file.\nRead reads one file at a time. List the directory with Bash `ls 'src/my dir'`, or search the files in it with Grep (path \"src/my dir\")."},
	}
	for _, tt := range tests {
		p := c.Prepare("Read", map[string]any{"file_path": tt.path})
		if p.Rejected != tt.want {
			t.Errorf("%s: rejected = %q", tt.path, p.Rejected)
		}
	}
}

func TestMissingFileSuggestsSimilarNames(t *testing.T) {
	c := serve(t)
	for _, name := range []string{"src/main.go", "src/main_test.go", "src/other.rs", "README.md", "docs/guide.md", "Makefile"} {
		write(t, c.Cwd, name, []byte("x\n"))
	}
	tests := []struct{ path, want string }{
		{"src/mian.go", "File does not exist: src/mian.go.\nDid you mean src/main.go? Call Read again with the right path."},
		{"src/main.rs", "File does not exist: src/main.rs.\nDid you mean src/main.go? Call Read again with the right path."},
		{"src/main", "File does not exist: src/main.\nDid you mean one of: src/main.go, src/main_test.go? Call Read again with the right path."},
		{"README", "File does not exist: README.\nDid you mean README.md? Call Read again with the right path."},
		{"makefile", "File does not exist: makefile.\nDid you mean Makefile? Call Read again with the right path."},
		{"scr/main.go", "File does not exist: scr/main.go. There is no directory scr.\nDid you mean src/main.go? Call Read again with the right path."},
		{"scr/nothing.go", "File does not exist: scr/nothing.go. There is no directory scr.\nCheck the path. List the directory with Bash `ls .`, or find a file by what it contains with Grep."},
		{"src/zzz.txt", "File does not exist: src/zzz.txt.\nCheck the path. List the directory with Bash `ls src`, or find a file by what it contains with Grep."},
		{"nope/deeper/x.go", "File does not exist: nope/deeper/x.go. There is no directory nope.\nCheck the path. List the directory with Bash `ls .`, or find a file by what it contains with Grep."},
		{"README.md/x", "File does not exist: README.md/x.\nREADME.md is a file, not a directory, so nothing is under it. Check the path."},
	}
	for _, tt := range tests {
		p := c.Prepare("Read", map[string]any{"file_path": tt.path})
		if p.Rejected != tt.want {
			t.Errorf("%s:\nrejected = %q\nwant       %q", tt.path, p.Rejected, tt.want)
		}
	}
}

func TestBrokenSymlink(t *testing.T) {
	c := serve(t)
	if err := os.Symlink("gone.txt", filepath.Join(c.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	p := c.Prepare("Read", map[string]any{"file_path": "link.txt"})
	if p.Rejected != "link.txt is a broken symlink: its target gone.txt does not exist.\nRead the file it was meant to point at." {
		t.Fatalf("rejected = %q", p.Rejected)
	}
}

func TestOutsideTheFence(t *testing.T) {
	c := serve(t)
	outside := t.TempDir()
	write(t, outside, "secret_key.pem", []byte("x\n"))
	write(t, outside, "notes.txt", []byte("outside\n"))
	// A symlink inside the workspace to a directory outside it is outside.
	if err := os.Symlink(outside, filepath.Join(c.Cwd, "out")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(outside, "secret_key.pen"), "out/secret_key.pen", filepath.Join(outside)} {
		// Before the permission chain has run, nothing about the path is
		// revealed: Prepare accepts, and declares the subject.
		p := c.Prepare("Read", map[string]any{"file_path": path})
		if p.Rejected != "" {
			t.Fatalf("%s: Prepare revealed %q before the permission chain", path, p.Rejected)
		}
	}
	// Once allowed, Call checks, but never lists the outside directory.
	res := c.Call("Read", map[string]any{"file_path": "out/secret_key.pen"})
	if res.Ok || strings.Contains(res.Message, "secret_key.pem") || !strings.HasPrefix(res.Message, "File does not exist: out/secret_key.pen.\nCheck the path.") {
		t.Fatalf("message = %q", res.Message)
	}
	res = c.Call("Read", map[string]any{"file_path": outside})
	if res.Ok || !strings.Contains(res.Message, "is a directory, not a file.") {
		t.Fatalf("message = %q", res.Message)
	}
	// The host sends what its chain allowed with the call, resolved.
	real, err := filepath.EvalSymlinks(filepath.Join(outside, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c.AllowedReads = []string{real}
	res = c.Call("Read", map[string]any{"file_path": filepath.Join(outside, "notes.txt")})
	if !res.Ok || res.Text != "     1\toutside\n" {
		t.Fatalf("reading an allowed file outside: %+v", res)
	}
	// A results directory is inside the fence; the harness sends none, so
	// a root stands in for it here.
	c.Roots = []string{c.Cwd, outside}
	if p := c.Prepare("Read", map[string]any{"file_path": filepath.Join(outside, "notes.tx")}); !strings.Contains(p.Rejected, "Did you mean") {
		t.Fatalf("inside a second root: %q", p.Rejected)
	}
}

func TestBinaryFileFails(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "app.bin", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...))
	write(t, c.Cwd, "utf16.txt", []byte("\xff\xfeh\x00i\x00"))
	write(t, c.Cwd, "nul-first.dat", []byte("\x00text after a NUL\n"))
	// A NUL past the first 8 KiB does not make a file binary.
	write(t, c.Cwd, "late-nul.txt", append([]byte(strings.Repeat("abc\n", 2500)), 0, '\n'))
	tests := []struct{ path, want string }{
		{"app.bin", "app.bin is a binary file (it has NUL bytes in its first 8 KiB), which Read cannot show as text.\nDo not read it as text. To inspect it, use Bash: `file app.bin` for its type, or `xxd app.bin | head -n 32` for its first bytes."},
		{"nul-first.dat", "nul-first.dat is a binary file (it has NUL bytes in its first 8 KiB), which Read cannot show as text.\nDo not read it as text. To inspect it, use Bash: `file nul-first.dat` for its type, or `xxd nul-first.dat | head -n 32` for its first bytes."},
		{"utf16.txt", "utf16.txt is UTF-16 text, which Read does not decode.\nConvert a copy with Bash: `iconv -f UTF-16 -t UTF-8 utf16.txt > /tmp/utf8.txt`, then Read /tmp/utf8.txt."},
	}
	for _, tt := range tests {
		res := c.Call("Read", map[string]any{"file_path": tt.path})
		if res.Ok || res.Message != tt.want {
			t.Errorf("%s: ok=%v message=%q", tt.path, res.Ok, res.Message)
		}
	}
	if res := c.Call("Read", map[string]any{"file_path": "late-nul.txt", "offset": 2501}); !res.Ok || !strings.HasPrefix(res.Text, "  2501\t\x00\n") {
		t.Fatalf("late NUL: ok=%v message=%q text=%q", res.Ok, res.Message, tail(res.Text))
	}
}

func tinyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestImages(t *testing.T) {
	c := serve(t)
	pngData := tinyPNG(t, 4, 3)
	write(t, c.Cwd, "logo.png", pngData)
	// Content decides, not the name.
	write(t, c.Cwd, "logo.dat", pngData)
	write(t, c.Cwd, "fake.png", []byte("not an image\n"))
	gif := []byte("GIF89a\x02\x00\x05\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x02\x00\x05\x00\x00\x02\x02D\x01\x00;")
	write(t, c.Cwd, "a.gif", gif)
	// A lossless WebP header: signature 0x2f, then 14-bit width-1 and height-1.
	webp := []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f")
	bits := uint32(9) | uint32(6)<<14 // 10×7
	webp = append(webp, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24), 0, 0, 0, 0, 0, 0, 0, 0)
	write(t, c.Cwd, "a.webp", webp)
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	write(t, c.Cwd, "broken.jpg", jpeg)

	tests := []struct {
		path, mediaType, note string
		data                  []byte
		w, h                  int
	}{
		{"logo.png", "image/png", fmt.Sprintf("logo.png (PNG image, 4×3 pixels, %d bytes):", len(pngData)), pngData, 4, 3},
		{"logo.dat", "image/png", fmt.Sprintf("logo.dat (PNG image, 4×3 pixels, %d bytes):", len(pngData)), pngData, 4, 3},
		{"a.gif", "image/gif", fmt.Sprintf("a.gif (GIF image, 2×5 pixels, %d bytes):", len(gif)), gif, 2, 5},
		{"a.webp", "image/webp", fmt.Sprintf("a.webp (WebP image, 10×7 pixels, %d bytes):", len(webp)), webp, 10, 7},
		{"broken.jpg", "image/jpeg", fmt.Sprintf("broken.jpg (JPEG image, %d bytes):", len(jpeg)), jpeg, 0, 0},
	}
	for _, tt := range tests {
		res := c.Call("Read", map[string]any{"file_path": tt.path})
		if !res.Ok {
			t.Fatalf("%s: %s", tt.path, res.Message)
		}
		if len(res.Blocks) != 2 || res.Blocks[0].Image || !res.Blocks[1].Image {
			t.Fatalf("%s: blocks = %+v", tt.path, res.Blocks)
		}
		if res.Text != tt.note {
			t.Errorf("%s: note = %q", tt.path, res.Text)
		}
		if res.Blocks[1].MediaType != tt.mediaType || !bytes.Equal(res.Blocks[1].Data, tt.data) {
			t.Errorf("%s: image block %s of %d bytes", tt.path, res.Blocks[1].MediaType, len(res.Blocks[1].Data))
		}
		u := ui(t, res)
		if u.Image == nil || u.Image.MediaType != tt.mediaType || u.Image.Bytes != len(tt.data) || u.Image.Width != tt.w || u.Image.Height != tt.h || u.TotalLines != nil {
			t.Errorf("%s: ui = %s", tt.path, res.UI)
		}
	}
	if res := c.Call("Read", map[string]any{"file_path": "fake.png"}); !res.Ok || res.Text != "     1\tnot an image\n" {
		t.Errorf("a text file named .png: %+v", res)
	}
}

func TestImageOverTheCapFails(t *testing.T) {
	c := serve(t)
	big := append(tinyPNG(t, 2, 2), make([]byte, 3_932_160)...)
	write(t, c.Cwd, "huge.png", big)
	res := c.Call("Read", map[string]any{"file_path": "huge.png"})
	want := "huge.png is a PNG image of 3.75 MiB; Read passes images of up to 3.75 MiB.\n" +
		"Make a smaller copy with Bash (for example ImageMagick: `convert huge.png -resize 50% /tmp/smaller.png`) and Read that."
	if res.Ok || res.Message != want {
		t.Fatalf("ok=%v message=%q", res.Ok, res.Message)
	}
	// Exactly at the cap passes.
	write(t, c.Cwd, "edge.png", big[:3_932_160])
	if res := c.Call("Read", map[string]any{"file_path": "edge.png"}); !res.Ok || len(res.Blocks[1].Data) != 3_932_160 || res.Chunks < 4 {
		t.Fatalf("at the cap: ok=%v message=%q chunks=%d", res.Ok, res.Message, res.Chunks)
	}
}

func TestNonRegularFilesFail(t *testing.T) {
	c := serve(t)
	fifo := filepath.Join(c.Cwd, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	want := "pipe is a named pipe, not a regular file.\nRead reads regular files only: reading a pipe or device can block or never end."
	if p := c.Prepare("Read", map[string]any{"file_path": "pipe"}); !strings.HasPrefix(p.Rejected, want) {
		t.Fatalf("rejected = %q", p.Rejected)
	}
	// Outside the fence the check happens in Call, and must not block.
	res := c.Call("Read", map[string]any{"file_path": "/dev/zero"})
	if res.Ok || !strings.HasPrefix(res.Message, "/dev/zero is a character device, not a regular file.") {
		t.Fatalf("message = %q", res.Message)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	c := serve(t)
	p := write(t, c.Cwd, "locked.txt", []byte("x\n"))
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	res := c.Call("Read", map[string]any{"file_path": "locked.txt"})
	if res.Ok || !strings.HasPrefix(res.Message, "Permission denied: locked.txt.") {
		t.Fatalf("message = %q", res.Message)
	}
}

func TestIOErrorFails(t *testing.T) {
	c := serve(t)
	// The chain would ask about a process's own files; bypass lets it be
	// read.
	c.Mode = "bypassPermissions"
	// A regular file, by stat, whose first read fails with EIO.
	res := c.Call("Read", map[string]any{"file_path": "/proc/self/mem"})
	if res.Ok || res.Message != "Could not read /proc/self/mem: input/output error.\nTry again once; if it fails again, ask the user about this file." {
		t.Fatalf("ok=%v message=%q", res.Ok, res.Message)
	}
}

func TestPrepareProperties(t *testing.T) {
	c := serve(t)
	write(t, c.Cwd, "src/main.go", []byte("package main\n"))
	tests := []struct {
		input      map[string]any
		describe   string
		classifier string
		subject    string
	}{
		{map[string]any{"file_path": "src/main.go"}, "Read src/main.go", "Read the file src/main.go", filepath.Join(c.Cwd, "src/main.go")},
		{map[string]any{"file_path": "./src/../src/main.go", "offset": 10, "limit": 5}, "Read ./src/../src/main.go (lines 10–14)", "Read the file ./src/../src/main.go", filepath.Join(c.Cwd, "src/main.go")},
		{map[string]any{"file_path": "/etc/hostname", "limit": 20}, "Read /etc/hostname (lines 1–20)", "Read the file /etc/hostname", "/etc/hostname"},
	}
	for _, tt := range tests {
		p := c.Prepare("Read", tt.input)
		if p.Rejected != "" {
			t.Fatalf("%v: rejected %q", tt.input, p.Rejected)
		}
		if !p.ReadOnly || !p.ConcurrencySafe || p.Permission != plugin.Passthrough {
			t.Errorf("%v: read_only=%v concurrency_safe=%v permission=%v", tt.input, p.ReadOnly, p.ConcurrencySafe, p.Permission)
		}
		if p.Describe != tt.describe || p.ClassifierInput != tt.classifier {
			t.Errorf("describe=%q classifier=%q", p.Describe, p.ClassifierInput)
		}
		want := []plugin.Subject{{Kind: plugin.PathSubject, Value: tt.subject, Access: plugin.Read}}
		if fmt.Sprint(p.Subjects) != fmt.Sprint(want) {
			t.Errorf("subjects = %+v, want %+v", p.Subjects, want)
		}
	}
}

func TestManifest(t *testing.T) {
	c := serve(t)
	m := c.Manifest()
	if len(m) != 1 || m[0].Name != "Read" {
		t.Fatalf("manifest = %v", m)
	}
	spec := m[0]
	if !spec.ResultBudget.Unlimited || spec.CascadesOnFailure {
		t.Errorf("budget=%v cascades=%v", spec.ResultBudget, spec.CascadesOnFailure)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(schema.Required) != "[file_path]" || schema.Additional == nil || *schema.Additional {
		t.Errorf("schema = %s", spec.InputSchema)
	}
	for _, f := range []string{"file_path", "offset", "limit"} {
		if !strings.Contains(string(schema.Properties[f]), "description") {
			t.Errorf("field %s has no description: %s", f, schema.Properties[f])
		}
	}
	for _, s := range []string{"NEVER", "Grep", "Bash", "`offset`", "`limit`", "absolute"} {
		if !strings.Contains(spec.Prompt, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
}
