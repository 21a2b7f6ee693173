package bash

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that the analyzer never panics, and the property of issue 5 as issue 11 amended it: a command
// whose syntax tree has a write redirection, a process substitution, arithmetic that is not constant, or a command
// off the list (at any depth, inside command substitutions too) is never read-only. The check is its own plain
// walk over the tree, sharing nothing with the classifier; where it cannot tell a word's value it counts the word
// as off the list.
func FuzzAnalyze(f *testing.F) {
	for _, c := range anTable {
		f.Add(c.cmd)
	}
	for _, s := range []string{
		"ls > /dev/null", "cat <<EOF\n$(id)\nEOF", "l\\s -la", "'l''s'", "\"ls\" x", "ls >&2", "a=b", "{ ls; } &",
		"f() { :; }", "coproc x", "echo ${x:=1}", "echo $((1))", "ls <> f", "ls >&f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := analyze(cmd) // not Analyze: a panic must fail the test, not be recovered
		if !a.ReadOnly {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("%q is read-only but does not parse: %v", cmd, err)
		}
		if why := fuzzUnsafe(file); why != "" {
			t.Fatalf("%q is read-only but has %s", cmd, why)
		}
	})
}

// fuzzListed reports whether name is on the allow-list of issue 5, or is sed or git (whose flag checks the table
// covers).
func fuzzListed(name string) bool {
	for _, d := range []string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/"} {
		name = strings.TrimPrefix(name, d)
	}
	return slices.Contains(strings.Fields("cat head tail wc ls pwd echo printf grep rg find tree file stat du df "+
		"which type whoami date sort uniq cut tr nl diff cmp basename dirname realpath sleep true false test [ sed git "+
		"cd printenv uname seq readlink sha256sum sha1sum sha512sum md5sum cksum "+
		// issue 34: inspection tools, and the wrappers whose forms analyze_inspect.go checks
		"strings objdump readelf nm od hexdump xxd unzip tar jq python3 python command bash sh ps pgrep lsof read xargs"), name) ||
		versionFlags[name] != nil
}

// fuzzUnsafe names the first thing in f that issue 5 says makes a command not read-only, or "".
func fuzzUnsafe(f *syntax.File) string {
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ProcSubst:
			why = "a process substitution"
		case *syntax.ArithmExp:
			if !fuzzConstArithm(n.X) {
				why = "arithmetic that is not constant"
			}
		case *syntax.Redirect:
			target := fuzzLit(n.Word)
			switch n.Op {
			case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			case syntax.DplIn, syntax.DplOut:
				if strings.Trim(target, "0123456789") != "" && target != "-" || target == "" {
					why = "a redirection to a file"
				}
			default:
				if target != "/dev/null" {
					why = "a write redirection"
				}
			}
		case *syntax.CallExpr:
			switch {
			case len(n.Assigns) > 0 && len(n.Args) > 0:
				why = "an assignment before a command"
			case len(n.Args) == 0:
			case !fuzzListed(fuzzLit(n.Args[0])):
				why = "a command off the list"
			}
		case *syntax.Stmt:
			if n.Background || n.Coprocess {
				why = "a background statement"
			}
		case *syntax.DeclClause:
			if n.Variant.Value != "export" || slices.ContainsFunc(n.Args, func(a *syntax.Assign) bool { return a.Name == nil }) {
				why = "a declaration that is not an export"
			}
		case *syntax.FuncDecl, *syntax.CoprocClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TimeClause:
			why = "a construct that runs code or assigns"
		}
		return why == ""
	})
	return why
}

// fuzzLit is a word's value when it is made only of unquoted literals, single quotes and double quotes holding
// plain text; else "\x00", which is on no list.
func fuzzLit(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				if p.Value[i] == '\\' && i+1 < len(p.Value) {
					i++
				}
				b.WriteByte(p.Value[i])
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "\x00"
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || p.Dollar || strings.Contains(l.Value, "\\") {
					return "\x00"
				}
				b.WriteString(l.Value)
			}
		default:
			return "\x00"
		}
	}
	return b.String()
}

// fuzzConstArithm reports whether an arithmetic expression holds only decimal digits and operators that neither
// assign nor increment.
func fuzzConstArithm(x syntax.ArithmExpr) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			v := n.Lit()
			// A word starting with a digit is a number (or an error), never a name bash looks up.
			ok = ok && len(n.Parts) == 1 && v != "" && v[0] >= '0' && v[0] <= '9' &&
				strings.Trim(strings.ToLower(v), "0123456789abcdefghijklmnopqrstuvwxyz#@_") == ""
		case *syntax.BinaryArithm:
			op := n.Op.String()
			ok = ok && (!strings.Contains(op, "=") || op == "==" || op == "!=" || op == "<=" || op == ">=")
		case *syntax.UnaryArithm:
			ok = ok && n.Op.String() != "++" && n.Op.String() != "--"
		}
		return ok
	})
	return ok
}

// FuzzAnalyzeIn checks the analysis in a real tree: it never panics, every path comes back absolute, and every
// denied file it found is a read path too. (Whether the call is read-only comes from Analyze, on the text alone:
// a glob that matches nothing now may match `-delete` when the command runs.)
func FuzzAnalyzeIn(f *testing.F) {
	for _, c := range envTable {
		f.Add(c.cmd)
	}
	tr := newEnvTree(f)
	env := tr.env()
	env.Limit = 64
	f.Fuzz(func(t *testing.T, cmd string) {
		a := analyzeIn(cmd, &env) // not AnalyzeIn: a panic must fail the test
		for _, p := range append(append([]string(nil), a.ReadPaths...), a.WritePaths...) {
			if !strings.HasPrefix(p, "/") {
				t.Fatalf("%q: the path %q is not absolute", cmd, p)
			}
		}
		for _, d := range a.Denied {
			if !slices.Contains(a.ReadPaths, d) {
				t.Fatalf("%q: the denied %q is not a read path", cmd, d)
			}
		}
	})
}
