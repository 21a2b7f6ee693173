package permission

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A deny or ask rule names a program (`Bash(rm:*)`), but a command can run
// that program in many spellings: by its path (`/bin/rm`), after
// assignments (`X=1 rm`), through a wrapper that runs its arguments
// (`env rm`, `sudo rm`, `timeout 5 rm`, `xargs rm`), in a shell's -c
// string or eval, from find's -exec, or inside a substitution. invoked
// reads a command subject for all of them, so that a restrictive rule
// matches each, and a doubt (a program named by an expansion, `$X -f v`)
// falls on the side of not allowing. An allow rule never reads these: it
// allows only the command as written (allows).

// invocations are the command lines a command subject may run, each as
// words, program first, by its base name; opaque is set when a program's
// name is not known before it runs (an expansion, a substitution, a
// string too deep to read), so any rule naming a program matches.
type invocations struct {
	once   sync.Once
	forms  [][]string
	opaque bool
}

// Limits of the reading: a command nested deeper, or running more forms,
// is opaque rather than read in part.
const (
	maxInvokedDepth = 4
	maxInvokedForms = 512
)

// wrappers run a command given in their arguments. Which word starts it
// depends on each one's options, so every later word is taken as a
// possible start: a deny rule then matches `timeout -s KILL 5 rm`, at the
// cost of matching an argument that only looks like a program.
var wrappers = map[string]bool{
	"env": true, "command": true, "builtin": true, "exec": true, "nice": true, "nohup": true, "time": true,
	"timeout": true, "stdbuf": true, "sudo": true, "doas": true, "xargs": true, "setsid": true, "ionice": true,
	"chrt": true, "taskset": true, "unbuffer": true, "busybox": true, "flock": true, "chroot": true,
	"nsenter": true, "unshare": true, "runuser": true, "fakeroot": true, "strace": true, "ltrace": true,
	"bwrap": true, "firejail": true, "torsocks": true, "proxychains": true, "proxychains4": true, "sg": true,
	"watch": true, "su": true, "script": true, "systemd-run": true, "caffeinate": true, "catchsegv": true,
	"valgrind": true, "prlimit": true, "cpulimit": true, "numactl": true, "sandbox-exec": true,
}

// shells run the string after a -c option (sh -c, bash -lc, su -c).
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"busybox": true, "su": true, "sg": true, "runuser": true, "script": true, "flock": true,
}

// stdinShells read their commands from stdin when given no -c string and
// no script (`echo "rm x" | sh`, `bash <<< "rm x"`, `sh -s`): what they run
// is not in the command's words.
var stdinShells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
}

// findExec are find's actions that run a command.
var findExec = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// cOption is a short option cluster holding c (-c, -lc, -ec).
var cOption = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[A-Za-z]*c[A-Za-z]*$`) })

// read fills in the forms of a command subject's text, once.
func (inv *invocations) read(text string) {
	inv.once.Do(func() { inv.script(text, 0) })
}

// script reads each simple command of a shell text, substitutions and
// nested commands included.
func (inv *invocations) script(text string, depth int) {
	if depth > maxInvokedDepth {
		inv.opaque = true
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		inv.opaque = true
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			inv.call(call.Args, depth)
		}
		return !inv.opaque
	})
}

// call reads one simple command's words: the program at each word that
// may start a command, as its base name, with the words after it. (The
// parser keeps a command's own assignments out of its words; those a
// wrapper takes, `env X=1 rm`, are words before one of its starts.)
func (inv *invocations) call(args []*syntax.Word, depth int) {
	words := make([]string, len(args))
	literal := make([]bool, len(args))
	for i, w := range args {
		words[i], literal[i] = literalWord(w)
	}
	seen := make([]bool, len(words))
	starts := []int{0}
	for len(starts) > 0 && !inv.opaque {
		i := starts[0]
		starts = starts[1:]
		if i >= len(words) || seen[i] {
			continue
		}
		seen[i] = true
		if !literal[i] {
			inv.opaque = true
			return
		}
		name := path.Base(words[i])
		form := append([]string{name}, words[i+1:]...)
		inv.forms = append(inv.forms, form)
		if len(inv.forms) > maxInvokedForms {
			inv.opaque = true
			return
		}
		if shells[name] {
			inv.shell(name, words[i+1:], depth)
		}
		switch {
		case name == "eval":
			inv.script(strings.Join(words[i+1:], " "), depth+1)
		case wrappers[name]:
			for j := i + 1; j < len(words); j++ {
				starts = append(starts, j)
				if strings.ContainsAny(words[j], " \t;&|") { // watch 'rm x', ssh-like strings
					inv.script(words[j], depth+1)
				}
			}
		case name == "find":
			for j := i + 1; j < len(words); j++ {
				if findExec[words[j]] {
					starts = append(starts, j+1)
				}
			}
		}
	}
}

// shell reads a shell's arguments: the string after each -c option, or,
// for a shell that reads its commands from stdin (no -c, no script
// operand, or -s), nothing it could read: opaque. A script operand is a
// program of its own, as a python script is: not read.
func (inv *invocations) shell(name string, args []string, depth int) {
	command, operand, stdin, inert := false, false, false, false
	for j, a := range args {
		switch {
		case a == "--version" || a == "--help" || a == "-n": // runs nothing it reads
			inert = true
		case cOption().MatchString(a):
			command = true
			if j+1 < len(args) {
				inv.script(args[j+1], depth+1)
			}
		case a == "-s":
			stdin = true
		case !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
			operand = true
		}
	}
	if stdinShells[name] && !command && !inert && (stdin || !operand) {
		inv.opaque = true
	}
}

// literalWord is a word's text after quote removal, and whether that is
// what bash runs: false when it expands or substitutes anything.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// program reports whether the pattern names a program by its first word,
// not a path: only such a pattern matches a program whose name is not
// known before it runs.
func (c cmdPattern) program() bool {
	first, _, _ := strings.Cut(c.parts[0], " ")
	return first != "" && !strings.ContainsAny(first, "/~")
}

// restrictsInvoked reports whether the pattern matches a command the
// subject may run (invoked). A word prefix pattern of several words
// matches when its later words come in order among the command's, so that
// `git push:*` matches `git -C dir push`.
func (c cmdPattern) restrictsInvoked(cmd command) bool {
	if cmd.inv == nil {
		return false
	}
	cmd.inv.read(cmd.text)
	if cmd.inv.opaque && c.program() {
		return true
	}
	for _, f := range cmd.inv.forms {
		if c.matchWords(f) || c.match(strings.Join(f, " ")) || c.matchInOrder(f) {
			return true
		}
	}
	return false
}

// matchInOrder matches a word prefix pattern's first word to the
// command's program and its later words to words of the command in order.
func (c cmdPattern) matchInOrder(words []string) bool {
	if !c.word || len(c.words) < 2 || len(words) == 0 || words[0] != c.words[0] {
		return false
	}
	want := c.words[1:]
	for _, w := range words[1:] {
		if w == want[0] {
			if want = want[1:]; len(want) == 0 {
				return true
			}
		}
	}
	return false
}
