package diagnostics

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// tsc --pretty false writes one diagnostic per line to stdout, with a
// message chain continued on lines indented by two spaces:
//
//	src/a.ts(3,7): error TS2322: Type '(x: string) => string' is not assignable ...
//	  Types of parameters 'x' and 'x' are incompatible.
//	error TS6053: File '/p/missing.ts' not found.
//
// Paths are relative to the directory tsc ran in. TypeScript 5 and the
// native TypeScript 7 print the same format. Node's own failures (a missing
// module, tsc crashing) go to stderr; the exit status decides about them.

var (
	tscLocRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$`)
	})
	tscGlobalRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(error|warning|message) (TS\d+): (.*)$`) })
)

func parseTsc(stdout []byte, dir string) (parsed, error) {
	var out parsed
	var unknown []string
	last := -1
	for _, line := range strings.Split(string(stdout), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "  ") && last >= 0:
			out.Diags[last].Message += "\n" + strings.TrimSpace(line)
			continue
		}
		if m := tscLocRe().FindStringSubmatch(line); m != nil {
			out.Diags = append(out.Diags, Diagnostic{
				File: absIn(dir, m[1]), Line: atoi(m[2]), Column: atoi(m[3]),
				Severity: normalizeSeverity(m[4]), Code: m[5], Message: m[6], Source: "tsc",
			})
		} else if m := tscGlobalRe().FindStringSubmatch(line); m != nil {
			out.Diags = append(out.Diags, Diagnostic{Severity: normalizeSeverity(m[1]), Code: m[2], Message: m[3], Source: "tsc"})
		} else {
			unknown = append(unknown, line)
			last = -1
			continue
		}
		last = len(out.Diags) - 1
	}
	if len(unknown) > 0 && len(out.Diags) == 0 {
		return out, fmt.Errorf("tsc printed %d lines that are not diagnostics", len(unknown))
	}
	// Lines tsc printed beside its diagnostics are kept, not dropped: the
	// model may need them.
	for _, l := range unknown {
		out.addUnlocated(SeverityError, l, "tsc")
	}
	return out, nil
}
