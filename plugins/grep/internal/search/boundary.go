package search

import (
	"regexp/syntax"
	"unicode/utf8"
)

// hasBoundary reports whether re holds \b or \B.
func hasBoundary(re *syntax.Regexp) bool {
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, sub := range re.Sub {
		if hasBoundary(sub) {
			return true
		}
	}
	return false
}

// relaxBoundaries returns a copy of re with \b and \B matching
// everywhere: every match of re is one of the copy, so the copy finds the
// candidate lines and boundaryVM decides.
func relaxBoundaries(re *syntax.Regexp) *syntax.Regexp {
	out := *re
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		out.Op = syntax.OpEmptyMatch
	}
	out.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		out.Sub[i] = relaxBoundaries(sub)
	}
	out.Sub0 = [1]*syntax.Regexp{}
	return &out
}

// boundaryVM runs a compiled pattern over one line with \b and \B in
// Unicode's sense (a word character is one of rg's \w), which Go's regexp
// package has not. It is a Pike VM: linear in the line's length times the
// program's, with no backtracking; it is run only on the lines the relaxed
// regexp matched.
type boundaryVM struct {
	prog *syntax.Prog
}

func newBoundaryVM(re *syntax.Regexp) (*boundaryVM, error) {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	return &boundaryVM{prog: prog}, nil
}

// threads is a set of program counters, in insertion order.
type threads struct {
	dense  []uint32
	sparse []uint32
}

func newThreads(n int) *threads {
	return &threads{dense: make([]uint32, 0, n), sparse: make([]uint32, n)}
}

func (t *threads) has(pc uint32) bool {
	i := t.sparse[pc]
	return int(i) < len(t.dense) && t.dense[i] == pc
}

func (t *threads) add(pc uint32) {
	t.sparse[pc] = uint32(len(t.dense))
	t.dense = append(t.dense, pc)
}

// assertions is the empty-width assertions that hold between r1 and r2 (-1
// for the start or end of the line).
func assertions(r1, r2 rune) syntax.EmptyOp {
	var op syntax.EmptyOp
	if r1 < 0 {
		op |= syntax.EmptyBeginText | syntax.EmptyBeginLine
	}
	if r1 == '\n' {
		op |= syntax.EmptyBeginLine
	}
	if r2 < 0 {
		op |= syntax.EmptyEndText | syntax.EmptyEndLine
	}
	if r2 == '\n' {
		op |= syntax.EmptyEndLine
	}
	if isWord(r1) != isWord(r2) {
		op |= syntax.EmptyWordBoundary
	} else {
		op |= syntax.EmptyNoWordBoundary
	}
	return op
}

// match reports whether the pattern matches anywhere in line.
func (vm *boundaryVM) match(line []byte) bool {
	n := len(vm.prog.Inst)
	cur, next := newThreads(n), newThreads(n)
	prev := rune(-1)
	r, width := decode(line, 0)
	for pos := 0; ; {
		// r is at pos and r1 after it: what a thread consuming r sees.
		r1, w1 := decode(line, pos+width)
		// Unanchored: a match may start here.
		if vm.follow(cur, uint32(vm.prog.Start), assertions(prev, r)) {
			return true
		}
		after := assertions(r, r1)
		for _, pc := range cur.dense {
			if vm.step(&vm.prog.Inst[pc], r) && vm.follow(next, vm.prog.Inst[pc].Out, after) {
				return true
			}
		}
		if r < 0 {
			return false
		}
		cur, next = next, cur
		next.dense = next.dense[:0]
		pos += width
		prev, r, width = r, r1, w1
	}
}

// decode is the rune at i, as Go's regexp reads it (an invalid byte is
// U+FFFD of width 1), or -1 at the end.
func decode(b []byte, i int) (rune, int) {
	if i >= len(b) {
		return -1, 0
	}
	if b[i] < utf8.RuneSelf {
		return rune(b[i]), 1
	}
	return utf8.DecodeRune(b[i:])
}

// step reports whether the instruction consumes r.
func (vm *boundaryVM) step(i *syntax.Inst, r rune) bool {
	if r < 0 {
		return false
	}
	switch i.Op {
	case syntax.InstRune:
		return i.MatchRune(r)
	case syntax.InstRune1:
		return r == i.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// follow adds pc to t with every instruction reachable from it without
// consuming input, under the assertions op; it reports reaching a match.
func (vm *boundaryVM) follow(t *threads, pc uint32, op syntax.EmptyOp) bool {
	if t.has(pc) {
		return false
	}
	t.add(pc)
	i := &vm.prog.Inst[pc]
	switch i.Op {
	case syntax.InstMatch:
		return true
	case syntax.InstAlt, syntax.InstAltMatch:
		return vm.follow(t, i.Out, op) || vm.follow(t, i.Arg, op)
	case syntax.InstNop, syntax.InstCapture:
		return vm.follow(t, i.Out, op)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(i.Arg)&^op == 0 {
			return vm.follow(t, i.Out, op)
		}
	}
	return false
}
