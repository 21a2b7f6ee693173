// Package textdist holds the edit distances behind riot's "did you mean"
// hints: config keys, Grep's file types and Read's file names. It depends
// on nothing, so both the host side and the builtin plugins use it.
package textdist

// Levenshtein is the number of single-byte insertions, deletions and
// substitutions that turn a into b. It suits short ASCII names.
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// OSA is the optimal string alignment distance between a and b, in
// characters: insertions, deletions, substitutions and transpositions of
// neighbours ("mian" for "main") each cost 1.
func OSA(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: two before, for transpositions.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
