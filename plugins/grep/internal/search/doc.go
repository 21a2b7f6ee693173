// Package search is Grep's engine: it compiles a pattern with a literal
// prefilter and a lazy DFA that decides lines, walks a tree in parallel
// with ripgrep's rules about what to skip, searches files in bounded
// chunks on a pool of workers, and collects matches for the three output
// modes within a memory bound.
package search
