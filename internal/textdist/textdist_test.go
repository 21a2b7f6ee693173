package textdist

import "testing"

func TestOSA(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"main", "main", 0},
		{"mian", "main", 1},           // a transposition is one edit
		{"main.go", "main.rs", 2},     // two substitutions
		{"kitten", "sitting", 3},      // the classic
		{"ca", "abc", 3},              // optimal string alignment, not Damerau
		{"日本語", "日本", 1},              // characters, not bytes
		{"config", "confgi", 1},       // transposition at the end
		{"abcdef", "badcfe", 3},       // three transpositions
		{"handler", "handlers", 1},    // insertion
		{"handlers", "handler", 1},    // deletion
		{"readme.md", "README.md", 6}, // case matters
	}
	for _, tt := range tests {
		if got := OSA(tt.a, tt.b); got != tt.want {
			t.Errorf("OSA(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"mode", "mode", 0},
		{"kitten", "sitting", 3},
		{"mian", "main", 2}, // a transposition is two edits here
		{"mood", "mode", 2},
		{"plan", "planning", 4},
		{"日本", "日", 3}, // bytes, not characters
	}
	for _, tt := range tests {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
