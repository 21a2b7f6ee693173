// Package bench measures riot: the per-call overhead of the host against
// the transport under it, plugin start-up, scheduling and streaming. Its
// benchmarks build their plugin binaries once; BENCHMARKS.md holds the
// reports and the commands that reproduce them.
package bench
