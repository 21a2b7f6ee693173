package search

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lit is a literal string, optionally matched with ASCII case folding.
type lit struct {
	s    string
	fold bool
}

// Limits that keep the analysis cheap on pathological patterns: past them
// a set stops being exact and is only required.
const (
	maxLitSet    = 64  // strings in one set
	maxLitLen    = 128 // bytes in one string
	maxClassLits = 8   // runes of a class expanded into literals
)

// litInfo is what the analysis knows about a subexpression.
type litInfo struct {
	// exact, when exactOK, is every string the subexpression can match.
	exact   []lit
	exactOK bool
	// pure: exact says everything; no assertion (^, \b, ...) and no
	// case-folding approximation has to be checked by the regexp.
	pure bool
	// req: every match contains one of these; nil when nothing is known.
	req []lit
}

var unknown = litInfo{}

// requiredLiterals returns literals of which every match of re contains
// at least one, ready for a finder, and whether an occurrence of one is a
// match by itself. It returns nil when there is nothing worth looking for.
func requiredLiterals(re *syntax.Regexp) ([]lit, bool) {
	info := analyze(re.Simplify())
	set, pure := info.req, false
	if info.exactOK && usable(info.exact) {
		set, pure = info.exact, info.pure
	}
	if !usable(set) {
		return nil, false
	}
	out := make([]lit, 0, len(set))
	for _, l := range set {
		safe := l
		if l.fold {
			safe.s = longestFoldSafe(l.s)
			if safe.s == "" {
				return nil, false
			}
			pure = pure && safe.s == l.s
		}
		out = append(out, safe)
	}
	return dedupe(out), pure
}

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return litInfo{exact: []lit{{}}, exactOK: true, pure: true}
	case syntax.OpLiteral:
		l := lit{s: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}
		if strings.ContainsRune(l.s, utf8.RuneError) || len(l.s) > maxLitLen {
			// Go's regexp matches U+FFFD against invalid UTF-8, which a
			// byte search for U+FFFD would miss.
			return unknown
		}
		if l.fold && !hasFold(l.s) {
			l.fold = false
		}
		if l.fold {
			if variants := caseVariants(l.s); variants != nil {
				// A short folded literal, such as the [Tt] the parser makes
				// a folded T, is exactly its few case variants: that keeps
				// [Tt]ransport exact, and covers non-ASCII folds too.
				return litInfo{exact: variants, exactOK: true, pure: true}
			}
		}
		return litInfo{exact: []lit{l}, exactOK: true, pure: true}
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []lit{{}}, exactOK: true}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		x := analyze(re.Sub[0])
		if !x.exactOK {
			return unknown
		}
		return litInfo{exact: union(x.exact, []lit{{}}), exactOK: true, pure: x.pure}
	case syntax.OpPlus:
		return litInfo{req: bestOf(analyze(re.Sub[0]))}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litInfo{req: bestOf(analyze(re.Sub[0]))}
		}
		return unknown
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	default:
		// Any character, stars, no-match: nothing is required.
		return unknown
	}
}

func classInfo(ranges []rune) litInfo {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassLits {
			return unknown
		}
	}
	var set []lit
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError {
				return unknown
			}
			set = append(set, lit{s: string(r)})
		}
	}
	if len(set) == 0 {
		return unknown
	}
	return litInfo{exact: set, exactOK: true, pure: true}
}

func concatInfo(subs []*syntax.Regexp) litInfo {
	run := []lit{{}} // the exact product of the current run of children
	runPure := true
	allExact, pure := true, true
	var best []lit
	consider := func(set []lit) {
		if score(set) > score(best) {
			best = set
		}
	}
	for _, sub := range subs {
		x := analyze(sub)
		if !x.exactOK {
			consider(run)
			consider(x.req)
			run, runPure, allExact = []lit{{}}, true, false
			continue
		}
		prod, approx, ok := product(run, x.exact)
		if !ok {
			// Too many or too long: what we have is still required.
			consider(run)
			run, runPure, allExact = x.exact, x.pure, false
			continue
		}
		run, runPure = prod, runPure && x.pure && !approx
		pure = pure && x.pure && !approx
	}
	consider(run)
	if allExact {
		return litInfo{exact: run, exactOK: true, pure: pure && runPure}
	}
	return litInfo{req: best}
}

func alternateInfo(subs []*syntax.Regexp) litInfo {
	exact, pure := []lit(nil), true
	exactOK := true
	var req []lit
	reqOK := true
	for _, sub := range subs {
		x := analyze(sub)
		if exactOK && x.exactOK && len(exact)+len(x.exact) <= maxLitSet {
			exact = union(exact, x.exact)
			pure = pure && x.pure
		} else {
			exactOK = false
		}
		b := bestOf(x)
		if !usable(b) || len(req)+len(b) > maxLitSet {
			reqOK = false
		} else if reqOK {
			req = union(req, b)
		}
	}
	if exactOK {
		return litInfo{exact: exact, exactOK: true, pure: pure}
	}
	if reqOK {
		return litInfo{req: req}
	}
	return unknown
}

// bestOf is the best set x offers as a requirement.
func bestOf(x litInfo) []lit {
	if x.exactOK && usable(x.exact) && score(x.exact) >= score(x.req) {
		return x.exact
	}
	return x.req
}

// product is the concatenation of every string of a with every string of
// b. approx reports that a case-sensitive part was joined to a folded
// one, so the folded result matches more than the pattern does.
func product(a, b []lit) (out []lit, approx, ok bool) {
	if len(a)*len(b) > maxLitSet {
		return nil, false, false
	}
	out = make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x.s)+len(y.s) > maxLitLen {
				return nil, false, false
			}
			l := lit{s: x.s + y.s, fold: x.fold || y.fold}
			if x.fold != y.fold && ((!x.fold && hasFold(x.s)) || (!y.fold && hasFold(y.s))) {
				approx = true
			}
			out = append(out, l)
		}
	}
	return out, approx, true
}

func union(a, b []lit) []lit {
	out := make([]lit, 0, len(a)+len(b))
	out = append(out, a...)
	return append(out, b...)
}

// usable: a non-empty set with no empty string (which occurs everywhere).
func usable(set []lit) bool {
	if len(set) == 0 {
		return false
	}
	for _, l := range set {
		if l.s == "" {
			return false
		}
	}
	return true
}

// score ranks sets as prefilters: the length of the shortest string
// counts most (up to a point), then fewer strings.
func score(set []lit) int {
	if !usable(set) {
		return -1 << 30
	}
	shortest := maxLitLen
	for _, l := range set {
		n := len(l.s)
		if l.fold {
			n = len(longestFoldSafe(l.s))
		}
		shortest = min(shortest, n)
	}
	if shortest == 0 {
		return -1 << 30
	}
	return min(shortest, 8)*maxLitSet*2 - len(set)
}

func dedupe(set []lit) []lit {
	seen := make(map[lit]bool, len(set))
	out := set[:0]
	for _, l := range set {
		if l.fold {
			l.s = strings.ToLower(l.s)
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// maxCaseVariants bounds the expansion of a folded literal into its case
// variants; longer ones are searched with ASCII folding instead.
const maxCaseVariants = 4

// caseVariants returns every case variant of s, or nil if there are more
// than maxCaseVariants.
func caseVariants(s string) []lit {
	out := []lit{{}}
	for _, r := range s {
		orbit := []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
		if len(out)*len(orbit) > maxCaseVariants {
			return nil
		}
		next := make([]lit, 0, len(out)*len(orbit))
		for _, prefix := range out {
			for _, c := range orbit {
				next = append(next, lit{s: prefix.s + string(c)})
			}
		}
		out = next
	}
	return out
}

// hasFold reports whether any rune of s has another case.
func hasFold(s string) bool {
	for _, r := range s {
		if unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}

// foldSafe reports whether r folds only to ASCII: then comparing
// ASCII-lowercased bytes finds every case variant the regexp matches. 'k'
// and 's' are not safe (Go folds them with the Kelvin sign and the long
// s), nor is any non-ASCII letter.
func foldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return unicode.SimpleFold(r) == r
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// longestFoldSafe is the longest substring of s made of fold-safe runes:
// any substring of a required literal is required too.
func longestFoldSafe(s string) string {
	best, start := "", 0
	for i, r := range s {
		if !foldSafe(r) {
			if i-start > len(best) {
				best = s[start:i]
			}
			start = i + utf8.RuneLen(r)
		}
	}
	if len(s)-start > len(best) {
		best = s[start:]
	}
	return best
}
