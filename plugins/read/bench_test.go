package read

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// benchFile writes a file of size bytes of numbered 60-byte lines and
// returns its line count.
func benchFile(b *testing.B, path string, size int64) int {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lines := int(size / 60)
	buf := make([]byte, 0, 64)
	for i := 1; i <= lines; i++ {
		buf = strconv.AppendInt(buf[:0], int64(10_000_000+i), 10)[1:]
		buf = append(buf, " the quick brown fox jumps over the lazy dog, again.\n"...)
		_, _ = w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return lines
}

// BenchmarkWindow reads a 2000-line window at the start, the middle and
// the end of a 256 MiB file (warm in the page cache), three ways:
//   - impl=riot: readWindow, as Call runs it;
//   - impl=scanner: a bufio.Scanner loop over every line, the usual
//     streaming implementation;
//   - impl=readall: os.ReadFile and bytes.Split, the naive one.
//
// Compare with: benchstat -col /impl
func BenchmarkWindow(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.log")
	lines := benchFile(b, path, 256<<20)
	positions := []struct {
		name   string
		offset int
	}{{"start", 1}, {"middle", lines / 2}, {"end", lines - 1999}}
	impls := []struct {
		name string
		read func(b *testing.B, offset int) int
	}{
		{"riot", func(b *testing.B, offset int) int {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			info, _ := f.Stat()
			w, err := readWindow(context.Background(), f, defaultSpec(offset, defaultLimit, info.Size()))
			if err != nil {
				b.Fatal(err)
			}
			return len(w.text)
		}},
		{"scanner", func(b *testing.B, offset int) int {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			sc := bufio.NewScanner(f)
			var out []byte
			for n := 1; sc.Scan(); n++ {
				if n >= offset && n < offset+defaultLimit {
					out = fmt.Appendf(out, "%6d\t%s\n", n, sc.Bytes())
				}
			}
			return len(out)
		}},
		{"readall", func(b *testing.B, offset int) int {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			all := bytes.Split(data, []byte("\n"))
			var out []byte
			for n := offset; n < offset+defaultLimit && n <= len(all); n++ {
				out = fmt.Appendf(out, "%6d\t%s\n", n, all[n-1])
			}
			return len(out)
		}},
	}
	for _, pos := range positions {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("pos=%s/impl=%s", pos.name, impl.name), func(b *testing.B) {
				b.SetBytes(int64(pos.offset+defaultLimit-1) * 60) // the bytes up to the end of the window
				b.ReportAllocs()
				for b.Loop() {
					if impl.read(b, pos.offset) == 0 {
						b.Fatal("empty window")
					}
				}
			})
		}
	}
}

// BenchmarkCall is one whole Read call through real go-plugin gRPC, of a
// 500-line source file and of a window in the middle of a 64 MiB log.
func BenchmarkCall(b *testing.B) {
	c := plugintest.Serve(b, []plugin.Handler{plugin.New[Input](Read{})})
	var src strings.Builder
	for i := range 500 {
		fmt.Fprintf(&src, "\tx%d := compute(%d, \"some text here\") // line %d\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(c.Cwd, "main.go"), []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	lines := benchFile(b, filepath.Join(c.Cwd, "app.log"), 64<<20)
	for _, tt := range []struct {
		name  string
		input map[string]any
	}{
		{"source-500-lines", map[string]any{"file_path": "main.go"}},
		{"log-64MiB-middle-2000-lines", map[string]any{"file_path": "app.log", "offset": lines / 2}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := c.Call("Read", tt.input); !res.Ok {
					b.Fatal(res.Message)
				}
			}
		})
	}
}
