// Package ignore decides which paths a search skips, the way ripgrep 13
// does by default: gitignore-style globs, the .gitignore, .ignore and
// .rgignore files of a directory and its ancestors, .git/info/exclude and
// the global git excludes file, with git's files honoured only inside a git
// repository. It owns the glob syntax too, which --glob and file types
// share with ignore files.
package ignore
