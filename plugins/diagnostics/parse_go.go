package diagnostics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// go vet -json writes one JSON object per package it analysed (to stdout
// since Go 1.25, to stderr before), and everything that stopped a package
// from being analysed as plain text on stderr:
//
//	# example.com/m/b                       a package header
//	vet: b/b.go:4:17: cannot use ...         vet's type checker: first error only
//	b/b.go:5:9: cannot use ...               the compiler, building a dependency
//	d/d.go:3:8: no required module provides package example.com/nope; to add it:
//		go get example.com/nope              a continuation of the line above
//	package example.com/m/e: build constraints exclude all Go files in ...
//
// parseGoVet reads both streams with the same scanner, so either layout
// parses. Plain-text positions are relative to dir, where go ran.

// Compiled on first use, as every regexp of this package: riot links the
// builtins, so their inits would run at every riot start.
var (
	// goLocRe is "file:line[:col]: message" with a file that has no colon
	// or space in it, which keeps "package x: ..." and "go: ..." out.
	goLocRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\s:][^:\s]*):(\d+)(?::(\d+))?: (.*)$`) })
	// goPosRe is a vet JSON position: "file:line:col" or "file:line".
	goPosRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*?):(\d+)(?::(\d+))?$`) })
)

const (
	noteVetFirstTypeError = "go vet reports only the first type error of a package; fix it and run Diagnostics again to see any others."
	noteGoTooManyErrors   = "The Go compiler stopped listing errors after 10 in a package; fix these and run Diagnostics again to see the rest."
)

// vetDiag is one analyzer finding in go vet's JSON.
type vetDiag struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
}

func parseGoVet(stdout, stderr []byte, dir string) (parsed, error) {
	var out parsed
	for _, stream := range [][]byte{stdout, stderr} {
		if err := scanGoStream(stream, dir, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func scanGoStream(data []byte, dir string, out *parsed) error {
	// last is the diagnostic a continuation line extends, or -1.
	last := -1
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data) - pos
		}
		line := string(data[pos : pos+end])
		next := pos + end + 1

		switch {
		case strings.HasPrefix(line, "{"):
			dec := json.NewDecoder(bytes.NewReader(data[pos:]))
			var obj map[string]map[string]json.RawMessage
			if err := dec.Decode(&obj); err != nil {
				return fmt.Errorf("go vet printed JSON that does not parse: %w", err)
			}
			if err := addVetObject(obj, dir, out); err != nil {
				return err
			}
			next = pos + int(dec.InputOffset())
			last = -1
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    "):
			if last >= 0 {
				out.Diags[last].Message += "\n" + strings.TrimSpace(line)
			} else {
				out.addUnlocated(SeverityError, strings.TrimSpace(line), "go")
				last = len(out.Diags) - 1
			}
		case strings.HasPrefix(line, "# "):
			last = -1
		case goNoise(line):
		case line == "too many errors":
			out.note(noteGoTooManyErrors)
		default:
			if rest, ok := strings.CutPrefix(line, "vet: "); ok {
				line = rest
				out.note(noteVetFirstTypeError)
			}
			if m := goLocRe().FindStringSubmatch(line); m != nil {
				sev, msg := SeverityError, m[4]
				// cgo hands on the C compiler's own "warning: ...".
				if rest, ok := strings.CutPrefix(msg, "warning: "); ok {
					sev, msg = SeverityWarning, rest
				} else if rest, ok := strings.CutPrefix(msg, "error: "); ok {
					msg = rest
				}
				out.Diags = append(out.Diags, Diagnostic{
					File: absIn(dir, m[1]), Line: atoi(m[2]), Column: atoi(m[3]),
					Severity: sev, Message: msg, Source: "go",
				})
			} else {
				sev := SeverityError
				if strings.HasPrefix(line, "go: warning: ") {
					sev = SeverityWarning
				}
				out.addUnlocated(sev, line, "go")
			}
			last = len(out.Diags) - 1
		}
		pos = next
	}
	return nil
}

// goNoise is the go command's chatter, which is not a problem in the code.
func goNoise(line string) bool {
	for _, p := range []string{"go: downloading ", "go: finding ", "go: extracting ", "go: found "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// addVetObject adds one package's findings: {"pkg": {"analyzer": [...]}},
// where an analyzer that failed has {"error": "..."} instead of a list.
func addVetObject(obj map[string]map[string]json.RawMessage, dir string, out *parsed) error {
	for _, analyzers := range obj {
		for analyzer, raw := range analyzers {
			raw = bytes.TrimSpace(raw)
			if len(raw) > 0 && raw[0] == '{' {
				var failed struct {
					Error string `json:"error"`
				}
				if err := json.Unmarshal(raw, &failed); err != nil {
					return fmt.Errorf("go vet printed an analyzer result that does not parse: %w", err)
				}
				out.Diags = append(out.Diags, Diagnostic{Severity: SeverityError, Code: analyzer, Message: "analyzer failed: " + failed.Error, Source: "go vet"})
				continue
			}
			var ds []vetDiag
			if err := json.Unmarshal(raw, &ds); err != nil {
				return fmt.Errorf("go vet printed analyzer findings that do not parse: %w", err)
			}
			for _, d := range ds {
				file, line, col := splitGoPos(d.Posn)
				endFile, endLine, endCol := splitGoPos(d.End)
				if endFile != file {
					endLine, endCol = 0, 0
				}
				out.Diags = append(out.Diags, Diagnostic{
					File: absIn(dir, file), Line: line, Column: col, EndLine: endLine, EndColumn: endCol,
					Severity: SeverityWarning, Code: analyzer, Message: d.Message, Source: "go vet",
				})
			}
		}
	}
	return nil
}

func splitGoPos(posn string) (file string, line, col int) {
	m := goPosRe().FindStringSubmatch(posn)
	if m == nil {
		return posn, 0, 0
	}
	return m[1], atoi(m[2]), atoi(m[3])
}

// absIn resolves a checker's path against the directory it ran in.
func absIn(dir, file string) string {
	if file == "" || filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(dir, file)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// goProgress turns go vet's per-package JSON objects and package headers
// into "go vet: N packages checked" as they arrive.
type goProgress struct {
	report func(string)

	mu       sync.Mutex
	n        int
	wantName bool
}

func (g *goProgress) line(_ bool, b []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	line := string(b)
	switch {
	case line == "{":
		// The package path is on the next line.
		g.n++
		g.wantName = true
		return
	case strings.HasPrefix(line, "{"):
		g.n++
		g.report(fmt.Sprintf("go vet: %d %s checked", g.n, plural(g.n, "package", "packages")))
	case g.wantName:
		name, _, _ := strings.Cut(strings.TrimSpace(line), `":`)
		g.report(fmt.Sprintf("go vet: %d %s checked (%s)", g.n, plural(g.n, "package", "packages"), strings.TrimPrefix(name, `"`)))
	case strings.HasPrefix(line, "# "):
		g.n++
		g.report(fmt.Sprintf("go vet: %d %s checked (%s)", g.n, plural(g.n, "package", "packages"), strings.TrimPrefix(line, "# ")))
	}
	g.wantName = false
}
