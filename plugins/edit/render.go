package edit

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// UI is the payload of Edit and Write for a UI: what changed, as a
// structured diff.
type UI struct {
	Path string `json:"path"`
	// Created: Write made a new file.
	Created bool `json:"created,omitempty"`
	// Replacements is how many occurrences Edit replaced.
	Replacements int    `json:"replacements,omitempty"`
	Hunks        []Hunk `json:"hunks"`
	// Truncated: hunks past maxUILines lines were left out.
	Truncated bool `json:"truncated,omitempty"`
}

// Hunk is one hunk of a unified diff: the lines it spans in the old file
// and in the new, 1-based, and its lines.
type Hunk struct {
	OldStart int        `json:"old_start"`
	OldLines int        `json:"old_lines"`
	NewStart int        `json:"new_start"`
	NewLines int        `json:"new_lines"`
	Lines    []DiffLine `json:"lines"`
}

// DiffLine is one line of a hunk: "context", "delete" or "insert", and its
// text without the line ending.
type DiffLine struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// diffContext is the context lines around each hunk, and around the
// change in the snippet the model sees.
const diffContext = 3

// maxUILines bounds a diff's lines in the payload.
const maxUILines = 5000

// diffHunks are the hunks turning old into new through edits, which are
// the byte ranges of old that changed with their replacements.
func diffHunks(old string, edits []udiff.Edit) ([]Hunk, bool) {
	u, err := udiff.ToUnifiedDiff("a", "b", old, edits, diffContext)
	if err != nil {
		return nil, false
	}
	var out []Hunk
	total := 0
	for _, h := range u.Hunks {
		hk := Hunk{OldStart: h.FromLine, NewStart: h.ToLine}
		for _, l := range h.Lines {
			kind := "context"
			switch l.Kind {
			case udiff.Delete:
				kind = "delete"
				hk.OldLines++
			case udiff.Insert:
				kind = "insert"
				hk.NewLines++
			default:
				hk.OldLines++
				hk.NewLines++
			}
			if total < maxUILines {
				hk.Lines = append(hk.Lines, DiffLine{Kind: kind, Text: strings.TrimRight(l.Content, "\r\n")})
			}
			total++
		}
		out = append(out, hk)
	}
	return out, total > maxUILines
}

// maxSnippetHunks and maxSnippetLines bound the snippet the model sees.
const (
	maxSnippetHunks = 5
	maxSnippetLines = 80
)

// snippet shows the new file's lines around each hunk, numbered as by
// `cat -n`, so the model sees the change in place without a new Read.
func snippet(content string, hunks []Hunk) string {
	lines := splitLines(content)
	var b strings.Builder
	shown := 0
	for i, h := range hunks {
		if i == maxSnippetHunks || shown >= maxSnippetLines {
			fmt.Fprintf(&b, "… and %d more changed places, not shown.\n", len(hunks)-i)
			break
		}
		if i > 0 {
			b.WriteString("…\n")
		}
		first := max(h.NewStart, 1)
		last := min(h.NewStart+h.NewLines-1, len(lines))
		for n := first; n <= last && shown < maxSnippetLines; n++ {
			fmt.Fprintf(&b, "%6d\t%s\n", n, cutLine(strings.TrimSuffix(lines[n-1], "\r")))
			shown++
		}
	}
	return b.String()
}
