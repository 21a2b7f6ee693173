package diagnostics

import "slices"

// parsed is what a parser read from a checker's output. File paths in it
// are absolute; the caller makes them workspace-relative.
type parsed struct {
	Diags []Diagnostic
	// Notes say how the result is incomplete or how to read it, such as
	// "go vet reports only the first type error of a package".
	Notes []string
}

func (p *parsed) addUnlocated(severity, message, source string) {
	p.Diags = append(p.Diags, Diagnostic{Severity: severity, Message: message, Source: source})
}

func (p *parsed) note(n string) {
	if !slices.Contains(p.Notes, n) {
		p.Notes = append(p.Notes, n)
	}
}

// located counts the diagnostics that point into a file.
func (p *parsed) located() int {
	n := 0
	for _, d := range p.Diags {
		if d.File != "" {
			n++
		}
	}
	return n
}

func (p *parsed) has(severity string) bool {
	return slices.ContainsFunc(p.Diags, func(d Diagnostic) bool { return d.Severity == severity })
}

// parseOutput parses the output of checker, run in dir.
func parseOutput(checker string, stdout, stderr []byte, dir string) (parsed, error) {
	switch checker {
	case checkerGo:
		return parseGoVet(stdout, stderr, dir)
	case checkerCargo:
		return parseCargo(stdout, dir)
	case checkerTsc:
		return parseTsc(stdout, dir)
	case checkerRuff:
		return parseRuff(stdout, dir)
	default:
		return parsePyright(stdout, dir)
	}
}

// newProgress returns the line observer that reports progress for checker,
// or nil for checkers whose output says nothing until the end.
func newProgress(checker string, report func(string)) observer {
	switch checker {
	case checkerGo:
		return (&goProgress{report: report}).line
	case checkerCargo:
		return (&cargoProgress{report: report}).line
	default:
		return nil
	}
}

// failedRun reports whether a run that exited with code and produced p
// failed as a run, rather than reporting problems in the code: each
// checker's exit status means something different.
func failedRun(checker string, code int, p *parsed) bool {
	if code == 0 {
		return false
	}
	switch checker {
	case checkerGo:
		// Exit 1 with vet findings is normal; with nothing located it is go
		// itself that failed (no packages, a broken go.mod).
		return p.located() == 0
	case checkerRuff:
		// 1 means violations were found; 2 an abnormal termination.
		return code != 1 || len(p.Diags) == 0
	case checkerPyright:
		// 1 means errors were reported; 2 and up fatal or config errors.
		return code != 1 || !p.has(SeverityError)
	default:
		// cargo and tsc fail only because of an error; a failure with none
		// reported (a build script that panicked, a bad tsconfig option
		// printed in a form not parsed) is the checker's own.
		return !p.has(SeverityError)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
