package diagnostics

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// Severities, most severe first. Every checker's levels map onto these.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Diagnostic is one problem a checker reported, in the one shape every
// checker's output is parsed into. Line and column are 1-based; 0 means the
// checker gave none. File is relative to the workspace root when it lies
// under it, absolute otherwise, and "" for a problem with no location.
type Diagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	// Source is what produced it: "go vet" for an analyzer, "go" for a
	// load, build or type error, "rustc", "tsc", "ruff" or "pyright".
	Source string `json:"source"`
}

func severityRank(s string) int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// normalizeSeverity maps a checker's level onto the three severities. An
// unknown level counts as an error: overstating a problem is the safe side.
func normalizeSeverity(level string) string {
	switch strings.ToLower(level) {
	case "warning", "warn":
		return SeverityWarning
	case "info", "information", "note", "help", "message", "hint":
		return SeverityInfo
	default:
		return SeverityError
	}
}

// sortDiagnostics orders errors before warnings before info, and within a
// severity groups by file, then position. Problems with no file come first
// in their severity: they are usually why nothing else could be checked.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// dedupe drops exact repeats, which go vet prints when two patterns reach
// the same broken package. ds must be sorted.
func dedupe(ds []Diagnostic) []Diagnostic {
	return slices.CompactFunc(ds, func(a, b Diagnostic) bool { return a == b })
}

// relativize makes every file relative to the workspace root cwd when it
// lies under it, resolving relative paths against base (the directory the
// checker ran in, or where its paths are rooted) first.
func relativize(ds []Diagnostic, base, cwd string) {
	for i := range ds {
		ds[i].File = relPath(ds[i].File, base, cwd)
	}
}

func relPath(file, base, cwd string) string {
	if file == "" {
		return ""
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(base, file)
	}
	file = filepath.Clean(file)
	if cwd == "" {
		return file
	}
	rel, err := filepath.Rel(cwd, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return rel
}

// counts is the tally for the summary line.
type counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Files    int `json:"files"`
}

func tally(ds []Diagnostic) counts {
	var c counts
	files := map[string]bool{}
	for _, d := range ds {
		switch d.Severity {
		case SeverityError:
			c.Errors++
		case SeverityWarning:
			c.Warnings++
		default:
			c.Infos++
		}
		if d.File != "" {
			files[d.File] = true
		}
	}
	c.Files = len(files)
	return c
}
