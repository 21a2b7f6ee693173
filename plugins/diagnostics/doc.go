// Package diagnostics is riot's Diagnostics tool: it runs a project's own
// checker (go vet, cargo check, tsc, ruff or pyright), chosen from the
// nearest project marker, and turns the checker's machine-readable output
// into one list of diagnostics for the model and the UI.
//
// The package owns checker detection (plan.go), running the checker in a
// process group of its own with a timeout (run.go), one parser per checker
// (parse_*.go), and the text the model reads (render.go).
//
// Diagnostics is never read-only: a checker executes project code (Rust
// build scripts and proc macros, cgo, toolchain and module downloads) and
// writes build caches, so a call is never auto-allowed as a read.
package diagnostics
