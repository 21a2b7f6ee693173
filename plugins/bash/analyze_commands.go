package bash

import (
	"slices"
	"strings"
)

// The allow-list: every command a read-only call may run, with how its arguments are parsed, which are paths it
// reads, and its flag checks. Anything not here is not read-only. Left out on purpose: less and more (LESSOPEN and
// their ! command run programs), the wrappers that run another command (timeout env nice nohup time xargs sudo exec
// command builtin), interpreters, cd.
var allowList = map[string]*spec{
	"pwd": {}, "echo": {}, "whoami": {}, "true": {}, "false": {}, "sleep": {}, "basename": {}, "dirname": {},
	"which": {}, "type": {}, "tr": {},
	"printf": {custom: printfCmd},
	"cat":    {paths: allOperands},
	"head":   {values: "nc", long: []string{"lines", "bytes"}, paths: allOperands},
	"tail": {
		values: "ncs", long: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"},
		paths: allOperands,
	},
	"wc": {long: []string{"files0-from"}, files: []string{"--files0-from"}, paths: allOperands},
	"ls": {
		values: "ITw",
		long: []string{
			"ignore", "hide", "tabsize", "width", "format", "sort", "time", "time-style", "quoting-style",
			"indicator-style", "block-size",
		},
		paths: allOperands, dot: true,
	},
	"stat": {values: "c", long: []string{"format", "printf"}, paths: allOperands},
	"du": {
		values: "BdtX", long: []string{"block-size", "max-depth", "threshold", "exclude", "exclude-from", "files0-from", "time-style"},
		files: []string{"-X", "--exclude-from", "--files0-from"}, paths: allOperands, dot: true,
	},
	"df":       {values: "Btx", long: []string{"block-size", "type", "exclude-type"}, paths: allOperands},
	"realpath": {long: []string{"relative-to", "relative-base"}, paths: allOperands},
	"cut": {
		values: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"},
		paths: allOperands,
	},
	"nl": {
		values: "bdfhilnsvw",
		long: []string{
			"body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment",
			"join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width",
		},
		paths: allOperands,
	},
	"diff": {
		values: "CDFILSUWXx",
		long: []string{
			"ifdef", "show-function-line", "ignore-matching-lines", "label", "starting-file", "width", "exclude",
			"exclude-from", "from-file", "to-file", "tabsize", "horizon-lines",
		},
		files: []string{"-X", "--exclude-from", "--from-file", "--to-file"}, paths: allOperands,
	},
	"cmp": {values: "in", long: []string{"ignore-initial", "bytes"}, paths: allOperands},
	"grep": {
		values: "ABCDdefm",
		long: []string{
			"regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices",
			"label", "include", "exclude", "exclude-from", "exclude-dir", "binary-files", "group-separator",
		},
		files:   []string{"-f", "--file", "--exclude-from"},
		pattern: []string{"-e", "-f", "--regexp", "--file"},
		paths:   afterPattern, dotWith: []string{"-r", "-R", "--recursive", "--dereference-recursive"},
	},
	"rg": {
		values: "ABCEMTefgjmrt",
		long: []string{
			"after-context", "before-context", "context", "color", "colors", "context-separator", "encoding",
			"engine", "file", "glob", "iglob", "ignore-file", "max-columns", "max-count", "max-depth",
			"max-filesize", "path-separator", "pre", "pre-glob", "regexp", "replace", "sort", "sortr", "threads",
			"type", "type-add", "type-clear", "type-not",
		},
		files:   []string{"-f", "--file", "--ignore-file"},
		pattern: []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"},
		paths:   afterPattern, dot: true, strict: flagSafe,
		// --pre runs a program on every file; -z/--search-zip run decompressors; --hostname-bin runs a program.
		check: forbid("-z", "--pre", "--search-zip", "--hostname-bin"),
	},
	"tree": {
		values: "HILPTo", long: []string{"charset", "filelimit", "timefmt", "sort", "infofile", "gitfile"},
		paths: allOperands, dot: true, strict: flagSafe,
		check: forbid("-o", "-R"), // -o writes the listing to a file; -R writes 00Tree.html into every directory
	},
	"file": {
		values: "FPefm", long: []string{"magic-file", "files-from", "separator", "parameter", "exclude"},
		files: []string{"-m", "--magic-file", "-f", "--files-from"}, paths: allOperands, strict: flagSafe,
		check: forbid("-C", "--compile"), // writes magic.mgc
	},
	"sort": {
		values: "STkot",
		long: []string{
			"key", "field-separator", "buffer-size", "temporary-directory", "output", "parallel", "batch-size",
			"compress-program", "files0-from", "random-source", "sort",
		},
		files: []string{"--files0-from", "--random-source"}, paths: allOperands, strict: flagSafe,
		check: forbid("-o", "--output", "--compress-program"),
	},
	"uniq": {
		values: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}, paths: allOperands,
		strict: fixed, check: uniqCheck,
	},
	"date": {
		values: "dfr", long: []string{"date", "file", "reference", "rfc-3339"},
		files: []string{"-f", "--file", "-r", "--reference"}, strict: fixed, check: dateCheck,
	},
	"find": {paths: ownPaths, strict: flagSafe, custom: findCmd},
	"sed":  {paths: ownPaths, strict: fixed, custom: sedCmd},
	"git":  {paths: ownPaths, strict: flagSafe, custom: gitCmd},
	"test": {custom: testCmd},
	"[":    {custom: testCmd},
}

// spec says how a command on the allow-list parses its arguments (GNU getopt_long style) and what it reads.
//
// values and long must list only options that really take a value: an option wrongly listed would swallow the next
// word, which could be a path or a forbidden option. One missing only costs precision (its value is taken for a
// path, or for an option and refused).
type spec struct {
	values  string   // short options that take a value, attached (-n5) or as the next word
	long    []string // long options that take a value, as --name=v or as the next word
	files   []string // options whose value is a file the command reads
	pattern []string // options that give the pattern, so that the first operand is a path again
	paths   operands
	dot     bool     // without a path operand it reads the working directory
	dotWith []string // ... only when given one of these options
	strict  strictness
	check   func(opts []option, operands []word) bool      // the flag checks
	custom  func(w *walker, name string, args []word) bool // parses by itself; reports whether read-only
}

type operands int

const (
	noPaths      operands = iota
	allOperands           // every operand is a path
	afterPattern          // the first operand is the pattern, unless an option gave it
	ownPaths              // custom finds its paths
)

// strictness is what a command with dangerous flags requires of every argument.
type strictness int

const (
	anyWord  strictness = iota
	flagSafe            // word.flagSafe: no expansion or glob can produce an option
	fixed               // word.fixed: exactly one argument, as written
)

type option struct {
	name  string // "-n" or "--lines"
	value *word  // nil without a value
}

// simple judges one simple command and records the paths it reads.
func (w *walker) simple(name string, args []word) {
	s, ok := allowList[name]
	if !ok {
		w.deny()
		return
	}
	for _, a := range args {
		if s.strict == flagSafe && !a.flagSafe() || s.strict == fixed && !a.fixed() {
			w.deny()
		}
		// An expansion may be an option that reads a file, or shift which word is the pattern.
		if !a.lit && (s.paths != noPaths || len(s.files) > 0) {
			w.a.Opaque = true
		}
	}
	if s.custom != nil {
		if !s.custom(w, name, args) {
			w.deny()
		}
		return
	}
	opts, ops := s.parse(args)
	for _, o := range opts {
		if o.value != nil && is(o.name, s.files...) {
			w.readPath(*o.value)
			if strings.HasPrefix(o.value.text, "=") { // clap (rg) reads -f=x as x; GNU as =x
				w.readPath(word{text: o.value.text[1:], lit: true})
			}
		}
	}
	paths := ops
	if s.paths == afterPattern && len(ops) > 0 && !hasOpt(opts, s.pattern...) {
		paths = ops[1:]
	}
	if s.paths == noPaths {
		paths = nil
	}
	for _, p := range paths {
		if p.text != "-" { // stdin
			w.readPath(p)
		}
	}
	if len(paths) == 0 && (s.dot || hasOpt(opts, s.dotWith...)) {
		w.readPath(word{text: ".", lit: true})
	}
	if s.check != nil && !s.check(opts, ops) {
		w.deny()
	}
}

// parse splits args into options and operands as GNU getopt_long does: options may follow operands, "--" ends
// them, short options cluster (-rn), and an option that takes a value swallows the rest of its cluster or the next
// word. A word that is not literal counts as an operand.
func (s *spec) parse(args []word) (opts []option, ops []word) {
	for i := 0; i < len(args); i++ {
		a, t := args[i], args[i].text
		switch {
		case !a.lit || t == "-" || !strings.HasPrefix(t, "-"):
			ops = append(ops, a)
		case t == "--":
			return opts, append(ops, args[i+1:]...)
		case strings.HasPrefix(t, "--"):
			name, v, eq := strings.Cut(t, "=")
			o := option{name: name}
			if eq {
				o.value = &word{text: v, lit: true, glob: a.glob}
			} else if slices.Contains(s.long, name[2:]) && i+1 < len(args) {
				i++
				o.value = &args[i]
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(t); j++ {
				o := option{name: "-" + t[j:j+1]}
				opts = append(opts, o)
				if strings.IndexByte(s.values, t[j]) < 0 {
					continue
				}
				if j+1 < len(t) {
					opts[len(opts)-1].value = &word{text: t[j+1:], lit: true, glob: a.glob}
				} else if i+1 < len(args) {
					i++
					opts[len(opts)-1].value = &args[i]
				}
				break
			}
		}
	}
	return opts, ops
}

// is reports whether option name is one of names. A long option also matches an abbreviation of it, which
// getopt_long accepts ("--out" for "--output"), and a longer one starting with it ("--pre-glob" for "--pre"), so
// that a check errs towards refusing.
func is(name string, names ...string) bool {
	for _, n := range names {
		if name == n || len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(n, "--") &&
			(strings.HasPrefix(n, name) || strings.HasPrefix(name, n)) {
			return true
		}
	}
	return false
}

func hasOpt(opts []option, names ...string) bool {
	return slices.ContainsFunc(opts, func(o option) bool { return is(o.name, names...) })
}

// forbid is a flag check that refuses the given options.
func forbid(names ...string) func([]option, []word) bool {
	return func(opts []option, _ []word) bool { return !hasOpt(opts, names...) }
}

// printfCmd refuses printf -v, which assigns a variable; an expansion or glob first could be -v.
func printfCmd(_ *walker, _ string, args []word) bool {
	return len(args) == 0 || args[0].fixed() && !strings.HasPrefix(args[0].text, "-v")
}

// uniqCheck allows one file operand: the second is the output file.
func uniqCheck(_ []option, ops []word) bool { return len(ops) <= 1 }

// dateCheck refuses -s/--set, and an operand other than +FORMAT: `date MMDDhhmm` sets the clock.
func dateCheck(opts []option, ops []word) bool {
	for _, o := range ops {
		if !strings.HasPrefix(o.text, "+") {
			return false
		}
	}
	return !hasOpt(opts, "-s", "--set")
}

// findCmd allows find without the actions that run programs, delete, or write files. Its paths are the starting
// points (the working directory when there are none) and the files named by -newer and the like.
func findCmd(w *walker, _ string, args []word) bool {
	i := 0
	for i < len(args) && (is(args[i].text, "-H", "-L", "-P") || strings.HasPrefix(args[i].text, "-O")) {
		i++
	}
	if i < len(args) && args[i].text == "-D" {
		i += 2
	}
	start := i
	for i < len(args) && !strings.HasPrefix(args[i].text, "-") && !is(args[i].text, "(", "!", ")", ",") {
		w.readPath(args[i])
		i++
	}
	if i == start {
		w.readPath(word{text: ".", lit: true})
	}
	ok := true
	for ; i < len(args); i++ {
		t := args[i].text
		if is(t, "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf") {
			ok = false
		}
		if (strings.HasPrefix(t, "-newer") || is(t, "-anewer", "-cnewer", "-samefile", "-files0-from")) && i+1 < len(args) {
			w.readPath(args[i+1])
		}
	}
	return ok
}

// testCmd allows test and [ without -v (its array subscript is evaluated, running any $(..) in it). A word that is
// an expansion could itself be -v, so it is allowed only where test cannot read it as an operator: the only
// argument; the operand of a literal unary operator; either side of a literal binary operator in the three-word
// form; or after `! -op`. An unquoted expansion may split into several words and is refused, and so is a glob next
// to an expansion (it shifts the positions). The operands of file tests are read paths.
func testCmd(w *walker, name string, args []word) bool {
	if name == "[" && len(args) > 0 && args[len(args)-1].text == "]" {
		args = args[:len(args)-1]
	}
	ok, globs, exps := true, false, []int(nil)
	for i, a := range args {
		switch {
		case !a.lit:
			exps = append(exps, i)
			ok = ok && !a.split
		case a.glob:
			globs = true
			ok = ok && a.flagSafe()
		case a.text == "-v":
			ok = false
		}
	}
	if !testOperands(args, exps) || len(exps) > 0 && globs {
		ok = false
	}
	for i, a := range args {
		if fileTests[a.text] && i+1 < len(args) {
			w.readPath(args[i+1])
		}
		if fileCompare[a.text] && i > 0 && i+1 < len(args) {
			w.readPath(args[i-1])
			w.readPath(args[i+1])
		}
	}
	return ok
}

// testOperands reports whether the expansions at positions exps are all operands, never operators.
func testOperands(args []word, exps []int) bool {
	// Only expansions are at exps, and an expansion's text is never an operator's: checking the text of the
	// words around i is enough.
	allowed := func(i int) bool {
		switch len(args) {
		case 1:
			return true
		case 2:
			return i == 1
		case 3:
			return testBinary[args[1].text] || i == 2 && args[0].text == "!"
		}
		return false
	}
	for _, i := range exps {
		if !allowed(i) {
			return false
		}
	}
	return true
}

var testBinary = map[string]bool{
	"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true, "-lt": true, "-le": true,
	"-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true, "-a": true, "-o": true,
}
