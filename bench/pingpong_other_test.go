//go:build !linux

package bench

// pingpongChild: BenchmarkSocketPingPong is Linux's alone.
func pingpongChild() bool { return false }
