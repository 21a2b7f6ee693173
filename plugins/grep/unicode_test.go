package grep

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// unicodeLines are one line per file, so that the files rg and Grep find
// tell exactly which lines each matches.
var unicodeLines = []string{
	"Grüße TOKEN", "Grosse TOKEN", "naïve", "na ive", "na", "ñandú na", "una", "ナna", "Ⓐna", "na\u0301",
	"٣٤ arabic digits", "12 ascii digits", "x\u00a0y nbsp", "x\u3000y ideographic", "x y", "x\u2028y",
	"Straße", "ΚΑΛΗΜΕΡΑ καλημέρα", "Привет мир", "emoji 🎉 party", "a_b", "a\u200db joiner", "e\u0301t\u00e9",
	"tab\there", "Ⅻ roman", "²³ superscript",
}

// TestUnicodeClassesMatchRipgrep: \w, \d, \s and \b, with their negations
// and inside classes, mean what they mean to rg, checked against rg on a
// tree of Unicode lines.
func TestUnicodeClassesMatchRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg (ripgrep) is not installed, so there is nothing to compare with; install ripgrep to run this test")
	}
	dir := t.TempDir()
	var files []fixtureFile
	for i, l := range unicodeLines {
		files = append(files, fixtureFile{path: fmt.Sprintf("l%02d.txt", i), content: l + "\n"})
	}
	writeFixture(t, dir, files)
	var cases []rgCase
	for _, p := range []string{
		`Gr\w+e TOKEN`, `\bna\b`, `\bna`, `na\b`, `\Bna`, `na\B`, `\d{2}`, `\D\d`, `x\sy`, `x\Sy`, `\S+ü`, `\W{2}`,
		`[\w]+é`, `[^\s]+y`, `[\w-]+ TOKEN`, `[\W\d]{3}`, `^\w+$`, `\w\b\W`, `\b\w{5}\b`, `\bΚΑΛΗΜΕΡΑ\b`,
		`(?i)grüsse|\bпривет\b`, `[[:alpha:]]+ü`, `\p{Greek}+\s`, `\w\z`, `\A\w{2} `, `a\wb`, `\s\S\s`, `\b..\b`,
	} {
		cases = append(cases, rgCase{pattern: p})
	}
	compareWithRg(t, rg, dir, nil, cases)
}

// TestUnicodeNegatedClassRejected: [^\W…] has no RE2 form; Grep says so
// and what to write, rather than searching with another meaning.
func TestUnicodeNegatedClassRejected(t *testing.T) {
	c := serve(t, nil)
	p := c.Prepare("Grep", map[string]any{"pattern": `[^\W_]+`})
	if !strings.Contains(p.Rejected, `\W`) || !strings.Contains(p.Rejected, "Unicode") {
		t.Fatalf("rejected = %q", p.Rejected)
	}
	if got := slices.Index(unicodeLines, "na"); got < 0 {
		t.Fatal("fixture changed")
	}
}
