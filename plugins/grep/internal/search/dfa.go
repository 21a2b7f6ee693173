package search

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A lazy DFA answers the question a line search asks, "where does the
// first match end", in one pass over a buffer at a table lookup per byte.
// Go's regexp has no DFA: on a pattern without a literal worth looking for
// (`\w+_\d+\(`) its backtracker took 69% of Grep's CPU, and a search of
// GOROOT/src 2.6–2.8× rg's time. No library served here does better:
// wasilibs/go-re2 (RE2 in WebAssembly on wazero, no cgo) spends over two
// seconds compiling its module in every fresh plugin process, and
// dlclark/regexp2 is a backtracker without RE2's semantics; see
// BENCHMARKS.md. So the engine builds its own, for the one case it needs.
//
// It runs the program of the regexp the engine would run, without
// Multiline: no instruction of it consumes a newline (Compile takes '\n'
// out of every class), so a match lies within a line, each newline
// restarts the automaton at a line start, and the only assertions are ^
// (true at a line start) and $ (true at a newline or the end). A state is
// the set of the program's threads between two bytes; a transition is
// computed the first time it is taken and cached. ASCII bytes index a
// table through byte classes; other runes are decoded as Go's regexp
// decodes them (an invalid byte is U+FFFD of width 1) and indexed through
// rune classes, the ranges that no instruction tells apart.
//
// Its memory is bounded: a cache that outgrows dfaBudget is dropped and
// the search of that buffer falls back to Go's regexp; after
// dfaMaxResets drops the worker's DFA is switched off for good. A pattern
// whose program the DFA does not cover (\A, \z, \b left in it) gets no
// DFA and runs on Go's regexp. FuzzDFA checks it against Go's regexp.

// dfaProg is what every worker's DFA shares: the program and its classes.
type dfaProg struct {
	prog *syntax.Prog
	// class maps a byte to its column: ASCII classes first, then the
	// newline column and the non-ASCII column, which are always special.
	class  [256]uint8
	stride int
	// uniBounds are the starts of the non-ASCII rune classes, ascending;
	// a rune's class is the index of the last start at or below it.
	uniBounds []rune
	// anchored: matches start where the search does (the reverse DFA of
	// suffix.go), not anywhere after it.
	anchored bool
}

// Transition codes: a transition at or above zero is the offset of the
// next state's row in the table.
const (
	tUnknown  int32 = -1 // not computed yet
	tMatch    int32 = -2 // the next state holds a match: stop there
	tNewline  int32 = -3 // the newline column
	tNonASCII int32 = -4 // a byte of a multi-byte rune, or an invalid one
	tDead     int32 = -5 // no thread is left until the next line
)

// dfaBudget bounds one DFA's cache in bytes; dfaMaxResets how often it may
// be dropped before the worker uses Go's regexp alone.
const (
	dfaBudget    = 2 << 20
	dfaMaxResets = 3
	// maxDFAInsts keeps the sets small enough to hash and compare cheaply;
	// a larger program is left to Go's regexp.
	maxDFAInsts = 4000
)

// newDFAProg compiles re for the DFA, or returns nil when the DFA does not
// cover it.
func newDFAProg(re *syntax.Regexp) *dfaProg {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxDFAInsts {
		return nil
	}
	d := &dfaProg{prog: prog}
	asciiCuts := make([]bool, 129)
	var uni []rune
	cut := func(lo, hi rune) {
		if lo < utf8.RuneSelf {
			asciiCuts[lo] = true
			asciiCuts[min(hi, utf8.RuneSelf-1)+1] = true
		}
		if hi >= utf8.RuneSelf {
			uni = append(uni, max(lo, utf8.RuneSelf), hi+1)
		}
	}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch in.Op {
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginLine|syntax.EmptyEndLine) != 0 {
				return nil
			}
		case syntax.InstRune1:
			cut(in.Rune[0], in.Rune[0])
		case syntax.InstRune:
			if len(in.Rune) == 1 {
				r0 := in.Rune[0]
				cut(r0, r0)
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for f := unicode.SimpleFold(r0); f != r0; f = unicode.SimpleFold(f) {
						cut(f, f)
					}
				}
				continue
			}
			for j := 0; j+1 < len(in.Rune); j += 2 {
				cut(in.Rune[j], in.Rune[j+1])
			}
		}
	}
	asciiCuts['\n'], asciiCuts['\n'+1] = true, true
	col := -1
	for b := 0; b < utf8.RuneSelf; b++ {
		if b == '\n' {
			continue
		}
		if asciiCuts[b] || b == '\n'+1 || col < 0 {
			col++
		}
		d.class[b] = uint8(col)
	}
	nl := col + 1
	d.class['\n'] = uint8(nl)
	for b := utf8.RuneSelf; b < 256; b++ {
		d.class[b] = uint8(nl + 1)
	}
	d.stride = nl + 2
	uni = append(uni, utf8.RuneSelf)
	slices.Sort(uni)
	d.uniBounds = slices.Compact(uni)
	return d
}

// uniClass is the rune class of r, a rune at or above utf8.RuneSelf.
func (d *dfaProg) uniClass(r rune) int {
	i, found := slices.BinarySearch(d.uniBounds, r)
	if !found {
		i--
	}
	return i
}

// dfaState is one state: the threads it holds and what they lead to.
type dfaState struct {
	// insts are the program counters of the threads that consume input,
	// and of the assertions waiting for the end of the line, ascending.
	insts []uint32
	// eolMatch: a match ends at this point if a newline or the end of the
	// buffer comes next.
	eolMatch bool
	// dead: no thread consumes input and none matches at the end of the
	// line, so nothing happens until the next newline.
	dead bool
	// uni holds the transitions on non-ASCII rune classes, made on first
	// use.
	uni []int32
}

// dfa is one worker's lazy DFA over a dfaProg.
type dfa struct {
	p      *dfaProg
	states []dfaState
	// trans is the table: a row of stride transitions per state.
	trans []int32
	index map[string]int32
	// lineStart is the row of the state at a line start, where a search
	// starts; for an anchored DFA, at the start of an anchored search.
	lineStart int32
	// lineStartMatch: the pattern matches the empty string there.
	lineStartMatch bool
	// mem is the cache's size in bytes, roughly.
	mem int
	// budget is dfaBudget; tests lower it.
	budget int
	resets int
	off    bool
	// scratch for computing states.
	q     *threads
	buf   []uint32
	key   []byte
	match bool
}

func newDFA(p *dfaProg) *dfa {
	d := &dfa{p: p, q: newThreads(len(p.prog.Inst)), budget: dfaBudget}
	d.reset()
	return d
}

func (d *dfa) reset() {
	d.states = d.states[:0]
	d.trans = d.trans[:0]
	d.index = make(map[string]int32)
	d.mem = 0
	d.q.dense = d.q.dense[:0]
	d.match = false
	// An anchored search starts mid-line (suffix.go).
	op := syntax.EmptyBeginLine
	if d.p.anchored {
		op = 0
	}
	d.addClosure(uint32(d.p.prog.Start), op)
	d.lineStartMatch = d.match
	d.lineStart = d.intern(op)
}

// addClosure adds pc and what it reaches without consuming input, under
// the assertions op, to d.q; reaching a match sets d.match.
func (d *dfa) addClosure(pc uint32, op syntax.EmptyOp) {
	if d.q.has(pc) {
		return
	}
	d.q.add(pc)
	in := &d.p.prog.Inst[pc]
	switch in.Op {
	case syntax.InstMatch:
		d.match = true
	case syntax.InstAlt, syntax.InstAltMatch:
		d.addClosure(in.Out, op)
		d.addClosure(in.Arg, op)
	case syntax.InstNop, syntax.InstCapture:
		d.addClosure(in.Out, op)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^op == 0 {
			d.addClosure(in.Out, op)
		}
	}
}

// intern turns the threads in d.q into a state and returns its row. op is
// the assertions that held where the threads were added: an assertion
// that did not hold is kept, to be tried again at the end of the line.
func (d *dfa) intern(op syntax.EmptyOp) int32 {
	d.buf = d.buf[:0]
	for _, pc := range d.q.dense {
		in := &d.p.prog.Inst[pc]
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.buf = append(d.buf, pc)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^op != 0 {
				d.buf = append(d.buf, pc)
			}
		}
	}
	slices.Sort(d.buf)
	d.key = d.key[:0]
	if op&syntax.EmptyBeginLine != 0 {
		// The line-start state's waiting assertions see ^ too.
		d.key = append(d.key, 1)
	} else {
		d.key = append(d.key, 0)
	}
	for _, pc := range d.buf {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if row, ok := d.index[string(d.key)]; ok {
		return row
	}
	// At the end of a line $ holds, and ^ too where the line is empty.
	eol := syntax.EmptyEndLine | op&syntax.EmptyBeginLine
	d.q.dense = d.q.dense[:0]
	d.match = false
	for _, pc := range d.buf {
		if in := &d.p.prog.Inst[pc]; in.Op == syntax.InstEmptyWidth {
			d.addClosure(pc, eol)
		}
	}
	consumes := false
	for _, pc := range d.buf {
		consumes = consumes || d.p.prog.Inst[pc].Op != syntax.InstEmptyWidth
	}
	st := dfaState{insts: slices.Clone(d.buf), eolMatch: d.match, dead: !consumes && !d.match}
	row := int32(len(d.trans))
	d.states = append(d.states, st)
	for range d.p.stride {
		d.trans = append(d.trans, tUnknown)
	}
	nl := d.p.class['\n']
	d.trans[int(row)+int(nl)] = tNewline
	d.trans[int(row)+int(nl)+1] = tNonASCII
	d.index[string(d.key)] = row
	d.mem += 2*len(d.key) + 4*d.p.stride + 64
	return row
}

// state is the state at row.
func (d *dfa) state(row int32) *dfaState { return &d.states[int(row)/d.p.stride] }

// step computes the transition from the state at row on rune r, a rune
// after which the line goes on: a row, tMatch or tDead.
func (d *dfa) step(row int32, r rune) int32 {
	st := d.state(row)
	d.q.dense = d.q.dense[:0]
	d.match = false
	for _, pc := range st.insts {
		in := &d.p.prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRune:
			ok = in.MatchRune(r)
		case syntax.InstRune1:
			ok = r == in.Rune[0]
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		}
		if ok {
			d.addClosure(in.Out, 0)
		}
	}
	if !d.p.anchored {
		// Unanchored: a match may start after r too.
		d.addClosure(uint32(d.p.prog.Start), 0)
	}
	if d.match {
		return tMatch
	}
	next := d.intern(0)
	if d.state(next).dead {
		return tDead
	}
	return next
}

// firstMatchEnd returns the end of the first match in h, searched from
// from, a line start: the least position at which a match ends, or -1 for
// none. ok is false when the cache outgrew its budget: the caller then
// searches h with Go's regexp.
func (d *dfa) firstMatchEnd(h []byte, from int) (end int, ok bool) {
	if d.lineStartMatch {
		return from, true
	}
	p := d.p
	trans := d.trans
	s := d.lineStart
	i := from
	for i < len(h) {
		t := trans[s+int32(p.class[h[i]])]
		if t >= 0 {
			s = t
			i++
			continue
		}
		switch t {
		case tUnknown:
			if d.mem > d.budget {
				return d.full()
			}
			t = d.step(s, rune(h[i]))
			d.trans[s+int32(p.class[h[i]])] = t
			trans = d.trans
			if t >= 0 {
				s = t
				i++
			}
			// tMatch and tDead are taken from the table next time round.
		case tMatch:
			return i + 1, true
		case tNewline:
			if d.state(s).eolMatch {
				return i, true
			}
			s = d.lineStart
			i++
		case tNonASCII:
			r, w := utf8.DecodeRune(h[i:])
			st := d.state(s)
			if st.uni == nil {
				st.uni = make([]int32, len(p.uniBounds))
				for k := range st.uni {
					st.uni[k] = tUnknown
				}
				d.mem += 4 * len(st.uni)
			}
			c := p.uniClass(r)
			t = st.uni[c]
			if t == tUnknown {
				if d.mem > d.budget {
					return d.full()
				}
				t = d.step(s, r)
				// step may have grown d.states: st is stale.
				d.state(s).uni[c] = t
				trans = d.trans
			}
			switch t {
			case tMatch:
				return i + w, true
			case tDead:
				s = d.skipLine(h, &i)
				if s < 0 {
					return -1, true
				}
			default:
				s = t
				i += w
			}
		case tDead:
			s = d.skipLine(h, &i)
			if s < 0 {
				return -1, true
			}
		}
	}
	if d.state(s).eolMatch {
		return len(h), true
	}
	return -1, true
}

// skipLine moves *i past the next newline, where a dead state comes back
// to life, and returns the line-start row; -1 at the end of h. A dead
// state's assertions are none, so no match ends at that newline.
func (d *dfa) skipLine(h []byte, i *int) int32 {
	k := bytes.IndexByte(h[*i:], '\n')
	if k < 0 {
		*i = len(h)
		return -1
	}
	*i += k + 1
	return d.lineStart
}

// full drops the cache: the search of this buffer falls back to Go's
// regexp, and after dfaMaxResets drops the DFA stays off.
func (d *dfa) full() (int, bool) {
	d.resets++
	if d.resets >= dfaMaxResets {
		d.off = true
	}
	d.reset()
	return -1, false
}
