package edit

import (
	"fmt"
	"strings"
)

// match is where old_string occurs in a file's content and what replaces
// it: old and new as given, or converted to the file's CRLF line endings.
type match struct {
	old, new string
	// at are the byte offsets of the non-overlapping occurrences, left to
	// right, as strings.Replace finds them.
	at []int
	// crlf: old and new were converted to CRLF to match.
	crlf bool
}

// find locates old in content. Text is matched exactly; only when that
// fails and the file has CRLF line endings that old lacks (Read shows
// lines without their \r) are old and new matched with CRLF line endings.
func find(content, old, new string) match {
	if at := occurrences(content, old); len(at) > 0 {
		return match{old: old, new: new, at: at}
	}
	if strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		o, n := toCRLF(old), toCRLF(new)
		if at := occurrences(content, o); len(at) > 0 {
			return match{old: o, new: n, at: at, crlf: true}
		}
	}
	return match{old: old, new: new}
}

// occurrences are the offsets of old in s, non-overlapping, left to right.
func occurrences(s, old string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(s[i:], old)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(old)
	}
}

// toCRLF ends every line of s with \r\n.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// apply replaces the first occurrence of m, or every one.
func (m match) apply(content string, all bool) string {
	n := 1
	if all {
		n = -1
	}
	return strings.Replace(content, m.old, m.new, n)
}

// edits are m's replacements as byte ranges of content, for the diff.
func (m match) ranges(all bool) [][2]int {
	at := m.at
	if !all {
		at = at[:1]
	}
	out := make([][2]int, len(at))
	for i, a := range at {
		out[i] = [2]int{a, a + len(m.old)}
	}
	return out
}

// maxListedLines is how many line numbers a message lists.
const maxListedLines = 20

// multipleMessage refuses an old_string found more than once without
// replace_all, with where.
func multipleMessage(shown, content string, at []int) string {
	lines := make([]string, 0, min(len(at), maxListedLines))
	for _, a := range at[:min(len(at), maxListedLines)] {
		lines = append(lines, fmt.Sprint(lineOf(content, a)))
	}
	where := strings.Join(lines, ", ")
	if len(at) > maxListedLines {
		where += fmt.Sprintf(" and %d more", len(at)-maxListedLines)
	}
	return fmt.Sprintf("old_string occurs %d times in %s (at lines %s), and Edit changes exactly one unless replace_all is set.\nAdd surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to change every occurrence.", len(at), shown, where)
}

// notFoundMessage refuses an old_string that is not in the file, showing
// the closest text when some is near.
func notFoundMessage(shown, content, old string) string {
	msg := fmt.Sprintf("old_string was not found in %s.", shown)
	near, ok := closest(content, old)
	if !ok {
		return msg + "\nRead the part of the file you mean to change and copy old_string from it exactly, whitespace included, without the line-number prefix."
	}
	var b strings.Builder
	b.WriteString(msg)
	if near.why != "" {
		fmt.Fprintf(&b, " Lines %d–%d match it except for %s:\n", near.first, near.last, near.why)
	} else {
		fmt.Fprintf(&b, " The closest text is at lines %d–%d:\n", near.first, near.last)
	}
	b.WriteString(near.text)
	b.WriteString("Copy old_string from these lines exactly, as they are in the file (without the line-number prefix), or Read the file again if it is not what you meant.")
	return b.String()
}

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
