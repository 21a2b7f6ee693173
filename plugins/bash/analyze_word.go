package bash

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the classifier sees it.
type word struct {
	// text is the word after quote removal when lit, else its source text. Source text of a word that is not
	// literal always holds a `$`, a backquote or a paren, so it never equals a command name or option we allow.
	text string
	// lit is true when the word holds no expansion: no parameter, command, arithmetic or process substitution,
	// and no $'..' or $".." quoting (whose decoding we do not model).
	lit bool
	// glob is true when text holds an unquoted *, ?, [ or {: pathname or brace expansion may turn the word into
	// other words, or several.
	glob bool
	// globLead is true when that expansion starts at the first character, so the result may start with '-'.
	globLead bool
	// split is true when the word holds an unquoted parameter expansion: it may split into several words.
	split bool
	// tilde is true when the word starts with an unquoted ~ (tilde expansion).
	tilde bool
	// tracked is true when the word is an unquoted $(git ls-files): file names below the directory, which a
	// walk of it can check (only with an Env).
	tracked bool
	// bare are the offsets in text of the characters bash reads unquoted for their meaning: glob and brace
	// characters, and a leading tilde prefix (`~` or `~user`, and the slash after it).
	bare []int
}

// shell is the word as bash text that reads back as this word: its source text when it is not literal, else
// its text quoted where needed, with the bare characters left bare. A command subject is these joined, so the
// core, which parses a subject into words again, sees the words the analysis saw (`-c 'a; b'` is one word).
// first: the word names the command, where an `=` (an assignment) or a reserved word must be quoted too.
func (t word) shell(first bool) string {
	if !t.lit {
		return t.text
	}
	var b strings.Builder
	from := 0
	for _, at := range append(t.bare[:len(t.bare):len(t.bare)], len(t.text)) {
		if at > from {
			b.WriteString(quoteWord(t.text[from:at], first && from == 0))
		}
		if at < len(t.text) {
			b.WriteByte(t.text[at])
		}
		from = at + 1
	}
	switch {
	case b.Len() == 0:
		return "''" // an empty word is still a word
	case first && len(t.bare) > 0 && !oneName(b.String()):
		// Bare characters can make a name something else (`A[` an array assignment, `[[` a keyword): quoted
		// whole, the word reads as the same text, only no longer a glob.
		return quoteWord(t.text, true)
	}
	return b.String()
}

// oneName reports whether s parses as one simple command of one word.
func oneName(s string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(c.Assigns) == 0 && len(c.Args) == 1 && len(f.Stmts[0].Redirs) == 0
}

// quoteWord quotes s where bash would read it otherwise. After the command's name an `=` and a reserved word
// are plain text, and stay unquoted for the user who reads the subject.
func quoteWord(s string, first bool) string {
	probe := s
	if !first {
		probe = "x" + strings.ReplaceAll(s, "=", "x") // no reserved word starts with x
	}
	q, err := syntax.Quote(probe, syntax.LangBash)
	switch {
	case err != nil:
		return s // a NUL byte, which bash cannot pass: the core reads the subject as no plain command
	case q == probe:
		return s
	}
	q, _ = syntax.Quote(s, syntax.LangBash)
	return q
}

// fixed reports whether the word is exactly one argument whose value is text.
func (t word) fixed() bool { return t.lit && !t.glob }

// flagSafe reports whether the word cannot become an option the text does not show: it is fixed, or a glob whose
// expansions all start with the same literal character, which is not '-' (`./*`, `src/*.go`, but not `*`).
func (t word) flagSafe() bool {
	return t.lit && (!t.glob || !t.globLead && t.text[0] != '-')
}

// word analyses wd: its text, and whether it is literal. Any substitution in it, or a parameter expansion that can
// assign or evaluate code, makes the command not read-only; the commands inside substitutions become subjects.
func (w *walker) word(wd *syntax.Word) word {
	t := word{lit: true}
	tilde := tildePrefix(wd.Parts)
	t.tilde = tilde > 0
	var b strings.Builder
	w.parts(wd.Parts, false, &b, &t)
	if cs, ok := wd.Parts[0].(*syntax.CmdSubst); ok && len(wd.Parts) == 1 && w.env != nil && lsFiles(cs) {
		t.tracked = true
	}
	if t.lit {
		t.text = b.String()
		// The prefix came unquoted and unescaped: its characters are where text begins.
		for i := range tilde {
			if !slices.Contains(t.bare, i) {
				t.bare = append(t.bare, i)
			}
		}
		slices.Sort(t.bare)
	} else {
		t.text = w.text(wd)
	}
	return t
}

func (w *walker) parts(parts []syntax.WordPart, quoted bool, b *strings.Builder, t *word) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			unquote(p.Value, quoted, b, t)
		case *syntax.SglQuoted:
			t.lit = t.lit && !p.Dollar
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			t.lit = t.lit && !p.Dollar
			w.parts(p.Parts, true, b, t)
		case *syntax.ParamExp:
			if v, ok := w.loopValue(p, quoted); ok {
				b.WriteString(v)
				continue
			}
			t.lit = false
			t.split = t.split || !quoted
			w.param(p)
		case *syntax.ExtGlob:
			t.lit = false
		case *syntax.CmdSubst:
			// Its commands are judged like any other; its output is a value the analysis cannot know.
			t.lit = false
			t.split = t.split || !quoted
			w.nested(p)
		case *syntax.ArithmExp:
			t.lit = false
			if !constArithm(p.X) {
				w.deny() // it can assign ($((x=1))), and a variable's value is evaluated as an expression
			}
			w.nested(p)
		default: // ProcSubst: its command runs beside this one, reading or writing a pipe
			t.lit = false
			w.deny()
			w.nested(p)
		}
	}
}

// unquote appends the value of a literal word part: a backslash quotes the next character (inside double quotes,
// only $ ` " \ and newline). Unquoted glob and brace characters are noted.
func unquote(v string, quoted bool, b *strings.Builder, t *word) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && (!quoted || strings.IndexByte("$`\"\\\n", v[i+1]) >= 0):
			i++
			b.WriteByte(v[i])
		case !quoted && strings.IndexByte("*?[{", c) >= 0:
			t.globLead = t.globLead || b.Len() == 0
			t.glob = true
			t.bare = append(t.bare, b.Len())
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

// tildePrefix is the length of the tilde prefix bash expands at the start of a word, `~`, `~user` or `~+` and
// the slash after it, or 0 when it expands none: bash expands a prefix only when no character of it, up to the
// first unquoted slash or the word's end, is quoted or escaped.
func tildePrefix(parts []syntax.WordPart) int {
	l, ok := parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(l.Value, "~") {
		return 0
	}
	prefix, _, slash := strings.Cut(l.Value, "/")
	if !slash && len(parts) > 1 || strings.Contains(prefix, `\`) {
		return 0
	}
	if slash {
		return len(prefix) + 1
	}
	return len(prefix)
}

// param allows a parameter expansion that only reads: $x, ${x}, ${#x}, ${x:-w}, ${x#w}, ${x/a/b}, ${x^^} and the
// like, with literal or "@"/"*" subscripts and slices. Not ${x:=w} (assigns), ${x@P} (prompt expansion runs
// $(..)), ${!x} (indirection: a value like a[$(cmd)] runs cmd), or a subscript or slice that is an expression (it is
// evaluated, with the same effect).
func (w *walker) param(p *syntax.ParamExp) {
	if p.Excl || !plainIndex(p.Index) || p.Slice != nil && (!plainIndex(p.Slice.Offset) || !plainIndex(p.Slice.Length)) {
		w.deny()
		w.nested(p)
		return
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.OtherParamOps:
			w.deny()
		}
		w.optWord(p.Exp.Word)
	}
	if p.Repl != nil {
		w.optWord(p.Repl.Orig)
		w.optWord(p.Repl.With)
	}
}

// optWord checks a word that may be absent (`${x^^}`, `${x/}`).
func (w *walker) optWord(wd *syntax.Word) {
	if wd != nil {
		w.word(wd)
	}
}

// plainIndex reports whether an array subscript or slice bound is absent, a number, @ or *.
func plainIndex(x syntax.ArithmExpr) bool {
	if x == nil {
		return true
	}
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	v := wd.Lit()
	return v == "@" || v == "*" || isDigits(v)
}

// loopValue is the value of a `for` loop's variable in the body being walked, for a plain $f or ${f}. Unquoted,
// a value that would split or glob is not known as one word.
func (w *walker) loopValue(p *syntax.ParamExp, quoted bool) (string, bool) {
	if p.Param == nil {
		return "", false
	}
	v, ok := w.vars[p.Param.Value]
	if !ok || p.Flags != nil || p.Excl || p.Length || p.Width || p.IsSet || p.NestedParam != nil || p.Index != nil ||
		len(p.Modifiers) > 0 || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil {
		return "", false
	}
	if !quoted && strings.ContainsAny(v, " \t\n*?[{\\") {
		return "", false
	}
	return v, true
}

// constArithm reports whether an arithmetic expression is only numbers and operators that do not assign: no
// variable, whose value bash would evaluate as an expression in turn.
func constArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return isArithmNumber(x.Lit()) // Lit is "" unless the word is all literal
	case *syntax.ParenArithm:
		return constArithm(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && constArithm(x.X)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
			return false
		}
		return constArithm(x.X) && constArithm(x.Y)
	}
	return false
}

// isArithmNumber reports whether s is a number bash reads without looking up a name: decimal, 0x hex, octal, or
// BASE#digits with letters, which bash never takes for a variable.
func isArithmNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; strings.IndexByte("#@_", c) < 0 && (c < '0' || c > '9') && (c|0x20 < 'a' || c|0x20 > 'z') {
			return false
		}
	}
	return true
}

// lsFiles reports whether a substitution is `git ls-files` with only options that list names relative to the
// current directory and below it: no path operand (`..` would go up), no --format (which prints any text).
func lsFiles(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 || cs.Stmts[0].Background {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) < 2 || call.Args[0].Lit() != "git" || call.Args[1].Lit() != "ls-files" {
		return false
	}
	for _, a := range call.Args[2:] {
		switch a.Lit() {
		case "-c", "--cached", "-m", "--modified", "-o", "--others", "-d", "--deleted", "--exclude-standard", "-s",
			"--stage", "--full-name":
		default:
			return false
		}
	}
	return true
}
