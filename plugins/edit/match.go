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
	m := match{old: old, new: new, at: occurrences(content, old)}
	if len(m.at) == 0 && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		o, n := toCRLF(old), toCRLF(new)
		m = match{old: o, new: n, at: occurrences(content, o), crlf: true}
	}
	return m
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
