package bash

import (
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
	if l, ok := wd.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
		t.tilde = true
	}
	var b strings.Builder
	w.parts(wd.Parts, false, &b, &t)
	if t.lit {
		t.text = b.String()
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
			t.lit = false
			t.split = t.split || !quoted
			w.param(p)
		case *syntax.ExtGlob:
			t.lit = false
		default: // CmdSubst, ProcSubst, ArithmExp (which can assign: $((x=1)))
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
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
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
