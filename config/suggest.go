package config

import "strings"

// nearest returns the candidate closest to s by edit distance, if it is
// close enough to be what the user meant: a typo, or a word cut short or
// run on ("planning" for "plan").
func nearest(s string, candidates []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, c := range candidates {
		d := editDistance(s, c)
		if len(c) >= 3 && (strings.HasPrefix(s, c) || strings.HasPrefix(c, s)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
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
