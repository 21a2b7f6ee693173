package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
)

// scanMemory searches data as the content of one file found by a walk,
// in one region, and returns the matching lines and the rendered output.
func scanMemory(o Options, data []byte) (int, string) {
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	e := &engine{o: o, ctx: context.Background(), col: newCollector(o)}
	w := e.newWorker()
	fs := &fileState{display: "f", lineNo: 1}
	w.em.reset("f")
	w.region(data, 0, len(data), fs)
	return fs.matches, string(w.em.out)
}

// corpus is text that exercises the prefilter: literals in the middle of
// lines, case variants (the Kelvin sign and the long s among them),
// invalid UTF-8, U+FFFD, CRLF, empty and long lines.
var corpus = strings.Join([]string{
	"package http",
	"",
	"func NewServer(addr string) *Server {",
	"\treturn &Server{Addr: addr} // new server",
	"type RoundTripper interface { RoundTrip(*Request) (*Response, error) }",
	"var DefaultTransport RoundTripper = &Transport{}",
	"// HTTPTransport is not [A-Z][a-z]+Transport: two capitals.",
	"context deadline exceeded",
	"Timeout Exceeded while waiting",
	"TIMEOUT EXCEEDED",
	"timeouts exceeded", // not "timeout exceeded"
	"the Kelvin sign: \u212aelvin and KELVIN and kelvin",
	"the long s: \u017ftatus and STATUS and status",
	"invalid \xff\xfe bytes then foo",
	"replacement \uFFFD char",
	"crlf line with bar\r",
	"tabs\tand\tfoo\tbar",
	"colour and color and COLOR",
	"TODO: fix FIXME later",
	"a1b2c3 123-4567 (555) 123-4567",
	"only z9 here",
	"import \"fmt\"",
	"   indented import",
	"end$ of line",
	strings.Repeat("long line x", 100) + " needle",
	"ǅ title case Ǆ Ǆ ǆ",
	"straße STRASSE Straße",
	"",
	"last line without newline",
}, "\n")

var prefilterPatterns = []string{
	// literals, plain and in the middle
	`func NewServer`, `[A-Z][a-z]+Transport\b`, `\w+Error`, `RoundTrip\(`, `Default\w+`,
	// no literal at all
	`\w+`, `^$`, `^\s+\w`, `[0-9]{3}-[0-9]{4}`, `.`, `x*`, `\bfoo\b`,
	// alternations
	`TODO|FIXME`, `(deadline|timeout) exceeded`, `colou?r`, `foo|bar`, `(a|b|c)\d`, `[xyz]9`,
	// case-insensitive, with letters that fold outside ASCII
	`(?i)(deadline|timeout) exceeded`, `(?i)kelvin`, `(?i)status`, `(?i)k`, `(?i)straße`, `(?i)ǆ`, `(?i)needle$`,
	// anchors and boundaries around literals
	`^import`, `import$`, `^\s+import`, `line$`, `\bline\b`, `bar\r?$`,
	// odd bytes
	"\uFFFD", `\xff`, `[^a-z]+`, `\pL+`,
}

// writeFile writes a file under dir, making its directories.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustOverride(t *testing.T, glob string) *ignore.Override {
	t.Helper()
	o, err := ignore.CompileOverride(glob)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func goType(t *testing.T) ignore.TypeFilter {
	t.Helper()
	f, ok := ignore.LoadTypes().Filter("go")
	if !ok {
		t.Fatal("no go type")
	}
	return f
}
