//go:build linux

package bash

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// The differential test of issue 11, class 11: what bash executes is compared with what the analyzer saw. bash
// runs the command exactly as Call runs it (Canonical, inside shellCommand's script) with a PATH where nothing is
// found, so that every external command it would execute reaches command_not_found_handle, which logs the
// command's name instead of running anything. Every name logged must be a command the analyzer reported.

// diffFragments are the pieces the generator joins: commands, separators, and the constructs on which a parser
// and bash may disagree (comments, backslash-newlines, carriage returns, quotes, substitutions, heredocs).
var diffFragments = []string{
	"ls", "cat a", "touch t", "rm -f r", "echo e", "grep -r x .", "wc -l a", "mkdir m", "true",
	"; ", " && ", " || ", " | ", "\n", " ", "\t",
	" #c", " #\\\n", "\r", "\\\n", " # x\\\n", "#", "\\", "'#'", "\\#", "\"#\"", "\r\n", "\v", "\f",
	"$(touch s)", "`touch b`", "\"$(rm -f q)\"", "{ touch z; }", "(touch y)", "<<EOF\n$(touch h)\nEOF\n",
	"x=1 ", "${x:-$(touch d)}", "$((1+1))", "'", "\"", "$'\\n'", "$'\\r'", ";;", "if true; then touch i; fi",
	"for f in a; do touch f; done", "case x in x) touch c;; esac", "<<'E'\n#\nE\n", "2>/dev/null", "\\\r\n",
}

// diffCorpus are fixed inputs: issue 11's two examples and variations of them.
var diffCorpus = []string{
	"ls #\\\ntouch x",
	"echo x\r#; touch x",
	"ls # a \\\ntouch x",
	"echo a\r\ntouch x",
	"echo a\\\r\ntouch x",
	"ls\r;touch x",
	"cat <<EOF #\\\nx\nEOF\ntouch x",
	"echo '#\\\n'; touch x",
	"echo \"x\r\"#\\\ntouch x",
	"ls #\rtouch x",
	"{ ls; } #\\\n; touch x",
}

// diffNames are the command names bash tried to execute.
func diffRun(t testing.TB, bash, dir, script string) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "executed.log")
	_ = os.Remove(log)
	handler := "command_not_found_handle() { printf '%s\\0' \"$1\" >> " + shellQuote(log) + "; return 127; }\n"
	cmd := shellCommand(bash, script, dir, nil)
	cmd.Args[2] = handler + cmd.Args[2] + "\nwait"
	cmd.Env = []string{"PATH=" + filepath.Join(dir, "no-such-bin"), "HOME=" + dir, "LC_ALL=C"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	runCmd := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	runCmd.Dir, runCmd.Env = cmd.Dir, cmd.Env
	_ = runCmd.Run() // exit status is not the point
	b, _ := os.ReadFile(log)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// analyzedNames are the names of the simple commands in the analyzer's syntax tree, at any depth (fuzzLit's
// "\x00" for a name that is not plain text).
func analyzedNames(command string) []string {
	f, err := parse(command)
	if err != nil {
		return nil
	}
	var names []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			names = append(names, fuzzLit(c.Args[0]))
		}
		return true
	})
	return names
}

// diffCheck runs command as Call would and reports the first executed name the analyzer did not see.
func diffCheck(t testing.TB, bash, dir, command string) (missed string, canon string) {
	t.Helper()
	canon, ok := Canonical(command)
	if !ok {
		return "", canon // it does not parse: the analysis is opaque, and asks
	}
	names := analyzedNames(command)
	for _, n := range diffRun(t, bash, dir, canon) {
		if !slices.Contains(names, n) && !slices.ContainsFunc(names, unknownName) {
			return n, canon
		}
	}
	return "", canon
}

// unknownName reports whether the analyzer kept a command name as source text: an expansion, whose value it
// cannot know, makes the command off the list (not read-only, and matched only by a rule for every command), so
// whatever bash runs in its place is not hidden from the chain.
// A glob in command position is alike: off the list, whatever it matches.
func unknownName(name string) bool { return strings.ContainsAny(name, "\x00*?[{") }

func diffBash(t testing.TB) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	return bash
}

// diffGenerate joins n random fragments.
func diffGenerate(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(diffFragments[r.IntN(len(diffFragments))])
	}
	return b.String()
}

func TestDifferentialBashAndAnalyzer(t *testing.T) {
	bash := diffBash(t)
	dir := t.TempDir()
	// The oracle sees the attack: run as written, the examples execute a command the analyzer did not see.
	for _, c := range []string{"ls #\\\ntouch x", "echo x\r#; touch x"} {
		names := analyzedNames(c)
		ran := diffRun(t, bash, dir, c)
		if !slices.ContainsFunc(ran, func(n string) bool { return !slices.Contains(names, n) }) {
			t.Fatalf("%q run as written executed %q, all seen by the analyzer (%q): the oracle cannot see the class", c, ran, names)
		}
	}
	r := rand.New(rand.NewPCG(11, 11))
	corpus := slices.Clone(diffCorpus)
	for range 250 {
		corpus = append(corpus, diffGenerate(r, 2+r.IntN(7)))
	}
	for _, c := range corpus {
		if missed, canon := diffCheck(t, bash, dir, c); missed != "" {
			t.Errorf("bash executed %q, which the analyzer did not see, for %q (run as %q)", missed, c, canon)
		}
	}
}

// FuzzDifferential is the longer run of the differential test, for make fuzz.
func FuzzDifferential(f *testing.F) {
	for _, c := range diffCorpus {
		f.Add(c)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f.Add(diffGenerate(r, 2+r.IntN(7)))
	}
	bash := diffBash(f)
	f.Fuzz(func(t *testing.T, c string) {
		if len(c) > 512 || strings.ContainsAny(c, "\x00") {
			return
		}
		dir := t.TempDir()
		if missed, canon := diffCheck(t, bash, dir, c); missed != "" {
			t.Fatalf("bash executed %q, which the analyzer did not see, for %q (run as %q)", missed, c, canon)
		}
	})
}

// TestBracesMatchBash compares the analyzer's brace expansion (mvdan.cc/sh's expand) with bash's own, on words
// generated from brace syntax, quotes and escapes: every word bash produces must be a word the analyzer reports,
// or a path could hide in an alternative riot did not see.
func TestBracesMatchBash(t *testing.T) {
	bash := diffBash(t)
	parts := []string{"{", "}", ",", "a", "b", "..", "1", "3", "\\,", "\\{", "'", "'x,y'", "\"{\"", "-", "/", "z"}
	r := rand.New(rand.NewPCG(3, 4))
	var words []string
	for range 300 {
		var b strings.Builder
		for range 2 + r.IntN(7) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		words = append(words, b.String())
	}
	words = append(words, "{secret,a}.txt", "{,/}etc", "x{1..3}", "{a..c..2}", "{a,b{c,d}}", "{'a,b'}", "{a,}", "{}", "{a}")
	checked := 0
	for _, wd := range words {
		f, err := parse("printf '%s\\0' " + wd)
		if err != nil || len(f.Stmts) != 1 {
			continue
		}
		call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != 3 {
			continue
		}
		w := &walker{src: "printf '%s\\0' " + wd}
		var got []string
		lit := true
		for _, t := range w.expandArg(call.Args[2]) {
			got = append(got, t.text)
			lit = lit && t.lit
		}
		if !lit {
			continue
		}
		out, err := exec.Command(bash, "-c", "printf '%s\\0' "+wd).Output()
		if err != nil {
			continue
		}
		checked++
		for _, b := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if !slices.Contains(got, b) {
				t.Errorf("bash expands %s to %q, which the analyzer does not report (it has %q)", wd, b, got)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d words compared", checked)
	}
}
