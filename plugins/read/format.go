package read

import (
	"fmt"
	"strconv"
	"strings"
)

// footer is what follows the numbered lines: where the window sits in the
// file and how to go on, and what was altered on the way (cut lines,
// replaced bytes, CRLF endings). An incomplete result must say so in the
// content, or the model takes part of a file for the whole.
func footer(w window) string {
	var notes []string
	switch {
	case w.more:
		var b strings.Builder
		fmt.Fprintf(&b, "Showing lines %d–%d", w.first, w.last)
		if w.totalKnown {
			fmt.Fprintf(&b, " of %s", commas(int64(w.total)))
		}
		if w.capped {
			fmt.Fprintf(&b, " (the result stopped at %s of text, before `limit` lines)", humanBytes(maxOutputBytes))
		}
		if !w.totalKnown {
			b.WriteString("; more lines follow")
			if w.restBytes > 0 {
				fmt.Fprintf(&b, " (%s after line %d; the file is too large to count them all)", humanBytes(w.restBytes), w.last)
			}
		}
		fmt.Fprintf(&b, "; continue with offset=%d.", w.last+1)
		notes = append(notes, b.String())
	case w.first > 1:
		notes = append(notes, fmt.Sprintf("Showing lines %d–%d of %s (the end of the file).", w.first, w.last, commas(int64(w.total))))
	}
	if w.cut > 0 {
		notes = append(notes, fmt.Sprintf("%s longer than %s characters %s cut where marked.",
			plural(w.cut, "line", "lines"), commas(maxLineRunes), plural0(w.cut, "was", "were")))
	}
	if w.replaced {
		notes = append(notes, "Bytes that are not valid UTF-8 are shown as U+FFFD (\uFFFD); the file may not be UTF-8 text.")
	}
	if w.crlf {
		notes = append(notes, "The file has CRLF (\\r\\n) line endings; the \\r is not shown.")
	}
	if len(notes) == 0 {
		return ""
	}
	return "\n" + strings.Join(notes, "\n") + "\n"
}

// commas formats n with thousands separators: 48211 is "48,211".
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// humanBytes formats a size in binary units: "812 bytes", "12.4 MiB".
func humanBytes(n int64) string {
	if n < 1024 {
		return plural(int(n), "byte", "bytes")
	}
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + " " + units[i]
}

// plural is "1 line" or "3 lines", with separators.
func plural(n int, one, many string) string {
	return commas(int64(n)) + " " + plural0(n, one, many)
}

// plural0 is the word alone.
func plural0(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
