package search

import (
	"errors"
	"regexp"
	"regexp/syntax"
)

// Pattern is a compiled search pattern: the regexp, and the literal
// prefilter that finds the places where the regexp can match.
type Pattern struct {
	re *regexp.Regexp
	// find locates occurrences of the literals that every match contains;
	// nil when the pattern has none worth looking for.
	find *finder
	// exact: the pattern is one of find's literals and nothing more, so an
	// occurrence is a match and the regexp never runs.
	exact     bool
	multiline bool
	// perLine runs the regexp on each line on its own, the plain way:
	// the reference NoPrefilter asks for.
	perLine bool
	// boundary, when the pattern has \b or \B (and is not Multiline),
	// decides each line re finds: re then has them relaxed, since Go's
	// are ASCII and rg's Unicode.
	boundary *boundaryVM
	// dfa, without Multiline, is re's program for a lazy DFA (dfa.go),
	// which decides lines in place of re; nil when it does not cover re.
	dfa *dfaProg
	// suffix, for a pattern with a DFA and no prefilter, is its literal
	// suffix search (suffix.go); nil for none.
	suffix *suffixProg
}

// PatternOptions change how a pattern is compiled.
type PatternOptions struct {
	// IgnoreCase folds case, as (?i) does.
	IgnoreCase bool
	// Multiline lets . match a newline and a match span lines.
	Multiline bool
	// NoPrefilter turns the literal prefilter off and runs the regexp on
	// every line on its own, the plain way. Tests compare results with and
	// without it.
	NoPrefilter bool
}

// ErrNewline is Compile's error for a pattern that spells out a newline
// without Multiline: lines are searched one at a time, so it could never
// match.
var ErrNewline = errors.New("the pattern matches a newline, but lines are searched one at a time")

// Compile parses pattern as Go RE2 syntax. ^ and $ match at line
// boundaries. A syntax error is returned as the *syntax.Error of
// regexp/syntax, whose code says what is wrong.
//
// Without Multiline, newline is removed from every class (\s, [^a], .),
// as ripgrep does, so that no match can cross a line: that is what lets
// the engine run the regexp over a whole chunk and still report lines.
func Compile(pattern string, o PatternOptions) (*Pattern, error) {
	flags := syntax.Perl &^ syntax.OneLine
	if o.IgnoreCase {
		flags |= syntax.FoldCase
	}
	if o.Multiline {
		flags |= syntax.DotNL
	}
	// Parsed as written first, so that a syntax error names what the
	// model wrote, not the Unicode classes put in its place.
	if _, err := syntax.Parse(pattern, flags); err != nil {
		return nil, err
	}
	unicodePattern, err := unicodeClasses(pattern)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(unicodePattern, flags)
	if err != nil {
		return nil, err
	}
	if !o.Multiline {
		if tree, err = withoutNewlines(tree); err != nil {
			return nil, err
		}
	}
	var boundary *boundaryVM
	run := tree
	if !o.Multiline && hasBoundary(tree) {
		if boundary, err = newBoundaryVM(tree); err != nil {
			return nil, err
		}
		run = relaxBoundaries(tree)
	}
	// The tree prints itself with explicit flags, so the printed form
	// means exactly what the tree does.
	re, err := regexp.Compile(run.String())
	if err != nil {
		return nil, err
	}
	p := &Pattern{re: re, multiline: o.Multiline, perLine: o.NoPrefilter, boundary: boundary}
	if !o.NoPrefilter && !o.Multiline {
		p.dfa = newDFAProg(run)
		if p.dfa != nil {
			p.suffix = newSuffixProg(run)
		}
	}
	if !o.NoPrefilter {
		if lits, exact := requiredLiterals(tree); len(lits) > 0 {
			exact = exact && boundary == nil
			// A literal as short as "(" is on most lines of source: the
			// suffix search (whose literal may be that one) does better.
			if f := newFinder(lits); f != nil && (exact || p.suffix == nil || !weakLiterals(lits)) {
				p.find, p.exact = f, exact
			}
		}
	}
	if p.find != nil {
		p.suffix = nil
	}
	return p, nil
}

// minStrongLiteral is the length under which a set of required literals
// gives way to the suffix search.
const minStrongLiteral = 3

// weakLiterals reports whether the shortest of lits is too short to be a
// better prefilter than the suffix search.
func weakLiterals(lits []lit) bool {
	for _, l := range lits {
		if len(l.s) < minStrongLiteral {
			return true
		}
	}
	return false
}

// String is the regexp the engine runs.
func (p *Pattern) String() string { return p.re.String() }

// withoutNewlines removes '\n' from every class of the tree, turns any
// character into any character but newline, and \A and \z into ^ and $.
// A literal newline, or a class of nothing but newline, is ErrNewline.
func withoutNewlines(re *syntax.Regexp) (*syntax.Regexp, error) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return nil, ErrNewline
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		// Each line is the text, as for rg: \A and \z are at its edges,
		// whether the regexp runs on the line alone or over a chunk.
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
	case syntax.OpCharClass:
		out := make([]rune, 0, len(re.Rune))
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			switch {
			case lo == '\n' && hi == '\n':
			case lo == '\n':
				out = append(out, '\n'+1, hi)
			case hi == '\n':
				out = append(out, lo, '\n'-1)
			case lo < '\n' && '\n' < hi:
				out = append(out, lo, '\n'-1, '\n'+1, hi)
			default:
				out = append(out, lo, hi)
			}
		}
		if len(out) == 0 {
			return nil, ErrNewline
		}
		re.Rune = out
	}
	for i, sub := range re.Sub {
		s, err := withoutNewlines(sub)
		if err != nil {
			return nil, err
		}
		re.Sub[i] = s
	}
	return re, nil
}
