package bash

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Analysis is what parsing a command teaches without running it.
type Analysis struct {
	// ReadOnly is true only if every simple command can neither execute arbitrary code nor change state (issue 5 rules).
	// A parse error means false.
	ReadOnly bool
	// Commands are the simple commands, normalised for rule matching: words joined by one space after quote removal
	// of literal words (`git  log` -> "git log"; `'r''m' x` -> "rm x"); a word that is not a literal (expansion,
	// substitution) is kept as its source text. Used as command permission subjects; a compound `a && b` yields both,
	// and so does a command nested in a substitution (`echo $(rm x)` yields "echo $(rm x)" and "rm x"). `VAR=x`
	// prefixes stay in the entry. A construct that is not a simple command but runs code or assigns (a function
	// definition, `export`, `let`, `((..))`, `[[..]]`, a `for` header, `time`, `coproc`) is one entry of its source
	// text.
	// On a parse error: the whole command, trimmed, as one entry (so only an exact/prefix rule on it can match).
	Commands []string
	// ReadPaths are the file operands of read commands and the targets of input redirections `< file`, as written
	// (literal words after quote removal), for path permission subjects of kind read; the runtime resolves them
	// against the shell's cwd. A leading unquoted `~` or `~user` stays as written and means a home directory (the
	// runtime expands it); a quoted `~` is a file name and comes back as "./~...". Glob words come back as the
	// pattern. Commands that read the working directory when given no path (ls, find, tree, du, rg, grep -r) add ".".
	ReadPaths []string
	// WritePaths are the targets of output redirections other than /dev/null (`> f`, `>> f`, `&> f`, `<> f`,
	// `>& f`), as written, for path permission subjects of kind write.
	WritePaths []string
	// Opaque is true when some path a command reads or writes could not be resolved statically: a path operand, a
	// redirection target or any argument of a path-reading command is an expansion (`cat $F`, `grep "$p" f`), or
	// the command did not parse. Path rules cannot be checked then; the core treats the call conservatively (Ask).
	Opaque bool
	// NoMatchExit is the name of the last command of the last pipeline when it is grep, rg, diff, cmp, test or [ —
	// for whom exit status 1 means "no match / differ / false", not failure. Otherwise "".
	NoMatchExit string
	// Asks are why the call cannot be judged without the user, each a sentence for the model: a file list the
	// command reads that is not visible now, a glob past the bound, a recursive read that can leave the roots.
	// Only AnalyzeIn finds most of them.
	Asks []string
	// Denied are the files a recursive read would reach that env.Denied covers (also in ReadPaths). AnalyzeIn
	// only.
	Denied []string
}

// Analyze parses command with mvdan.cc/sh/v3/syntax (Bash dialect) and walks the tree. It never panics.
func Analyze(command string) (a Analysis) {
	defer func() {
		if recover() != nil {
			a = unparsed(command)
		}
	}()
	return analyze(command)
}

// analyze is Analyze without the recover, so that the fuzz test sees a panic.
func analyze(command string) Analysis {
	f, err := parse(command)
	if err != nil {
		return unparsed(command)
	}
	// Nothing to run is not read-only: the runtime rejects an empty command, and "read-only" should be earned.
	w := walker{src: command, ro: len(f.Stmts) > 0}
	w.stmts(f.Stmts)
	w.a.ReadOnly = w.ro
	w.a.NoMatchExit = w.noMatchExit(f.Stmts)
	return w.a
}

// parse parses a command as Bash. A command holding a byte on which mvdan.cc/sh and bash disagree is refused
// rather than parsed: mvdan.cc/sh takes a carriage return, form feed or vertical tab for a blank (or, printed,
// for a newline) where bash reads it as part of a word, and bash stops at a NUL. Inside single quotes the two
// agree on a carriage return: each reads every byte up to the next quote as it is. So a carriage return is
// allowed where the tree puts it inside plain single quotes (`echo 'a<CR>b'`, issue 29): before the first one
// both read the same text, so both open that quote at the same place, and close it at the same next quote.
// The quoted value must also be the source text exactly (mvdan.cc/sh drops the CR of a CRLF even there), and
// Canonical checks that printing keeps it. Outside single quotes it is refused, and so are a form feed and a
// vertical tab anywhere (the printer turns them into a newline and a blank even inside quotes), any other
// control character (bash's own quoting uses \x01 and \x7f internally), a NUL and a byte that is not UTF-8.
func parse(command string) (*syntax.File, error) {
	if i := strings.IndexFunc(command, riskyAnywhere); i >= 0 {
		return nil, errRisky
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, err
	}
	if strings.IndexByte(command, '\r') >= 0 && !crsQuoted(f, command) {
		return nil, errRisky
	}
	return f, nil
}

// crsQuoted reports whether every carriage return of src lies inside the value of a plain single-quoted string
// of f, which holds the source text unchanged.
func crsQuoted(f *syntax.File, src string) bool {
	quoted := make([]bool, len(src))
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		q, isQ := n.(*syntax.SglQuoted)
		if !isQ || q.Dollar {
			return true
		}
		from, to := int(q.Left.Offset())+1, int(q.Right.Offset())
		if from > to || to > len(src) || src[from:to] != q.Value {
			ok = false
			return false
		}
		for i := from; i < to; i++ {
			quoted[i] = true
		}
		return true
	})
	if !ok {
		return false
	}
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' && !quoted[i] {
			return false
		}
	}
	return true
}

var errRisky = errors.New("a control character")

// riskyRune reports a control character other than tab and newline, and a byte that is not UTF-8.
func riskyRune(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r == utf8.RuneError
}

// riskyAnywhere is riskyRune but for the carriage return, which single quotes make safe (crsQuoted).
func riskyAnywhere(r rune) bool {
	return riskyRune(r) && r != '\r'
}

// askRisky is the Ask reason of a command refused by parse.
const askRisky = "This command holds a control character (a carriage return, form feed, vertical tab or the like) or a byte that is not UTF-8, which riot's parser and bash read differently, so riot cannot check what would run and running it needs the user's approval. Remove the character: use plain \\n line endings, and printf '\\r' where one is needed (a carriage return inside single quotes is fine)."

// unparsed is the fail-closed analysis of a command that did not parse.
func unparsed(command string) Analysis {
	a := Analysis{Commands: []string{strings.TrimSpace(command)}, Opaque: true}
	if riskyText(command) {
		a.Asks = []string{askRisky}
	}
	return a
}

// riskyText reports whether parse refuses command for a control character. It is called where a panic was
// recovered, so it recovers too, and then judges by the characters alone.
func riskyText(command string) (risky bool) {
	defer func() {
		if recover() != nil {
			risky = strings.IndexFunc(command, riskyRune) >= 0
		}
	}()
	_, err := parse(command)
	return errors.Is(err, errRisky)
}

// walker collects an Analysis over one syntax tree. ro starts true and any construct that could run code or change
// state clears it; the walk always goes on, so that every nested command is still collected as a subject.
type walker struct {
	src string
	a   Analysis
	ro  bool
	// env is nil for Analyze, which looks at the text alone.
	env *Env
	// dirs are the directories the command may be in at this point of the walk (several after `a && cd x`);
	// none known when empty. Only with env.
	dirs []string
	// vars are the values a `for` loop's variable takes in the body being walked. Only with env.
	vars map[string]string
	// funcs is set once a function is defined: a later command may be it, and change directory.
	funcs bool
	// loopWalks is how many times the body being walked is walked: the product of the enclosing loops' values.
	loopWalks int
	// assigned is set once a variable without a lowercase letter is assigned (assign).
	assigned bool
	// dashGlob is set once a glob expands to a name that starts with '-', which a command takes for an option.
	dashGlob bool
}

func (w *walker) deny() { w.ro = false }

// text is the source text of n.
func (w *walker) text(n syntax.Node) string { return w.slice(n.Pos(), n.End()) }

// slice is the source text between two positions, clamped: positions come from the parser, but a bad one must not
// panic.
func (w *walker) slice(from, to syntax.Pos) string {
	i, j := min(int(from.Offset()), len(w.src)), min(int(to.Offset()), len(w.src))
	return w.src[min(i, j):j]
}

func (w *walker) subject(s string) { w.a.Commands = append(w.a.Commands, s) }

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s.Background || s.Coprocess || s.Disown {
		w.deny()
	}
	if s.Cmd != nil {
		w.command(s.Cmd)
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
}

func (w *walker) command(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.BinaryCmd:
		at := w.dirs
		w.stmt(c.X)
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Each side of a pipeline runs in a subshell: a cd in it does not last.
			w.dirs = at
			w.stmt(c.Y)
			w.dirs = at
			return
		}
		after := w.dirs // `a && b`, `a || b`: b may not run
		w.stmt(c.Y)
		w.dirs = unionDirs(after, w.dirs)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		at := w.dirs
		w.stmts(c.Stmts)
		w.dirs = at
	case *syntax.IfClause:
		var outs [][]string
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond)
			at := w.dirs
			w.stmts(c.Then)
			outs = append(outs, w.dirs)
			w.dirs = at
		}
		w.dirs = unionDirs(append(outs, w.dirs)...)
	case *syntax.WhileClause:
		w.loop(func() {
			w.stmts(c.Cond)
			w.stmts(c.Do)
		})
	case *syntax.CaseClause:
		w.word(c.Word)
		w.loop(func() {
			for _, item := range c.Items {
				for _, p := range item.Patterns {
					w.word(p)
				}
				w.stmts(item.Stmts)
			}
		})
	case *syntax.ForClause:
		w.loop(func() { w.forClause(c) })
	case *syntax.TestClause:
		w.subject(w.text(c))
		w.testExpr(c.X)
	case *syntax.DeclClause:
		if c.Variant != nil && c.Variant.Value == "export" {
			w.subject(w.text(c))
			for _, as := range c.Args {
				if as.Name == nil { // an option: -n unexports, -f exports a function
					w.deny()
					w.nested(as)
					continue
				}
				w.assign(as)
			}
			return
		}
		w.declared(c)
	default:
		w.declared(c)
	}
}

// declared judges a construct that runs code, assigns or defines: a function definition, coproc, time, let,
// ((..)), declare/local/readonly. None is read-only. Its text is a subject, and so is every command nested in
// it.
func (w *walker) declared(c syntax.Command) {
	{
		w.deny()
		w.subject(w.text(c))
		w.nested(c)
		switch c.(type) {
		case *syntax.FuncDecl:
			w.funcs = true
		case *syntax.DeclClause, *syntax.LetClause, *syntax.ArithmCmd:
		default: // time and coproc run their command in this shell, or beside it
			w.dirs = nil
		}
	}
}

// assign judges `name=value` (alone or after export): it only sets a variable when the value's expansions are
// read-only and the subscript, if any, is a number (an expression would be evaluated). A name without a
// lowercase letter may be PATH, IFS, LD_PRELOAD, TAR_OPTIONS or another that changes what a later command runs
// or reads: after one, only the builtins that print stay read-only (printOnly).
func (w *walker) assign(as *syntax.Assign) {
	if !plainIndex(as.Index) {
		w.deny()
	}
	if as.Value != nil {
		w.word(as.Value)
	}
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if !plainIndex(el.Index) {
				w.deny()
			}
			if el.Value != nil {
				w.word(el.Value)
			}
		}
	}
	if strings.ToUpper(as.Name.Value) == as.Name.Value {
		w.assigned = true
	}
}

// printOnly are the builtins that stay read-only after an upper-case variable is set: they print, and no
// variable makes them run or read anything.
var printOnly = map[string]bool{"echo": true, "printf": true, "true": true, "false": true, "pwd": true}

// loop walks a construct whose body may run any number of times: a cd in it leaves the directory unknown.
func (w *walker) loop(body func()) {
	at := w.dirs
	before := w.assigned
	body()
	if w.assigned && !before {
		w.deny() // the next turn of the loop runs its commands after the assignment
	}
	if !slicesEqual(at, w.dirs) {
		w.dirs = nil
	}
}

// maxDirs bounds the directories tracked at once; past it, none is known.
const maxDirs = 8

// unionDirs is every directory of the sets, or none known when one set is unknown or the union is too large.
func unionDirs(sets ...[]string) []string {
	var out []string
	for _, set := range sets {
		if len(set) == 0 {
			return nil
		}
		for _, d := range set {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if len(out) > maxDirs {
		return nil
	}
	return out
}

func slicesEqual(a, b []string) bool { return slices.Equal(a, b) }

// nested collects, without judging them, the statements somewhere below n (a function body, the commands of a
// substitution in an assignment). Whatever holds them has already been denied.
func (w *walker) nested(n syntax.Node) {
	// What is nested runs in a subshell (a substitution) or not now (a function body): a cd in it does not move
	// the commands after it. (time and coproc are handled by their caller.)
	at := w.dirs
	defer func() { w.dirs = at }()
	syntax.Walk(n, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok {
			w.stmt(s)
			return false
		}
		return true
	})
}

// forClause allows `for name in words` when the body is read-only: the loop only assigns its variable. A variable
// without a lowercase letter could be PATH, IFS, BASH_ENV or another that changes what later commands run, so it
// is not read-only; nor are C-style loops (arithmetic can assign) or select.
func (w *walker) forClause(c *syntax.ForClause) {
	w.subject(w.slice(c.Pos(), c.Loop.End()))
	it, ok := c.Loop.(*syntax.WordIter)
	if !ok || c.Select || strings.ToUpper(it.Name.Value) == it.Name.Value {
		w.deny()
		w.nested(c.Loop)
		w.stmts(c.Do)
		return
	}
	var values []word
	for _, item := range it.Items {
		values = append(values, w.expandArg(item)...)
	}
	if w.env == nil || it.InPos == (syntax.Pos{}) || w.loopWalks*len(values) > maxLoopValues || slices.ContainsFunc(values, func(v word) bool { return !v.fixed() }) {
		w.stmts(c.Do) // without its values, a use of the variable is an expansion, as for any variable
		return
	}
	// With its values known, the body is walked once per value, so that "$f" is each file the loop names.
	prev, had := w.vars[it.Name.Value]
	if w.vars == nil {
		w.vars = map[string]string{}
	}
	outer := w.loopWalks
	w.loopWalks *= max(len(values), 1)
	for _, v := range values {
		w.vars[it.Name.Value] = v.text
		w.stmts(c.Do)
	}
	w.loopWalks = outer
	if had {
		w.vars[it.Name.Value] = prev
	} else {
		delete(w.vars, it.Name.Value)
	}
}

// maxLoopValues bounds how many times a loop body is walked, nested loops multiplied.
const maxLoopValues = 64

func (w *walker) call(c *syntax.CallExpr) {
	at := len(w.a.Commands)
	w.subject("")
	parts := make([]string, 0, len(c.Assigns)+len(c.Args))
	for _, as := range c.Assigns {
		parts = append(parts, w.text(as))
		if len(c.Args) == 0 { // `VAR=x` alone sets a shell variable
			w.assign(as)
			continue
		}
		// `VAR=x cmd` changes what cmd does (PATH, LD_PRELOAD, GIT_*).
		w.deny()
		w.nested(as)
	}
	var words []word
	for _, arg := range c.Args {
		words = append(words, w.expandArg(arg)...)
		if w.env != nil && len(words) > w.env.Limit {
			// Each word is bounded, but not their product across words: stop before it grows.
			w.ask("This command's braces and globs expand to more words than riot checks, so running it needs the user's approval. Name fewer files at once.")
			w.a.Opaque = true
			words = words[:w.env.Limit]
			break
		}
	}
	for i, t := range words {
		parts = append(parts, t.shell(i == 0))
	}
	w.a.Commands[at] = strings.Join(parts, " ")
	if len(words) == 0 {
		return
	}
	name := words[0].text
	if sys := systemName(name); sys != "" && words[0].fixed() {
		name = sys // `/usr/bin/cat` is cat, and PATH does not matter
	}
	if _, listed := allowList[name]; dirChangers[name] || !listed && (!words[0].lit || w.funcs) {
		w.dirs = nil // it may be a function or a builtin that changes directory
	}
	if w.assigned && !printOnly[name] {
		w.deny()
	}
	wasRO := w.ro
	w.simple(name, words[1:])
	// A program found on PATH in the roots is the project's code, whatever its name: checked only while the
	// call is read-only, since an allow rule is the user's answer for any other.
	if wasRO && w.ro && name == words[0].text && !bashBuiltins[name] && !w.funcs {
		w.checkResolved(name)
	}
}

// dirChangers are the builtins besides cd that can change the shell's directory.
var dirChangers = map[string]bool{"pushd": true, "popd": true, "source": true, ".": true, "eval": true, "builtin": true, "command": true}

// redirect allows input redirections, heredocs, fd duplication (`2>&1`, `>&2`, `<&0`, `>&-`) and output to
// /dev/null. Anything else may write a file.
func (w *walker) redirect(r *syntax.Redirect) {
	if r.N != nil && !isDigits(r.N.Value) {
		w.deny() // {var}>... assigns var
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		w.word(r.Word) // the delimiter is not expanded
		if r.Hdoc != nil {
			w.word(r.Hdoc) // an unquoted heredoc body expands: $(..) in it runs
		}
		return
	}
	// Bash expands a target's braces and globs, and refuses one that gives several words ("ambiguous
	// redirect"); each is a path here.
	for _, t := range w.expandArg(r.Word) {
		w.redirectTo(r.Op, t)
	}
}

func (w *walker) redirectTo(op syntax.RedirOperator, t word) {
	switch op {
	case syntax.RdrIn:
		w.readPath(t)
	case syntax.WordHdoc:
	case syntax.DplIn, syntax.DplOut:
		// A word that is not literal keeps its source text, so it is neither digits nor "-" nor "/dev/null".
		if !isDigits(t.text) && t.text != "-" {
			w.deny()
			if op == syntax.DplOut {
				w.writePath(t) // `>&file` is `&>file`
			}
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if t.text != "/dev/null" || !t.lit {
			w.deny()
			w.writePath(t)
		}
	default: // <> opens for writing too
		w.deny()
		w.writePath(t)
	}
}

// testExpr checks a [[ .. ]] expression. Its words are not split or globbed, but arithmetic comparisons evaluate
// their operands as expressions, and -v evaluates an array subscript: both run `$(..)` hidden in a variable's value.
func (w *walker) testExpr(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			w.deny()
		}
		l, lok := x.X.(*syntax.Word)
		r, rok := x.Y.(*syntax.Word)
		if lok && rok && fileCompare[x.Op.String()] {
			w.readPath(w.word(l))
			w.readPath(w.word(r))
			return
		}
		w.testExpr(x.X)
		w.testExpr(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet {
			w.deny()
		}
		if wd, ok := x.X.(*syntax.Word); ok && fileTests[x.Op.String()] {
			w.readPath(w.word(wd))
			return
		}
		w.testExpr(x.X)
	case *syntax.ParenTest:
		w.testExpr(x.X)
	case *syntax.Word:
		w.word(x)
	default:
		w.deny()
	}
}

// fileTests are the test operators whose operand is a path; fileCompare the binary ones.
var (
	fileTests = map[string]bool{
		"-a": true, "-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-h": true, "-k": true,
		"-p": true, "-r": true, "-s": true, "-u": true, "-w": true, "-x": true, "-G": true, "-L": true, "-N": true,
		"-O": true, "-S": true,
	}
	fileCompare = map[string]bool{"-nt": true, "-ot": true, "-ef": true}
)

func (w *walker) readPath(t word)  { w.path(&w.a.ReadPaths, t) }
func (w *walker) writePath(t word) { w.path(&w.a.WritePaths, t) }

func (w *walker) path(list *[]string, t word) {
	p := t.text
	switch {
	case t.tracked:
		for _, d := range w.dirs {
			w.trackedFiles(d)
		}
		if len(w.dirs) == 0 {
			w.a.Opaque = true
		}
		return
	case !t.lit:
		w.a.Opaque = true
		return
	case w.env != nil:
		abs, ok := w.absPaths(p, t.tilde)
		if !ok {
			w.a.Opaque = true
			return
		}
		for _, a := range abs {
			addPath(list, a)
		}
		return
	case !t.tilde && strings.HasPrefix(p, "~"):
		p = "./" + p // a quoted ~ is a file name, not a home directory
	}
	addPath(list, p)
}

func addPath(list *[]string, p string) {
	if !slices.Contains(*list, p) {
		*list = append(*list, p)
	}
}

// noMatchCommands exit 1 for "no match", "files differ" or "false".
var noMatchCommands = map[string]bool{"grep": true, "rg": true, "diff": true, "cmp": true, "test": true, "[": true}

// noMatchExit finds the last command of the last pipeline: through the right side of `&&`, `||` and `|`, and into
// a trailing { .. } or ( .. ). A negated or background statement's exit status is not the command's.
func (w *walker) noMatchExit(stmts []*syntax.Stmt) string {
	for len(stmts) > 0 {
		s := stmts[len(stmts)-1]
		if s.Negated || s.Background {
			return ""
		}
		switch c := s.Cmd.(type) {
		case *syntax.BinaryCmd:
			stmts = []*syntax.Stmt{c.Y}
		case *syntax.Block:
			stmts = c.Stmts
		case *syntax.Subshell:
			stmts = c.Stmts
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				return ""
			}
			name := (&walker{src: w.src}).word(c.Args[0]) // a scratch walker: the subjects are already collected
			if noMatchCommands[name.text] {
				return name.text
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
