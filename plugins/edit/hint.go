package edit

import (
	"fmt"
	"strings"
)

// The hint for an old_string that is not found: the closest lines of the
// file, and a whitespace difference named as such. It only helps the
// model retry; whether an Edit applies is decided in match.go.

// near is the text of a file most like an old_string not found in it.
type near struct {
	first, last int    // 1-based lines
	text        string // the lines, numbered as by cat -n
	why         string // the only difference, when it is whitespace
}

// closestWork bounds the search for a near match: lines of the file times
// lines of old_string.
const closestWork = 4_000_000

// closest finds the lines of content most like old: a window of as many
// lines, scored line by line, that is at least 60% alike.
func closest(content, old string) (near, bool) {
	oldLines := splitLines(strings.Trim(old, "\r\n"))
	lines := splitLines(content)
	k := len(oldLines)
	if k == 0 || k > len(lines) || len(lines)*k > closestWork {
		return near{}, false
	}
	oldNorm, norm := normalize(oldLines), normalize(lines)
	best, bestScore := -1, 0.0
	for i := 0; i+k <= len(lines); i++ {
		score := 0.0
		for j := range k {
			score += lineSimilarity(oldNorm[j], norm[i+j])
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 || bestScore/float64(k) < 0.6 {
		return near{}, false
	}
	window := lines[best : best+k]
	var text strings.Builder
	for j, l := range window {
		fmt.Fprintf(&text, "%6d\t%s\n", best+j+1, cutLine(strings.TrimSuffix(l, "\r")))
	}
	return near{first: best + 1, last: best + k, text: text.String(), why: whitespaceDifference(oldLines, window)}, true
}

// whitespaceDifference names how old's lines differ from the file's when
// they differ in whitespace only, or returns "".
func whitespaceDifference(old, file []string) string {
	indent, trailing, inner, endings := false, false, false, false
	for i := range old {
		o, f := old[i], file[i]
		if strings.TrimSuffix(o, "\r") != o || strings.TrimSuffix(f, "\r") != f {
			if strings.TrimSuffix(o, "\r") == strings.TrimSuffix(f, "\r") && o != f {
				endings = true
				continue
			}
			o, f = strings.TrimSuffix(o, "\r"), strings.TrimSuffix(f, "\r")
		}
		if o == f {
			continue
		}
		if strings.Join(strings.Fields(o), " ") != strings.Join(strings.Fields(f), " ") {
			return ""
		}
		switch {
		case strings.TrimLeft(o, " \t") == strings.TrimLeft(f, " \t"):
			indent = true
		case strings.TrimRight(o, " \t") == strings.TrimRight(f, " \t"):
			trailing = true
		case strings.TrimSpace(o) == strings.TrimSpace(f):
			indent, trailing = true, true
		default:
			inner = true
		}
	}
	var what []string
	if indent {
		what = append(what, "indentation (tabs or spaces at the start of a line)")
	}
	if trailing {
		what = append(what, "whitespace at the end of a line")
	}
	if inner {
		what = append(what, "whitespace inside a line")
	}
	if endings {
		what = append(what, "line endings (\\r\\n or \\n)")
	}
	return strings.Join(what, " and ")
}

// normalize is each line with its runs of whitespace made one space and
// its ends trimmed, computed once per line rather than per comparison.
func normalize(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Join(strings.Fields(l), " ")
	}
	return out
}

// lineSimilarity is how alike two normalized lines are, from 0 to 1: 1
// when equal (the lines differ at most in whitespace), else the share of
// their common prefix and suffix. It is cheap, so that every window of a
// large file can be scored.
func lineSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	longest := max(len(a), len(b))
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(longest)
}

// splitLines splits s into lines without their \n (a \r stays).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// maxLineChars is where a shown line is cut, as Read cuts it.
const maxLineChars = 2000

func cutLine(l string) string {
	if len(l) <= maxLineChars {
		return l
	}
	cut := maxLineChars
	for cut > 0 && !isRuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + fmt.Sprintf(" […line truncated: %d chars]", len(l))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
