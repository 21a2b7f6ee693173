package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Each closed set of values is declared once, as constants of its type, and
// its list holds every one of them in declaration order: a constant left out
// of the list would be refused by the config check that reads it.
func TestEnumListsHoldEveryConstant(t *testing.T) {
	consts := enumConstants(t)
	for typ, list := range map[string][]string{
		"Mode":        asStrings(Modes),
		"SandboxMode": asStrings(SandboxModes),
		"NetworkMode": asStrings(NetworkModes),
	} {
		if !slices.Equal(consts[typ], list) {
			t.Errorf("the constants of %s are %q, its list %q", typ, consts[typ], list)
		}
	}
}

// The defaults' comment on [permissions] mode names every mode: it is what
// `riot config --defaults` shows a user choosing one.
func TestDefaultsNameEveryMode(t *testing.T) {
	want := "# " + join(Modes, " | ") + "\nmode = "
	if !strings.Contains(string(defaultsTOML), want) {
		t.Errorf("defaults.toml does not say %q above [permissions] mode", want)
	}
}

// enumConstants are the values of the package's string constants by type
// name, in declaration order.
func enumConstants(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						out[typ.Name] = append(out[typ.Name], s)
					}
				}
			}
		}
	}
	return out
}

func asStrings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
