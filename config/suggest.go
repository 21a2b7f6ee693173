package config

import (
	"strings"

	"github.com/riot-tools/riot/internal/textdist"
)

// nearest returns the candidate closest to s by edit distance, if it is
// close enough to be what the user meant: a typo, or a word cut short or
// run on ("planning" for "plan").
func nearest[T ~string](s string, candidates []T) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, v := range candidates {
		c := string(v)
		d := textdist.Levenshtein(s, c)
		if len(c) >= 3 && (strings.HasPrefix(s, c) || strings.HasPrefix(c, s)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Nearest is the candidate the user most likely meant by s, or "" when
// none is close: the CLI suggests commands and tools with it.
func Nearest(s string, candidates []string) string { return nearest(s, candidates) }
