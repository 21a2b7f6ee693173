package diagnostics

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// maxShown caps the diagnostics in the model's text; the UI payload
	// has them all. Errors sort first, so the cap drops warnings first.
	maxShown = 200
	// maxMessageChars caps one diagnostic's message in the text.
	maxMessageChars = 1000
	// maxOutputLines is how much of a failed checker's output the model gets.
	maxOutputLines = 20
	maxOutputLine  = 300
)

// render is the model's text for a run that reported problems or none: a
// summary line first, then any notes on how the result is incomplete, then
// one line per diagnostic.
func render(p *plan, ds []Diagnostic, notes []string) string {
	var b strings.Builder
	label := checkers[p.Checker].label
	if len(ds) == 0 {
		fmt.Fprintf(&b, "%s%s: no problems found\n", p.Display, p.inDir())
		for _, n := range notes {
			b.WriteString("Note: " + n + "\n")
		}
		return b.String()
	}
	c := tally(ds)
	fmt.Fprintf(&b, "%s: %s", label, countPhrase(c))
	if c.Files > 0 {
		fmt.Fprintf(&b, " in %d %s", c.Files, plural(c.Files, "file", "files"))
	}
	fmt.Fprintf(&b, " (%s)\n", p.Scope)
	if len(ds) > maxShown {
		fmt.Fprintf(&b, "Showing the first %d of %d diagnostics, errors first; %d more are not shown. Fix these, or pass a narrower `path`, to see the rest.\n", maxShown, len(ds), len(ds)-maxShown)
		ds = ds[:maxShown]
	}
	for _, n := range notes {
		b.WriteString("Note: " + n + "\n")
	}
	for _, d := range ds {
		b.WriteString(formatDiagnostic(d))
		b.WriteByte('\n')
	}
	return b.String()
}

func countPhrase(c counts) string {
	var parts []string
	if c.Errors > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", c.Errors, plural(c.Errors, "error", "errors")))
	}
	if c.Warnings > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", c.Warnings, plural(c.Warnings, "warning", "warnings")))
	}
	if c.Infos > 0 {
		parts = append(parts, fmt.Sprintf("%d info", c.Infos))
	}
	return strings.Join(parts, ", ")
}

// formatDiagnostic is one line: "path:line:col: severity: message [code]",
// shortened where the checker gave no column, line or file.
func formatDiagnostic(d Diagnostic) string {
	var b strings.Builder
	if d.File != "" {
		b.WriteString(d.File)
		if d.Line > 0 {
			b.WriteString(":" + strconv.Itoa(d.Line))
			if d.Column > 0 {
				b.WriteString(":" + strconv.Itoa(d.Column))
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(d.Severity + ": " + oneLine(d.Message))
	if d.Code != "" {
		b.WriteString(" [" + d.Code + "]")
	}
	return b.String()
}

// oneLine folds a multi-line message (a tsc message chain, a go
// continuation) onto one line, and caps its length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncate(s, maxMessageChars)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// excerpt is the first maxOutputLines lines of a stream, labelled, for a
// Failed message: the checker's own words about why it failed.
func excerpt(label string, data []byte) string {
	text := strings.TrimRight(strings.ToValidUTF8(string(data), "\uFFFD"), "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	var b strings.Builder
	if len(lines) > maxOutputLines {
		fmt.Fprintf(&b, "%s (first %d of %d lines):\n", label, maxOutputLines, len(lines))
		lines = lines[:maxOutputLines]
	} else {
		fmt.Fprintf(&b, "%s:\n", label)
	}
	for _, l := range lines {
		b.WriteString("  " + truncate(strings.TrimRight(l, "\r"), maxOutputLine) + "\n")
	}
	return b.String()
}

// inDir is " in DIR" when the command ran somewhere other than the
// workspace root, for lines that show the command.
func (p *plan) inDir() string {
	if p.DirShown == "." {
		return ""
	}
	return " in " + p.DirShown
}
