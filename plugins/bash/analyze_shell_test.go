package bash

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellTable is how a simple command reaches the core: each word quoted where bash needs it, so that the core,
// which parses the subject into words again, sees the words the analysis saw (issue 34: `Bash(python3:*)` must
// see one -c word, not `import a; print(1)` cut at a separator).
var shellTable = []struct{ cmd, want, why string }{
	{`python3 -c "import a; print(1)"`, `python3 -c 'import a; print(1)'`, "a quoted separator stays inside its word"},
	{`grep "a|b" f`, `grep 'a|b' f`, "a quoted pipe stays inside its word"},
	{`grep -E 'x>y' f`, `grep -E 'x>y' f`, "a quoted redirection operator"},
	{`echo "it's"`, `echo "it's"`, "a single quote inside a word"},
	{`echo ''`, `echo ''`, "an empty word is still a word"},
	{`echo "$HOME" a`, `echo "$HOME" a`, "a word that is not literal keeps its source text"},
	{`git log --format=%H -1`, `git log --format=%H -1`, "an = after the name needs no quotes"},
	{`a\=b x`, `'a=b' x`, "an = in the name would make an assignment"},
	{`'if' x`, `'if' x`, "a reserved word as the name is quoted"},
	{`echo if then`, `echo if then`, "a reserved word as an argument is not"},
	{`ls *.go`, `ls *.go`, "an unexpanded glob stays bare"},
	{`ls "*".go`, `ls '*.go'`, "a quoted star is quoted"},
	{`ls "a b"*.go`, `ls 'a b'*.go`, "quoted text next to a bare glob"},
	{`cat ~/.bashrc`, `cat ~/.bashrc`, "a tilde prefix stays bare"},
	{`cat ~/"a b"`, `cat ~/'a b'`, "a tilde prefix, then quoted text"},
	{`cat ~root/x`, `cat ~root/x`, "a user's tilde prefix"},
	{`cat "~"/x`, `cat '~/x'`, "a quoted tilde does not expand"},
	{`cat ~root"x"`, `cat '~rootx'`, "a prefix with a quoted character does not expand"},
	{`cat ~ro\ot/x`, `cat '~root/x'`, "nor one with an escaped character"},
	{`echo a=~/x`, `echo 'a=~/x'`, "a tilde after = would expand in an argument"},
	{`echo $'a\tb' "a\\b"`, `echo $'a\tb' 'a\b'`, "$'..' keeps its source; an escaped backslash is quoted"},
	{"echo 'a\tb'", "echo $'a\\tb'", "a tab is written as an escape"},
	{`echo a{b,c}d`, `echo abd acd`, "braces are expanded into words"},
	{`echo {"x y",z}`, `echo 'x y' z`, "a quoted alternative stays one word"},
	{`echo \#x`, `echo '#x'`, "an escaped # would start a comment"},
	{`[ -f go.mod ]`, `[ -f go.mod ]`, "the test command's name stays as written"},
	{`'[[' x`, `'[[' x`, "a reserved word made of glob characters is quoted"},
	{`'A'[ x`, `'A[' x`, "so is a name that would start an array assignment"},
	{`'a=b' x`, `'a=b' x`, "and a name that would be an assignment"},
}

func TestCommandSubjectQuoting(t *testing.T) {
	for _, c := range shellTable {
		a := Analyze(c.cmd)
		if len(a.Commands) != 1 || a.Commands[0] != c.want {
			t.Errorf("%s: Commands = %q, want [%q]: %s", c.cmd, a.Commands, c.want, c.why)
		}
		checkRoundTrip(t, c.cmd, a)
	}
}

// TestCommandSubjectWords checks that the words of each table's simple commands survive the trip.
func TestCommandSubjectWords(t *testing.T) {
	for _, c := range anTable {
		checkRoundTrip(t, c.cmd, Analyze(c.cmd))
	}
	for _, c := range inspectTable {
		checkRoundTrip(t, c.cmd, Analyze(c.cmd))
	}
}

func FuzzCommandSubject(f *testing.F) {
	for _, c := range shellTable {
		f.Add(c.cmd)
	}
	for _, c := range anTable {
		f.Add(c.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) { checkRoundTrip(t, cmd, analyze(cmd)) })
}

// checkRoundTrip checks, for a command that is one simple command with arguments, that its subject expands to
// the words the command does, braces, quotes and tildes included (globs are not expanded on either side).
func checkRoundTrip(t *testing.T, cmd string, a Analysis) {
	t.Helper()
	want, ok := simpleFields(cmd)
	if !ok || len(a.Commands) == 0 {
		return
	}
	got, ok := simpleFields(a.Commands[0])
	if !ok || !slices.Equal(got, want) {
		t.Errorf("%q: subject %q reads as %q (ok %v), want %q", cmd, a.Commands[0], got, ok, want)
	}
}

// simpleFields are the words of src when it is one simple command without assignments, redirections or
// substitutions, expanded as bash would without a filesystem.
func simpleFields(src string) ([]string, bool) {
	if strings.ContainsFunc(src, func(r rune) bool { return r < ' ' && r != '\t' }) {
		return nil, false // the analysis keeps such source text as it came
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Stmts[0].Redirs) > 0 {
		return nil, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || f.Stmts[0].Background || f.Stmts[0].Negated {
		return nil, false
	}
	clean := true
	syntax.Walk(call, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp, *syntax.ExtGlob:
			clean = false
		}
		return clean
	})
	if !clean {
		return nil, false
	}
	cfg := &expand.Config{Env: expand.ListEnviron("HOME=/home/u", "PWD=/w")}
	fields, err := expand.Fields(cfg, call.Args...)
	return fields, err == nil
}
