// Package grep is riot's Grep tool: a ripgrep-class content search in pure
// Go. It owns the tool contract (input, validation, permissions, output
// formatting); internal/search is the engine (parallel walk, literal
// prefilter, chunked search) and internal/ignore decides what a search
// skips, by ripgrep 13's rules.
package grep
