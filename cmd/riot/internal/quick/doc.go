// Package quick is riot's quick path: the invocations that need none of
// riot's libraries are answered from init functions, before Go
// initialises those libraries, and the process exits. Every other
// invocation returns untouched to riot's main.
//
// Go runs the init functions of every package a binary links before main,
// and those of gRPC, protobuf, go-plugin and the MCP SDK (which any riot
// binary must link) cost a few milliseconds on the machines riot is
// measured on (BENCHMARKS.md, "The quick path"): most of `riot version`,
// and most of a `riot run` client's own time when a session host runs the
// turn. Go initialises the packages in the order of their import paths,
// each as soon as every package it imports is initialised, so a package
// that imports little of the standard library (and not strings, which
// comes late in that order) is initialised long before the libraries.
// TestQuickRunsBeforeTheLibraries pins the order in a built riot, and
// TestQuickImportsStayLight the imports.
//
// This package answers, from package memo, `riot version`, `riot
// --version` and `riot tools` with any arguments: what the same invocation
// printed last time, while none of the files it was made from changed. A
// miss runs the full command, which stores what it printed. Package
// quickrun, which needs more of the standard library and so runs a little
// later, sends `riot run --session ID` to the session host that serves it.
//
// RIOT_QUICK=0 turns both off.
package quick
