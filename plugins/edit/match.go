package edit

import (
	"fmt"
	"slices"
	"strings"
)

// match is where old_string occurs in a file's content and what replaces
// each occurrence.
type match struct {
	// occ are the non-overlapping occurrences, left to right, as
	// strings.Replace finds them.
	occ []occurrence
	// crlf, lf: old_string's newlines were matched against the file's own
	// line endings (Read shows no \r), and these were found: \r\n, \n,
	// or both in a file that mixes them.
	crlf, lf bool
}

// occurrence is one place old_string matched: the bytes [start, end) of
// the content, and the text that replaces them.
type occurrence struct {
	start, end int
	new        string
}

// find locates old in content. Text is matched exactly, except where the
// file has \r\n line endings and old_string, multi-line, has none: Read
// shows lines without their \r, so each \n of old_string then matches the
// line ending the file has there, \r\n or \n, line by line. Matching so
// even when an exact match exists keeps it unambiguous: in a file with
// both "a\nb" and "a\r\nb", which Read shows alike, old_string "a\nb"
// occurs twice.
func find(content, old, new string) match {
	if !strings.Contains(content, "\r\n") || !strings.Contains(old, "\n") || strings.Contains(old, "\r") {
		var m match
		for _, a := range occurrences(content, old) {
			m.occ = append(m.occ, occurrence{start: a, end: a + len(old), new: new})
		}
		return m
	}
	return findByLines(content, old, new)
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

// findByLines matches old, whose lines contain no \r, against content
// with each of old's \n standing for \n or \r\n: it finds old in the
// content with every \r\n made \n, which is how Read shows it, and maps
// each occurrence back. old holds no \r, so it matches across no \r
// other than a line end's. Each occurrence's new text gets the endings of
// the lines it replaces (see withEndings).
func findByLines(content, old, new string) match {
	lf := strings.ReplaceAll(content, "\r\n", "\n")
	// crlf are the offsets in lf of the \n that end their line with \r\n
	// in content, ascending.
	var crlf []int
	for off := 0; ; {
		j := strings.Index(content[off:], "\r\n")
		if j < 0 {
			break
		}
		crlf = append(crlf, off+j-len(crlf))
		off += j + 2
	}
	// inContent is the offset in content of the offset n of lf: n plus the
	// \r dropped before it.
	inContent := func(n int) int {
		before, _ := slices.BinarySearch(crlf, n)
		return n + before
	}
	var joints []int // the offsets of old's \n
	for i, c := range []byte(old) {
		if c == '\n' {
			joints = append(joints, i)
		}
	}
	oldLines := strings.Split(old, "\n")
	newLines := strings.Split(strings.ReplaceAll(new, "\r\n", "\n"), "\n")
	var m match
	for _, at := range occurrences(lf, old) {
		ends := make([]string, len(joints))
		for j, off := range joints {
			ends[j] = "\n"
			if _, found := slices.BinarySearch(crlf, at+off); found {
				ends[j] = "\r\n"
			}
			m.crlf = m.crlf || ends[j] == "\r\n"
			m.lf = m.lf || ends[j] == "\n"
		}
		m.occ = append(m.occ, occurrence{start: inContent(at), end: inContent(at + len(old)), new: withEndings(oldLines, newLines, ends)})
	}
	return m
}

// withEndings joins newLines with line endings taken from the replaced
// lines: the lines new_string keeps unchanged at its end keep their own
// endings, and every other line takes the ending of the line of
// old_string at its place (its first, second… line), or of old_string's
// last ended line past those. So the lines kept at the start keep theirs
// too. new_string's text is kept byte for byte otherwise.
func withEndings(oldLines, newLines, ends []string) string {
	k, n := len(oldLines)-1, len(newLines)-1 // the last line of each
	// The lines kept at the end: the last suffix lines of both.
	suffix := 0
	for suffix <= k && suffix <= n && oldLines[k-suffix] == newLines[n-suffix] {
		suffix++
	}
	var b strings.Builder
	for j, l := range newLines {
		b.WriteString(l)
		switch {
		case j == n: // the last line's ending is outside the match
		case j > n-suffix:
			b.WriteString(ends[j-n+k])
		default:
			b.WriteString(ends[min(j, k-1)])
		}
	}
	return b.String()
}

// apply replaces the first occurrence of m, or every one.
func (m match) apply(content string, all bool) string {
	occ := m.occ
	if !all {
		occ = occ[:1]
	}
	var b strings.Builder
	prev := 0
	for _, o := range occ {
		b.WriteString(content[prev:o.start])
		b.WriteString(o.new)
		prev = o.end
	}
	b.WriteString(content[prev:])
	return b.String()
}

// used are the occurrences an Edit replaces: the first, or every one.
func (m match) used(all bool) []occurrence {
	if all {
		return m.occ
	}
	return m.occ[:1]
}

// starts are the offsets of the occurrences.
func (m match) starts() []int {
	at := make([]int, len(m.occ))
	for i, o := range m.occ {
		at[i] = o.start
	}
	return at
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
