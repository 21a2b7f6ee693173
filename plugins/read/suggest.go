package read

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/riot-tools/riot/internal/textdist"
)

const (
	// maxSuggestions is how many similar names a missing file's message
	// offers at most.
	maxSuggestions = 3
	// maxEntriesScanned bounds the directory listing behind suggestions, so
	// a typo in a directory of a million files stays cheap.
	maxEntriesScanned = 10_000
	// listBatch is how many entries one ReadDir call returns at most.
	listBatch = 512
	// maxDistanceRunes bounds the names compared by edit distance, which is
	// quadratic in their length.
	maxDistanceRunes = 64
)

// similarNames returns up to maxSuggestions names in dir that look like
// name, best first: the same name in another case, the same name with
// another extension, a small edit distance, or one name a prefix of the
// other. wantDir picks directories (for a missing directory in the middle
// of a path) or everything else (for a missing file).
// keep, if not nil, vetoes a name: one that may not be shown (a denied
// file, or a link out of the fence) gives its place to the next best.
func similarNames(dir, name string, wantDir bool, keep func(string) bool) []string {
	names, _ := similarNamesScan(dir, name, wantDir, listBatch, maxEntriesScanned, keep)
	return names
}

// similarNamesScan is similarNames reading batch entries at a time and at
// most maxScan in all. It also returns how many entries it read.
func similarNamesScan(dir, name string, wantDir bool, batch, maxScan int, keep func(string) bool) (names []string, scanned int) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, 0
	}
	defer func() { _ = f.Close() }()
	type scored struct {
		name  string
		score int
	}
	var found []scored
	for scanned < maxScan {
		// ReadDir(n > 0) ends with io.EOF and no entries. Any other error
		// ends the listing too: suggestions are a courtesy, so what was
		// found is kept.
		entries, err := f.ReadDir(min(batch, maxScan-scanned))
		for _, e := range entries {
			if e.IsDir() != wantDir {
				continue
			}
			if score, ok := similarity(name, e.Name()); ok {
				found = append(found, scored{e.Name(), score})
			}
		}
		if err != nil {
			break
		}
		scanned += len(entries)
	}
	slices.SortFunc(found, func(a, b scored) int {
		if a.score != b.score {
			return a.score - b.score
		}
		return strings.Compare(a.name, b.name)
	})
	names = make([]string, 0, maxSuggestions)
	for _, s := range found {
		if len(names) == maxSuggestions {
			break
		}
		if keep == nil || keep(s.name) {
			names = append(names, s.name)
		}
	}
	return names, scanned
}

// similarity scores how much cand looks like target, lower is closer, and
// reports whether it looks like it at all. The score is the edit distance
// relative to the longer name's length (in thousandths), so that one edit
// in a short name weighs more than one in a long one: READ.md is close to
// README.md (2 edits in 9), mian.go closer to main.go (1 in 7). A name
// that differs only in case scores 0.
func similarity(target, cand string) (score int, ok bool) {
	t, c := strings.ToLower(target), strings.ToLower(cand)
	if t == c {
		return 0, target != cand
	}
	tn, cn := utf8.RuneCountInString(t), utf8.RuneCountInString(c)
	longer := max(tn, cn)
	d := maxDistanceRunes
	if tn <= maxDistanceRunes && cn <= maxDistanceRunes {
		d = textdist.OSA(t, c)
	}
	score = 1 + d*1000/max(longer, 1)
	switch {
	case d <= distanceAllowed(longer):
		return score, true
	case stem(t) != "" && stem(t) == stem(c):
		// main.go for main.rs, README.md for README.
		return score, true
	case len(t) >= 3 && len(c) >= 3 && (strings.HasPrefix(c, t) || strings.HasPrefix(t, c)):
		// config for config.toml, main.go.orig for main.go.
		return score, true
	}
	return 0, false
}

// distanceAllowed is the edit distance still counted as a typo in a name
// of n characters (the longer of the two): one edit per four characters,
// at least one.
func distanceAllowed(n int) int {
	return max(n/4, 1)
}

// stem is a name without its last extension; "" for a dotfile.
func stem(name string) string {
	return strings.TrimSuffix(name, filepath.Ext(name))
}
