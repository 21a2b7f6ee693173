package diagnostics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ruff check --output-format=json writes one JSON array to stdout. Columns
// are 1-based. A syntax error (code null in older ruff, "invalid-syntax" in
// newer) is an error, and so are the codes flake8's own CI recipe fails a
// build on (E9, F63, F7, F82: syntax errors, undefined names); other lint
// findings are warnings.

type ruffDiag struct {
	Code     *string  `json:"code"`
	Filename string   `json:"filename"`
	Message  string   `json:"message"`
	Severity string   `json:"severity"`
	Location ruffLoc  `json:"location"`
	End      *ruffLoc `json:"end_location"`
}

type ruffLoc struct {
	Row    int `json:"row"`
	Column int `json:"column"`
}

func parseRuff(stdout []byte, dir string) (parsed, error) {
	var out parsed
	data := bytes.TrimSpace(stdout)
	if len(data) == 0 {
		return out, nil
	}
	var ds []ruffDiag
	if err := json.Unmarshal(data, &ds); err != nil {
		return out, fmt.Errorf("ruff printed output that is not its JSON: %w", err)
	}
	for _, r := range ds {
		d := Diagnostic{
			File: absIn(dir, r.Filename), Line: r.Location.Row, Column: r.Location.Column,
			Severity: SeverityWarning, Message: r.Message, Source: "ruff",
		}
		if r.End != nil {
			d.EndLine, d.EndColumn = r.End.Row, r.End.Column
		}
		if r.Code != nil {
			d.Code = *r.Code
		}
		switch {
		case r.Code == nil || d.Code == "invalid-syntax" || strings.HasPrefix(r.Message, "SyntaxError") || seriousRuffCode(d.Code):
			d.Severity = SeverityError
		case r.Severity != "":
			d.Severity = normalizeSeverity(r.Severity)
		}
		out.Diags = append(out.Diags, d)
	}
	return out, nil
}

func seriousRuffCode(code string) bool {
	for _, p := range []string{"E9", "F63", "F7", "F82"} {
		if strings.HasPrefix(code, p) {
			return true
		}
	}
	return false
}

// pyright --outputjson writes one JSON object to stdout. Its positions are
// 0-based, as in the Language Server Protocol.

type pyrightOutput struct {
	Diagnostics []pyrightDiag `json:"generalDiagnostics"`
	Summary     *struct {
		FilesAnalyzed int `json:"filesAnalyzed"`
	} `json:"summary"`
}

type pyrightDiag struct {
	File     string `json:"file"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Rule     string `json:"rule"`
	Range    *struct {
		Start pyrightPos `json:"start"`
		End   pyrightPos `json:"end"`
	} `json:"range"`
}

type pyrightPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

const notePyrightNoFiles = "pyright analyzed no files: `path` holds no Python files pyright includes; pass a path with .py files."

func parsePyright(stdout []byte, dir string) (parsed, error) {
	var out parsed
	var res pyrightOutput
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &res); err != nil {
		return out, fmt.Errorf("pyright printed output that is not its JSON: %w", err)
	}
	for _, p := range res.Diagnostics {
		d := Diagnostic{File: absIn(dir, p.File), Severity: pyrightSeverity(p.Severity), Code: p.Rule, Message: p.Message, Source: "pyright"}
		if p.Range != nil {
			d.Line, d.Column = p.Range.Start.Line+1, p.Range.Start.Character+1
			d.EndLine, d.EndColumn = p.Range.End.Line+1, p.Range.End.Character+1
		}
		out.Diags = append(out.Diags, d)
	}
	if res.Summary != nil && res.Summary.FilesAnalyzed == 0 {
		out.note(notePyrightNoFiles)
	}
	return out, nil
}

func pyrightSeverity(s string) string {
	switch strings.ToLower(s) {
	case "unusedcode", "unreachablecode", "deprecated":
		return SeverityInfo
	}
	return normalizeSeverity(s)
}
