package permission

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// plainWords parses a command subject as bash text and returns its words
// after quote removal when it is one plain command: one simple command (or
// one export/declare/local/readonly), run in the foreground, whose words
// hold no command, process or arithmetic substitution and whose only
// redirections write nowhere (to /dev/null, or between the streams). ok is
// false for anything else: a separator, a pipe, a substitution (a `$(...)`
// or backquote in double quotes too), a redirection to or from a file, a
// here-doc, a compound command, a comment, a control character, text that
// does not parse. Quoted `;`, `|`, `>` or `$(` inside single quotes are
// literal text of a word, and do not count.
//
// A word that is not literal (`$HOME`, `${x:-y}`) is kept as its source
// text, as the Bash plugin keeps it.
func plainWords(cmd string) (words []string, ok bool) {
	// Bash and the parser differ on a carriage return (a blank to the
	// parser, a character to bash) and the like: refuse them all, and a
	// newline, which separates commands outside quotes.
	if !utf8.ValidString(cmd) || strings.ContainsFunc(cmd, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) > 0 {
		return nil, false
	}
	st := f.Stmts[0]
	if st.Background || st.Coprocess || st.Negated || st.Disown || len(st.Comments) > 0 {
		return nil, false
	}
	for _, r := range st.Redirs {
		if !benign(r) {
			return nil, false
		}
	}
	p := wordParser{src: cmd}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, as := range c.Assigns {
			if !p.assign(as) {
				return nil, false
			}
		}
		for _, w := range c.Args {
			if !p.word(w) {
				return nil, false
			}
		}
	case *syntax.DeclClause:
		p.words = append(p.words, c.Variant.Value)
		for _, as := range c.Args {
			if !p.assign(as) {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	if len(p.words) == 0 {
		return nil, false
	}
	return p.words, true
}

type wordParser struct {
	src   string
	words []string
}

// assign adds NAME=value (or NAME, or a bare word of export) as one word.
func (p *wordParser) assign(as *syntax.Assign) bool {
	if as.Array != nil || as.Index != nil || as.Append {
		return false
	}
	if as.Naked {
		if as.Name != nil {
			p.words = append(p.words, as.Name.Value)
			return true
		}
		return as.Value != nil && p.word(as.Value)
	}
	v := ""
	if as.Value != nil {
		var ok bool
		if v, ok = p.value(as.Value); !ok {
			return false
		}
	}
	p.words = append(p.words, as.Name.Value+"="+v)
	return true
}

func (p *wordParser) word(w *syntax.Word) bool {
	v, ok := p.value(w)
	if ok {
		p.words = append(p.words, v)
	}
	return ok
}

// value is a word's text after quote removal when it is all literal, or
// its source text when it expands a parameter; ok is false when it
// substitutes anything.
func (p *wordParser) value(w *syntax.Word) (string, bool) {
	if !substitutionFree(w) {
		return "", false
	}
	if v, literal := literalWord(w); literal {
		return v, true
	}
	return p.text(w), true // a parameter expansion, an extended glob: as written
}

func (p *wordParser) text(n syntax.Node) string {
	i, j := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || j > len(p.src) || i > j {
		return ""
	}
	return p.src[i:j]
}

// substitutionFree reports whether a word, its parameter expansions
// included (`${x:-$(rm y)}`), runs nothing: no command, process or
// arithmetic substitution (arithmetic can index arrays with commands).
func substitutionFree(w *syntax.Word) bool {
	free := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			free = false
		}
		return free
	})
	return free
}

// unescape removes the backslashes of bash's quote removal: outside quotes
// a backslash escapes any character; inside double quotes only $ ` " \.
// A backslash-newline cannot occur: plainWords refuses newlines.
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!dquoted || strings.IndexByte("$`\"\\", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// benign reports whether a redirection writes nothing anywhere: output to
// /dev/null, or a duplication or closing of a standard stream (`2>&1`,
// `>&2`, `2>&-`).
func benign(r *syntax.Redirect) bool {
	if r.N != nil && !isDigits(r.N.Value) {
		return false // {var}>... assigns var
	}
	lit := r.Word.Lit()
	if len(r.Word.Parts) != 1 || lit == "" {
		return false
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return lit == "/dev/null"
	case syntax.DplOut:
		return isDigits(lit) || lit == "-"
	default:
		return false
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
