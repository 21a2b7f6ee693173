package diagnostics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// cargo check --message-format=json writes one JSON object per line to
// stdout: "compiler-message" carries a rustc diagnostic, "compiler-artifact"
// marks a crate checked, "build-finished" ends the run. Cargo's own errors
// (a bad manifest, a build script that panicked) are plain text on stderr.

type cargoLine struct {
	Reason       string     `json:"reason"`
	PackageID    string     `json:"package_id"`
	ManifestPath string     `json:"manifest_path"`
	Message      *rustcDiag `json:"message"`
}

type rustcDiag struct {
	Message string `json:"message"`
	Code    *struct {
		Code string `json:"code"`
	} `json:"code"`
	Level string      `json:"level"`
	Spans []rustcSpan `json:"spans"`
}

type rustcSpan struct {
	FileName    string  `json:"file_name"`
	LineStart   int     `json:"line_start"`
	LineEnd     int     `json:"line_end"`
	ColumnStart int     `json:"column_start"`
	ColumnEnd   int     `json:"column_end"`
	IsPrimary   bool    `json:"is_primary"`
	Label       *string `json:"label"`
	Expansion   *struct {
		Span rustcSpan `json:"span"`
	} `json:"expansion"`
}

// rustcTrailerRe matches rustc's closing tallies, which are not problems.
var rustcTrailerRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(aborting due to|\d+ warnings? emitted|.* generated \d+ warnings?)`)
})

func parseCargo(stdout []byte, dir string) (parsed, error) {
	var out parsed
	lines := bytes.Split(stdout, []byte("\n"))
	for i, raw := range lines {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			// Build scripts may print to stdout too; it is not cargo's.
			continue
		}
		var msg cargoLine
		if err := json.Unmarshal(raw, &msg); err != nil {
			if i == len(lines)-1 {
				// The last line of output that was cut short.
				break
			}
			return out, fmt.Errorf("cargo printed a JSON line that does not parse: %w", err)
		}
		if msg.Reason != "compiler-message" || msg.Message == nil {
			continue
		}
		if d, ok := rustcToDiagnostic(msg.Message, msg.ManifestPath, dir); ok {
			out.Diags = append(out.Diags, d)
		}
	}
	return out, nil
}

func rustcToDiagnostic(m *rustcDiag, manifest, dir string) (Diagnostic, bool) {
	if m.Level == "failure-note" || (len(m.Spans) == 0 && rustcTrailerRe().MatchString(m.Message)) {
		return Diagnostic{}, false
	}
	d := Diagnostic{Severity: normalizeSeverity(m.Level), Message: m.Message, Source: "rustc"}
	if m.Code != nil {
		d.Code = m.Code.Code
	}
	span, ok := primarySpan(m.Spans)
	if !ok {
		return d, true
	}
	if span.Label != nil && *span.Label != "" && *span.Label != m.Message {
		// As rustc's short format does: the label says what is wrong here.
		d.Message += ": " + *span.Label
	}
	d.File = rustcFile(span.FileName, manifest, dir)
	d.Line, d.Column = span.LineStart, span.ColumnStart
	d.EndLine, d.EndColumn = span.LineEnd, span.ColumnEnd
	return d, true
}

// primarySpan is the span a diagnostic points at, followed out of macro
// expansions to the user's code.
func primarySpan(spans []rustcSpan) (rustcSpan, bool) {
	if len(spans) == 0 {
		return rustcSpan{}, false
	}
	span := spans[0]
	for _, s := range spans {
		if s.IsPrimary {
			span = s
			break
		}
	}
	for depth := 0; strings.HasPrefix(span.FileName, "<") && span.Expansion != nil && depth < 64; depth++ {
		span = span.Expansion.Span
	}
	return span, true
}

// rustcFile resolves a span's file. rustc is run from the workspace root, so
// a relative path is relative to it, which cargo does not report: it is the
// nearest ancestor of the package's manifest under which the file exists.
func rustcFile(name, manifest, dir string) string {
	if name == "" || filepath.IsAbs(name) {
		return name
	}
	if manifest != "" {
		for d := filepath.Dir(manifest); ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return filepath.Join(d, name)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return filepath.Join(dir, name)
}

// cargoProgress turns "compiler-artifact" lines into "cargo check: N crates
// checked (name)".
type cargoProgress struct {
	report func(string)

	mu sync.Mutex
	n  int
}

func (c *cargoProgress) line(stdout bool, b []byte) {
	if !stdout || !bytes.Contains(b, []byte(`"reason":"compiler-artifact"`)) {
		return
	}
	var msg cargoLine
	if json.Unmarshal(b, &msg) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.report(fmt.Sprintf("cargo check: %d %s checked (%s)", c.n, plural(c.n, "crate", "crates"), crateName(msg.PackageID)))
}

// crateName is the package name in a package id, old style
// ("name 0.1.0 (path+file:///...)") or new ("path+file:///...#name@0.1.0",
// or "path+file:///.../name#0.1.0" when the name is the directory's).
func crateName(id string) string {
	if url, after, ok := strings.Cut(id, "#"); ok {
		if name, _, ok := strings.Cut(after, "@"); ok {
			return name
		}
		return url[strings.LastIndexByte(url, '/')+1:]
	}
	name, _, _ := strings.Cut(id, " ")
	return name
}
