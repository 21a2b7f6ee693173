package ignore

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

// Override is ripgrep's --glob: a glob that matches selects (whitelists)
// the path, a "!glob" that matches excludes it, and when there are
// selecting globs a file none matches is excluded. Directories are only
// ever excluded by a "!glob". Like ripgrep's, an override beats every
// ignore rule and the hidden-file rule.
type Override struct {
	rules      []Rule
	whitelists int
}

// CompileOverride compiles globs, with gitignore syntax (a trailing slash
// matches directories only, a slash inside anchors the glob at the
// working directory).
func CompileOverride(globs ...string) (*Override, error) {
	o := &Override{}
	for _, g := range globs {
		r, ok, err := ParseRule(g)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrEmptyGlob
		}
		// In a gitignore "!" whitelists; in an override it excludes.
		r.negate = !r.negate
		if r.negate {
			o.whitelists++
		}
		o.rules = append(o.rules, r)
	}
	return o, nil
}

// Match says what the globs make of rel, the path relative to the working
// directory (or absolute, without its leading slash, outside it).
func (o *Override) Match(rel string, isDir bool) Match {
	if o == nil || len(o.rules) == 0 {
		return None
	}
	m := (&Rules{rules: o.rules}).Match(rel, isDir)
	if m == None && o.whitelists > 0 && !isDir {
		return Ignore
	}
	return m
}

//go:embed types.txt
var typeList string

// Types are ripgrep's file types by name, each a list of globs matched
// against base names. The globs are compiled only for a type in use, so
// starting the plugin costs nothing.
type Types map[string][]string

// LoadTypes parses the built-in type table, ripgrep 13's.
func LoadTypes() Types {
	t := Types{}
	for _, line := range strings.Split(typeList, "\n") {
		name, globs, ok := strings.Cut(line, ": ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		t[name] = strings.Split(globs, ", ")
	}
	return t
}

// Filter compiles the filter of a type; ok is false for an unknown type.
func (t Types) Filter(name string) (TypeFilter, bool) {
	globs, ok := t[name]
	if !ok {
		return nil, false
	}
	f := make(TypeFilter, 0, len(globs))
	for _, g := range globs {
		cg, err := CompileGlob(g)
		if err != nil {
			panic(fmt.Sprintf("ignore: built-in type %s has a bad glob %q: %v", name, g, err))
		}
		f = append(f, cg)
	}
	return f, true
}

// Names lists the type names, sorted.
func (t Types) Names() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TypeFilter selects the files of one type. Like ripgrep's -t, it
// whitelists a matching file (so a hidden file of the type is searched,
// as in ripgrep 13) and excludes every other file; it says nothing about
// directories.
type TypeFilter []*Glob

// Match says what the filter makes of a file's base name.
func (f TypeFilter) Match(base string, isDir bool) Match {
	if len(f) == 0 || isDir {
		return None
	}
	for _, g := range f {
		if g.Match(base) {
			return Whitelist
		}
	}
	return Ignore
}
