package grep

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin/plugintest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCases cover each mode and option over the fixture tree. The
// golden files show the model content, then the UI payload.
var goldenCases = []struct{ name, input string }{
	// Modes. files_with_matches lists newest first; ignored, hidden,
	// binary and symlinked files are absent.
	{"files_default", `{"pattern":"hello"}`},
	{"files_ignore_case", `{"pattern":"hello","-i":true}`},
	{"content_default", `{"pattern":"hello","output_mode":"content","path":"src"}`},
	{"content_no_line_numbers", `{"pattern":"hello","output_mode":"content","-n":false,"path":"src"}`},
	{"content_context", `{"pattern":"hello","output_mode":"content","-C":1,"path":"docs"}`},
	{"content_after_before", `{"pattern":"Step t","output_mode":"content","-A":1,"-B":2,"path":"docs/guide.md"}`},
	{"content_context_files", `{"pattern":"hello\\(","output_mode":"content","-A":1}`},
	{"count", `{"pattern":"hello","output_mode":"count","-i":true}`},
	// Filters. A glob, like rg's --glob, beats ignore and hidden rules
	// for the files it selects; a type beats only the hidden rule.
	{"glob_go", `{"pattern":"hello","glob":"*.go"}`},
	{"glob_braces", `{"pattern":"hello","glob":"**/*.{ts,py}"}`},
	{"glob_anchored", `{"pattern":"hello","glob":"src/*.ts"}`},
	{"glob_exclude", `{"pattern":"hello","glob":"!*.md"}`},
	{"type_ts", `{"pattern":"hello","type":"ts"}`},
	{"type_go", `{"pattern":"hello","type":"go"}`},
	// Explicit paths: searched even if ignored or binary.
	{"path_subdir", `{"pattern":"hello","path":"src/lib"}`},
	{"path_ignored_file", `{"pattern":"hello","path":"debug.log","output_mode":"content"}`},
	{"path_binary_file_content", `{"pattern":"hello","path":"bin/blob.bin","output_mode":"content"}`},
	{"path_binary_file_files", `{"pattern":"hello","path":"bin/blob.bin"}`},
	{"path_outside_cwd", `{"pattern":"hello","path":"../elsewhere"}`},
	// Multiline.
	{"multiline", `{"pattern":"start.*\\n.*middle","multiline":true,"output_mode":"content"}`},
	{"multiline_dotall", `{"pattern":"start.*end","multiline":true,"output_mode":"content"}`},
	{"multiline_count", `{"pattern":"block\\nmiddle","multiline":true,"output_mode":"count"}`},
	// Line text: CRLF dropped, long lines cut.
	{"crlf_and_long_line", `{"pattern":"hello from a CRLF|^hello 0123","output_mode":"content"}`},
	// Truncation and paging.
	{"truncated_content_default", `{"pattern":"item","output_mode":"content","path":"many.txt"}`},
	{"truncated_files_head_limit", `{"pattern":"hello","head_limit":3}`},
	{"truncated_count", `{"pattern":"hello","output_mode":"count","head_limit":2}`},
	{"truncated_context", `{"pattern":"Step","output_mode":"content","-C":1,"head_limit":4,"path":"docs"}`},
	{"offset_page", `{"pattern":"item","output_mode":"content","path":"many.txt","offset":295,"head_limit":3}`},
	{"offset_last_page", `{"pattern":"item","output_mode":"content","path":"many.txt","offset":298}`},
	{"offset_past_end", `{"pattern":"hello","offset":100}`},
	{"head_limit_zero", `{"pattern":"item","head_limit":0,"output_mode":"count"}`},
	// No matches: what was searched and what was not.
	{"no_match", `{"pattern":"no such text"}`},
	{"no_match_filtered", `{"pattern":"no such text","glob":"*.go","-i":true}`},
	{"no_match_file", `{"pattern":"no such text","path":"main.go"}`},
}

func TestGolden(t *testing.T) {
	repo := fixtureRepo(t)
	elsewhere := filepath.Join(filepath.Dir(repo), "elsewhere")
	writeFixture(t, elsewhere, []fixtureFile{{path: "notes.txt", content: "hello from outside the working directory\n"}})
	c := serve(t, nil, plugintest.WithClock(plugintest.NewFixedClock(time.Unix(0, 0))))
	c.Cwd = repo
	c.Roots = []string{filepath.Dir(repo)}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			if p := c.Prepare("Grep", tc.input); p.Rejected != "" {
				t.Fatalf("rejected: %s", p.Rejected)
			}
			res := c.Call("Grep", tc.input)
			if !res.Ok {
				t.Fatalf("failed: %s", res.Message)
			}
			got := "input: " + tc.input + "\n\n" + res.Text + "\n\nui: " + string(res.UI) + "\n"
			got = strings.ReplaceAll(got, filepath.Dir(repo), "$TMP")
			path := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (rerun with -update and review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

// TestOutputByteCap: with no head limit, what a search keeps in memory
// still stops at its byte cap (16 MiB by default, 200 bytes here), and
// the output says so, and that offset cannot reach past it.
func TestOutputByteCap(t *testing.T) {
	repo := fixtureRepo(t)
	g := testGrep(nil)
	g.maxOutputBytes = 200
	c := serve(t, g)
	c.Cwd = repo
	res := c.Call("Grep", `{"pattern":"item","path":"many.txt","output_mode":"content","head_limit":0}`)
	if !res.Ok {
		t.Fatal(res.Message)
	}
	lines := strings.Split(res.Text, "\n")
	if !strings.HasPrefix(lines[0], "many.txt:1:item") || len(lines) > 14 {
		t.Errorf("output under a 200-byte cap has %d lines:\n%s", len(lines), res.Text)
	}
	want := "Output stopped after 8 lines: a search keeps at most 200 bytes of output counted from its first line, and the search found 300 lines (300 matching). Narrow the pattern or path; offset cannot page past this."
	if !strings.HasSuffix(res.Text, want) {
		t.Errorf("the cap is not reported; got:\n%s\nwant it to end with:\n%s", res.Text, want)
	}
	if !uiOf(t, res.UI).Truncated {
		t.Error("UI truncated = false")
	}
}
