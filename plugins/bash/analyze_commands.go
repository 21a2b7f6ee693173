package bash

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The allow-list: every command a read-only call may run, with how its arguments are parsed, which are paths it
// reads, and its flag checks. Anything not here is not read-only. Left out on purpose: less and more (LESSOPEN and
// their ! command run programs), the wrappers that run another command (timeout env nice nohup time xargs sudo exec
// command builtin), interpreters, cd.
var allowList = map[string]*spec{
	"pwd": {}, "echo": {}, "whoami": {}, "true": {}, "false": {}, "sleep": {}, "basename": {}, "dirname": {},
	"which": {}, "type": {}, "tr": {}, "printenv": {}, "uname": {}, "seq": {values: "fst", long: []string{"format", "separator"}},
	"readlink":  {paths: allOperands},
	"sha256sum": {paths: allOperands, listFlags: []string{"-c", "--check"}},
	"sha1sum":   {paths: allOperands, listFlags: []string{"-c", "--check"}},
	"sha512sum": {paths: allOperands, listFlags: []string{"-c", "--check"}},
	"md5sum":    {paths: allOperands, listFlags: []string{"-c", "--check"}},
	"cksum":     {paths: allOperands, listFlags: []string{"-c", "--check"}},
	"cd":        {custom: cdCmd},
	"printf":    {custom: printfCmd},
	"cat":       {paths: allOperands},
	"head":      {values: "nc", long: []string{"lines", "bytes"}, paths: allOperands},
	"tail": {
		values: "ncs", long: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"},
		paths: allOperands,
	},
	"wc": {long: []string{"files0-from"}, lists: []string{"--files0-from"}, paths: allOperands},
	"ls": {
		values: "ITw",
		long: []string{
			"ignore", "hide", "tabsize", "width", "format", "sort", "time", "time-style", "quoting-style",
			"indicator-style", "block-size",
		},
		paths: allOperands, dot: true, recurse: []string{"-R", "--recursive"}, follow: []string{"-L", "--dereference"},
	},
	"stat": {values: "c", long: []string{"format", "printf"}, paths: allOperands},
	"du": {
		values: "BdtX", long: []string{"block-size", "max-depth", "threshold", "exclude", "exclude-from", "files0-from", "time-style"},
		files: []string{"-X", "--exclude-from"}, lists: []string{"--files0-from"}, paths: allOperands, dot: true,
		recurse: always, follow: []string{"-L", "--dereference"},
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
		recurse: []string{"-r", "--recursive"}, follow: always, // diff follows symlinks
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
		recurse: []string{"-r", "-R", "--recursive", "--dereference-recursive"},
		follow:  []string{"-R", "--dereference-recursive"},
		check:   grepCheck,
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
		paths:   afterPattern, dot: true, strict: flagSafe, recurse: always, follow: []string{"-L", "--follow"},
		// --pre runs a program on every file; -z/--search-zip run decompressors; --hostname-bin runs a program.
		check: forbid("-z", "--pre", "--search-zip", "--hostname-bin"),
	},
	"tree": {
		values: "HILPTo", long: []string{"charset", "filelimit", "timefmt", "sort", "infofile", "gitfile"},
		paths: allOperands, dot: true, strict: flagSafe, recurse: always, follow: []string{"-l"},
		writes: []string{"-o"},
		check:  forbid("-o", "-R"), // -o writes the listing to a file; -R writes 00Tree.html into every directory
	},
	"file": {
		values: "FPefm", long: []string{"magic-file", "files-from", "separator", "parameter", "exclude"},
		files: []string{"-m", "--magic-file"}, lists: []string{"-f", "--files-from"}, paths: allOperands, strict: flagSafe,
		check: forbid("-C", "--compile"), // writes magic.mgc
	},
	"sort": {
		values: "STkot",
		long: []string{
			"key", "field-separator", "buffer-size", "temporary-directory", "output", "parallel", "batch-size",
			"compress-program", "files0-from", "random-source", "sort",
		},
		files: []string{"--random-source"}, lists: []string{"--files0-from"}, paths: allOperands, strict: flagSafe,
		// -T puts temporary files in a directory; -o writes the output: both write.
		writes: []string{"-o", "--output", "-T", "--temporary-directory"},
		check:  forbid("-o", "--output", "--compress-program", "-T", "--temporary-directory"),
	},
	"uniq": {paths: ownPaths, strict: fixed, custom: uniqCmd},
	"date": {
		values: "dfr", long: []string{"date", "file", "reference", "rfc-3339"},
		files: []string{"-f", "--file", "-r", "--reference"}, strict: fixed, check: dateCheck,
	},
	"find": {paths: ownPaths, custom: findCmd},
	"sed":  {paths: ownPaths, strict: fixed, custom: sedCmd},
	"git":  {paths: ownPaths, strict: flagSafe, custom: gitCmd},
	// Inspection tools (issue 34, analyze_inspect.go).
	"strings": {
		values: "ntesUT", long: []string{"bytes", "radix", "encoding", "output-separator", "unicode", "target"},
		paths: allOperands, strict: flagSafe, check: noResponseFile(only(stringsOnly...)),
	},
	"objdump": {
		values: "jMbm", long: []string{"section", "disassembler-options", "target", "architecture", "start-address", "stop-address", "insn-width"},
		paths: allOperands, strict: flagSafe, check: noResponseFile(only(objdumpOnly...)),
	},
	"readelf": {
		values: "xpR", long: []string{"hex-dump", "string-dump", "relocated-dump", "sym-base"},
		paths: allOperands, strict: flagSafe, check: noResponseFile(only(readelfOnly...)),
	},
	"nm": {
		values: "ftX", long: []string{"format", "radix", "target"},
		paths: allOperands, strict: flagSafe, check: noResponseFile(only(nmOnly...)),
	},
	"od": {
		values: "AjNSt", long: []string{"address-radix", "skip-bytes", "read-bytes", "format", "endian"},
		paths: allOperands, strict: flagSafe,
	},
	"hexdump": {
		values: "efns", long: []string{"format", "format-file", "length", "skip"},
		files: []string{"-f", "--format-file"}, paths: allOperands, strict: flagSafe,
	},
	"xxd":     {paths: ownPaths, strict: flagSafe, custom: xxdCmd},
	"unzip":   {paths: ownPaths, strict: flagSafe, custom: unzipCmd},
	"tar":     {paths: ownPaths, strict: flagSafe, custom: tarCmd},
	"jq":      {paths: ownPaths, custom: jqCmd},
	"python3": {paths: ownPaths, custom: pythonCmd},
	"python":  {paths: ownPaths, custom: pythonCmd},
	"command": {custom: commandCmd},
	"read":    {custom: readCmd},
	"bash":    {paths: ownPaths, custom: shellSyntaxCmd},
	"sh":      {paths: ownPaths, custom: shellSyntaxCmd},
	"ps":      {values: "CGgoOpstuUk", long: []string{"format", "pid", "ppid", "sort", "user", "group", "cols", "columns", "rows", "width", "sid", "tty"}},
	"pgrep":   {values: "dgGPstuUF", long: []string{"delimiter", "pgroup", "group", "parent", "session", "terminal", "euid", "uid", "pidfile", "ns", "nslist", "signal"}, files: []string{"-F", "--pidfile"}},
	"lsof":    {values: "cdpukA", check: lsofCheck},
	"test":    {custom: testCmd},
	"[":       {custom: testCmd},
}

// spec says how a command on the allow-list parses its arguments (GNU getopt_long style) and what it reads.
//
// values and long must list only options that really take a value: an option wrongly listed would swallow the next
// word, which could be a path or a forbidden option. One missing only costs precision (its value is taken for a
// path, or for an option and refused).
type spec struct {
	values string   // short options that take a value, attached (-n5) or as the next word
	long   []string // long options that take a value, as --name=v or as the next word
	files  []string // options whose value is a file the command reads
	lists  []string // options whose value is a file naming the files the command reads: the call asks
	// listFlags are flags that make the operands such lists (sha256sum -c).
	listFlags []string
	writes    []string // options whose value is a file or directory the command writes
	pattern   []string // options that give the pattern, so that the first operand is a path again
	paths     operands
	dot       bool     // without a path operand it reads the working directory
	dotWith   []string // ... only when given one of these options
	recurse   []string // options that make it read directories recursively; always: it does anyway
	follow    []string // options that make that recursion follow symlinks; always: it does anyway
	strict    strictness
	check     func(opts []option, operands []word) bool      // the flag checks
	custom    func(w *walker, name string, args []word) bool // parses by itself; reports whether read-only
}

// always, as recurse or follow, means without any option.
var always = []string{""}

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
	if name == "xargs" { // off the list: it runs a listed command (xargsCmd), which would make the list refer to itself
		if !xargsCmd(w, name, args) {
			w.deny()
			w.unlistedLists(name, args)
		}
		return
	}
	if w.versionQuery(name, args) {
		return
	}
	s, ok := allowList[name]
	if !ok {
		w.deny()
		w.unlistedLists(name, args)
		w.unlistedRecursive(name, args)
		return
	}
	for _, a := range args {
		if s.strict == flagSafe && !a.flagSafe() || s.strict == fixed && !a.fixed() {
			w.deny()
		}
		// An expansion may be an option that reads a file, or shift which word is the pattern.
		if !a.lit && !a.tracked && (s.paths != noPaths || len(s.files) > 0) {
			w.a.Opaque = true
		}
	}
	if s.custom != nil {
		if !s.custom(w, name, args) {
			w.deny()
			w.unlistedLists(name, args) // tar's other modes
			w.unlistedRecursive(name, args)
		}
		return
	}
	opts, ops := s.parse(args)
	for _, o := range opts {
		if o.value == nil {
			continue
		}
		if is(o.name, s.files...) || is(o.name, s.lists...) {
			w.optionPath(*o.value)
		}
		if is(o.name, s.lists...) {
			w.ask(fmt.Sprintf("`%s %s` reads the names of the files it reads from a list riot cannot check before it runs, so running it needs the user's approval. Name the files as operands instead.", name, o.name))
		}
		if is(o.name, s.writes...) {
			w.deny()
			w.writePath(*o.value)
		}
	}
	for _, o := range opts {
		if is(o.name, s.listFlags...) {
			w.ask(fmt.Sprintf("`%s %s` reads the names of the files it reads from its operands, which riot cannot check before it runs, so running it needs the user's approval.", name, o.name))
		}
	}
	paths := ops
	if s.paths == afterPattern && len(ops) > 0 && !hasOpt(opts, s.pattern...) {
		paths = ops[1:]
	}
	if s.paths == noPaths {
		paths = nil
	}
	if len(paths) == 0 && (s.dot || hasOpt(opts, s.dotWith...)) && !hasOpt(opts, s.lists...) {
		paths = []word{{text: ".", lit: true}}
	}
	recursive := s.recurse != nil && (s.recurse[0] == "" || hasOpt(opts, s.recurse...))
	follow := s.follow != nil && (s.follow[0] == "" || hasOpt(opts, s.follow...))
	for _, p := range paths {
		if p.text == "-" && p.lit { // stdin
			continue
		}
		w.readPath(p)
		if recursive {
			w.walkPath(p, follow)
		}
	}
	if s.check != nil && !s.check(opts, ops) {
		w.deny()
	}
}

// optionPath records the file an option's value names. clap (rg) reads -f=x as x, GNU as =x: both are paths.
func (w *walker) optionPath(v word) {
	w.readPath(v)
	if strings.HasPrefix(v.text, "=") {
		w.readPath(word{text: v.text[1:], lit: true})
	}
}

// grepCheck refuses `-d recurse`/`--directories=recurse` spelled so that the recursion check cannot see it.
func grepCheck(opts []option, _ []word) bool {
	for _, o := range opts {
		if is(o.name, "-d", "--directories") && (o.value == nil || o.value.text != "read" && o.value.text != "skip") {
			return false
		}
	}
	return true
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

// uniqCmd allows one file operand: the second is the output file, which it writes.
func uniqCmd(w *walker, _ string, args []word) bool {
	s := spec{values: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}}
	_, ops := s.parse(args)
	return w.inOut(ops)
}

// inOut records the operands of a filter that reads its first and writes its second (uniq, xxd, python3 -m
// json.tool), `-` being a standard stream, and reports whether there is at most one: a second is a file written.
func (w *walker) inOut(ops []word) bool {
	for i, o := range ops {
		switch {
		case o.text == "-":
		case i == 0:
			w.readPath(o)
		default:
			w.writePath(o)
		}
	}
	return len(ops) <= 1
}

// cdCmd allows `cd DIR` (and -L, -P): the directory is a read path, and the paths after it resolve against it.
// `cd` alone goes home. `cd -`, an expansion, a relative directory under $CDPATH, or -e/-@ leave the directory
// unknown, and what follows asks.
func cdCmd(w *walker, _ string, args []word) bool {
	i := 0
	for i < len(args) && args[i].lit && (args[i].text == "-L" || args[i].text == "-P") {
		i++
	}
	if i < len(args) && args[i].lit && args[i].text == "--" {
		i++
	}
	target := word{text: "~", lit: true, tilde: true}
	switch rest := args[i:]; {
	case len(rest) == 0:
	case len(rest) == 1 && rest[0].fixed() && rest[0].text != "-" && !strings.HasPrefix(rest[0].text, "-"):
		target = rest[0]
	default:
		w.a.Opaque = true
		w.dirs = nil
		return len(rest) == 1 && !rest[0].split
	}
	w.readPath(target)
	if w.env == nil {
		return true
	}
	t := target.text
	if w.env.CDPath != "" && !filepath.IsAbs(t) && !target.tilde && t != "." && t != ".." &&
		!strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
		w.dirs = nil // $CDPATH may send it elsewhere
		return true
	}
	dirs, ok := w.absPaths(t, target.tilde)
	if !ok {
		dirs = nil
	}
	w.dirs = dirs
	return true
}

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
	ok := findWords(w, args)
	if !ok && w.dashGlob {
		// The text is read-only, so a glob here expanded to an action or an option (a file named -delete).
		w.ask("A glob in this `find` command expands to words riot would not allow there (a file named like an option), so running it needs the user's approval. Quote the pattern: `-name '*.go'`.")
	}
	return ok
}

// findPattern are the tests whose value is a pattern, which an unquoted glob may give: bash expands it in the
// directory (to one name, or to itself when nothing matches), and find matches with what it gets.
var findPattern = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname", "-regex", "-iregex"}

// findWords is findCmd's judgement of the words: every word flagSafe (no expansion can give an action) but a
// glob pattern after one of findPattern.
func findWords(w *walker, args []word) bool {
	safe := true
	for j, a := range args {
		pattern := a.lit && j > 0 && slices.Contains(findPattern, args[j-1].text)
		safe = safe && (a.flagSafe() || pattern)
	}
	return findActions(w, args) && safe
}

// findActions allows find without the actions that run programs, delete, or write files.
func findActions(w *walker, args []word) bool {
	i, follow := 0, false
	for i < len(args) && (is(args[i].text, "-H", "-L", "-P") || strings.HasPrefix(args[i].text, "-O")) {
		follow = args[i].text == "-L" || args[i].text != "-P" && follow
		i++
	}
	if i < len(args) && args[i].text == "-D" {
		i += 2
	}
	if i < len(args) && args[i].text == "--" { // `find -- /x` searches /x
		i++
	}
	var starts []word
	for i < len(args) && !strings.HasPrefix(args[i].text, "-") && !is(args[i].text, "(", "!", ")", ",") {
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 && !slices.ContainsFunc(args, func(a word) bool { return a.text == "-files0-from" }) {
		starts = []word{{text: ".", lit: true}}
	}
	for _, p := range starts {
		w.readPath(p)
	}
	ok := true
	for ; i < len(args); i++ {
		t := args[i].text
		if is(t, "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf") {
			ok = false
		}
		if is(t, "-fls", "-fprint", "-fprint0", "-fprintf") && i+1 < len(args) {
			w.writePath(args[i+1])
		}
		follow = follow || t == "-follow"
		if (strings.HasPrefix(t, "-newer") || is(t, "-anewer", "-cnewer", "-samefile", "-files0-from")) && i+1 < len(args) {
			w.readPath(args[i+1])
		}
		if t == "-files0-from" {
			w.ask("`find -files0-from` reads its starting points from a list riot cannot check before it runs, so running it needs the user's approval. Name the starting points as operands instead.")
		}
	}
	for _, p := range starts {
		w.walkPath(p, follow)
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

// unlistedLists are options of commands off the allow-list that make them read a list of files (or arguments)
// from a file: with an allow rule for the command, the files it reads are still unseen, so the call asks.
var unlistedLists = map[string][]string{
	"tar":    {"-T", "--files-from"},
	"xargs":  {"-a", "--arg-file"},
	"rsync":  {"--files-from", "--include-from", "--exclude-from"},
	"cpio":   {"-E", "--pattern-file"},
	"zip":    {"-@", "--names-stdin"},
	"du":     {"--files0-from"},
	"wc":     {"--files0-from"},
	"sort":   {"--files0-from"},
	"md5sum": {"-c", "--check"},
}

// unlistedLists asks for a list option of a command off the allow-list, attached (-Tlist, --files-from=x),
// clustered (-cT) or alone.
func (w *walker) unlistedLists(name string, args []word) {
	for _, a := range args {
		if a.text == "--" {
			return
		}
		for _, o := range unlistedLists[name] {
			n, _, _ := strings.Cut(a.text, "=")
			short := len(o) == 2 && strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") &&
				strings.IndexByte(a.text[1:], o[1]) >= 0
			if is(n, o) || short {
				w.ask(fmt.Sprintf("`%s %s` reads the names of the files it works on from a list riot cannot check before it runs, so running it needs the user's approval.", name, o))
				return
			}
		}
	}
}

// unlistedRecursion are commands off the allow-list that read trees: with an allow rule for the command, the
// denied files in a tree they copy or archive are still read. The short flags (letters of a cluster) and long
// options that make them recurse, follow symlinks or stop following them; whether they follow by default; and
// whether the last operand is the destination.
var unlistedRecursion = map[string]struct {
	recurse, follow, nofollow    string
	longRecurse, longFollow      []string
	longNoFollow                 []string
	followByDefault, destination bool
}{
	"cp":    {recurse: "rRa", follow: "L", longRecurse: []string{"--recursive", "--archive"}, longFollow: []string{"--dereference"}, destination: true},
	"rsync": {recurse: "ra", follow: "L", longRecurse: []string{"--recursive", "--archive"}, longFollow: []string{"--copy-links"}, destination: true},
	"scp":   {recurse: "r", destination: true},
	"tar":   {recurse: "c", follow: "h", longRecurse: []string{"--create"}, longFollow: []string{"--dereference"}},
	"zip":   {recurse: "r", nofollow: "y", longRecurse: []string{"--recurse-paths"}, longNoFollow: []string{"--symlinks"}, followByDefault: true},
}

// unlistedRecursive walks the trees a copying or archiving command reads (see unlistedRecursion), so that a
// denied file in them is denied and a followed symlink out of the roots asks. Its operands are not made subjects:
// only what the walk finds is. Option values count as operands (walking one more path only finds more).
func (w *walker) unlistedRecursive(name string, args []word) {
	r, ok := unlistedRecursion[name]
	if !ok || w.env == nil {
		return
	}
	recursive, follow := false, r.followByDefault
	var ops []word
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		cluster, isOpt := strings.CutPrefix(t, "-")
		if i == 0 && name == "tar" && !isOpt {
			cluster, isOpt = t, true // `tar czf x.tgz dir`: the first word is a cluster
		}
		switch {
		case !isOpt || t == "-":
			ops = append(ops, args[i])
		case strings.HasPrefix(cluster, "-"):
			n, _, _ := strings.Cut(t, "=")
			recursive = recursive || slices.Contains(r.longRecurse, n)
			follow = follow && !slices.Contains(r.longNoFollow, n) || slices.Contains(r.longFollow, n)
			if name == "tar" && is(n, "--directory") {
				w.ask("`tar --directory` reads its operands from another directory, which riot cannot check before it runs, so running it needs the user's approval.")
			}
		default:
			recursive = recursive || strings.ContainsAny(cluster, r.recurse)
			follow = follow && (r.nofollow == "" || !strings.ContainsAny(cluster, r.nofollow)) ||
				r.follow != "" && strings.ContainsAny(cluster, r.follow)
			if name == "tar" && strings.Contains(cluster, "C") {
				w.ask("`tar -C` reads its operands from another directory, which riot cannot check before it runs, so running it needs the user's approval.")
			}
		}
	}
	if !recursive {
		return
	}
	if r.destination && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	for _, o := range ops {
		w.walkPath(o, follow)
		if !follow || !o.lit {
			continue
		}
		abs, _ := w.absPaths(o.text, o.tilde)
		for _, a := range abs {
			if real, err := filepath.EvalSymlinks(a); err == nil && !w.inRoots(real) {
				w.ask(fmt.Sprintf("`%s` follows symlinks, and %s leads out of the workspace (to %s), so running it needs the user's approval.", name, a, real))
			}
		}
	}
}
