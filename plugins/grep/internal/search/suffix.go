package search

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A pattern that ends in a literal, such as `\w+_\d+\(`, is searched the
// way ripgrep's regex engine does it ("reverse suffix"): every match ends
// with the literal, so the search looks for the literal with
// bytes.Index, and at each occurrence runs a reverse DFA of the rest of
// the pattern backwards from it, anchored there, to the line start at
// most. The literal ( is common in source, but the digit the reverse DFA
// wants right before it is not: most occurrences cost a byte or two. The
// forward DFA takes over for a line on a byte that is not ASCII (the
// reverse scan then would have to decode UTF-8 backwards the way Go's
// regexp decodes it forwards), and for the rest of the buffer when the
// reverse scans have read much more than the buffer's length, which a
// long line of candidates can make quadratic.

// suffixProg is a pattern's literal suffix and the reverse DFA program of
// what comes before it.
type suffixProg struct {
	lit []byte
	rev *dfaProg
}

// newSuffixProg returns the suffix search of re, an engine's tree without
// Multiline, or nil when re does not end in a case-sensitive ASCII
// literal after something else.
func newSuffixProg(re *syntax.Regexp) *suffixProg {
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	subs := re.Sub
	// Trailing empty matches, such as a \b relaxed by relaxBoundaries,
	// match everywhere.
	for len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEmptyMatch {
		subs = subs[:len(subs)-1]
	}
	if len(subs) < 2 {
		return nil
	}
	last := subs[len(subs)-1]
	if last.Op != syntax.OpLiteral || last.Flags&syntax.FoldCase != 0 || len(last.Rune) == 0 {
		return nil
	}
	var lit []byte
	for _, r := range last.Rune {
		if r >= utf8.RuneSelf || r == '\n' {
			return nil
		}
		lit = append(lit, byte(r))
	}
	rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: slices.Clone(subs[:len(subs)-1])}
	rev, ok := reverse(rest)
	if !ok {
		return nil
	}
	p := newDFAProg(rev)
	if p == nil {
		return nil
	}
	p.anchored = true
	return &suffixProg{lit: lit, rev: p}
}

// reverse returns a tree that matches the reverse of what re matches, as
// runes: a concatenation and a literal reversed, ^ and $ swapped. It
// reports false for an assertion of the text or of words.
func reverse(re *syntax.Regexp) (*syntax.Regexp, bool) {
	out := *re
	out.Sub0 = [1]*syntax.Regexp{}
	switch re.Op {
	case syntax.OpLiteral:
		out.Rune = slices.Clone(re.Rune)
		slices.Reverse(out.Rune)
	case syntax.OpBeginLine:
		out.Op = syntax.OpEndLine
	case syntax.OpEndLine:
		out.Op = syntax.OpBeginLine
	case syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, false
	}
	out.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		r, ok := reverse(sub)
		if !ok {
			return nil, false
		}
		out.Sub[i] = r
	}
	if re.Op == syntax.OpConcat {
		slices.Reverse(out.Sub)
	}
	return &out, true
}

// matchesBefore runs the anchored reverse DFA d backwards from k, not
// below lo, a line start: whether what precedes k ends a match of the
// pattern's rest there. read is the bytes it read. ok is false on a byte
// that is not ASCII, or when the cache outgrew its budget.
func (d *dfa) matchesBefore(h []byte, lo, k int) (matched bool, read int, ok bool) {
	if d.lineStartMatch {
		return true, 0, true
	}
	p := d.p
	s := d.lineStart
	for i := k - 1; i >= lo; i-- {
		b := h[i]
		if b >= utf8.RuneSelf {
			return false, k - i, false
		}
		if b == '\n' {
			return d.state(s).eolMatch, k - i, true
		}
		t := d.trans[s+int32(p.class[b])]
		if t == tUnknown {
			if d.mem > d.budget {
				d.full()
				return false, k - i, false
			}
			t = d.step(s, rune(b))
			d.trans[s+int32(p.class[b])] = t
		}
		switch t {
		case tMatch:
			return true, k - i, true
		case tDead:
			return false, k - i, true
		}
		s = t
	}
	return d.state(s).eolMatch, k - lo, true
}

// firstMatchEnd is the forward DFA's firstMatchEnd, through the suffix
// search when the pattern has one: the same answer. ok is false when a
// DFA gave up.
func (w *worker) firstMatchEnd(fwd *dfa, h []byte, from int) (int, bool) {
	sp := w.pat.suffix
	if sp == nil {
		return fwd.firstMatchEnd(h, from)
	}
	if w.rev == nil {
		w.rev = newDFA(sp.rev)
	}
	if w.rev.off {
		return fwd.firstMatchEnd(h, from)
	}
	// Reverse scans may read 4× the buffer's length, and then some.
	allowance := 4*(len(h)-from) + 4096
	for pos := from; pos < len(h); {
		i := bytes.Index(h[pos:], sp.lit)
		if i < 0 {
			return -1, true // every match ends with the literal
		}
		k := pos + i
		// The reverse scan stops at the line's start by itself.
		matched, read, ok := w.rev.matchesBefore(h, from, k)
		allowance -= read
		if matched && ok {
			return k + len(sp.lit), true
		}
		if !ok || allowance < 0 {
			ls := from + bytes.LastIndexByte(h[from:k], '\n') + 1
			if allowance < 0 {
				return fwd.firstMatchEnd(h, ls)
			}
			// The forward DFA decides this line. Occurrences before k
			// were not matches, so its first match is the first one.
			le := len(h)
			if j := bytes.IndexByte(h[k:], '\n'); j >= 0 {
				le = k + j
			}
			if e, ok := fwd.firstMatchEnd(h[:le], ls); !ok || e >= 0 {
				return e, ok
			}
			pos = le + 1
			continue
		}
		pos = k + 1
	}
	return -1, true
}
