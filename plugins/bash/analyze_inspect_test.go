package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inspectTable is issue 34's classes as real agents wrote them: the read-only members, and the writing
// look-alikes that must still ask.
var inspectTable = []anCase{
	// Inspection tools.
	{cmd: "file -b build/app", ro: true, why: "file prints a type", reads: []string{"build/app"}},
	{cmd: "file -C -m magic", why: "file -C compiles the magic file, writing magic.mgc", reads: []string{"magic"}},
	{cmd: "strings -n 8 build/app", ro: true, why: "strings prints text", reads: []string{"build/app"}},
	{cmd: "strings @opts", why: "binutils read options from @file", reads: []string{"@opts"}},
	{cmd: "od -A x -t x1z -N 64 data.bin", ro: true, why: "od dumps", reads: []string{"data.bin"}},
	{cmd: "hexdump -C -n 128 data.bin", ro: true, why: "hexdump dumps", reads: []string{"data.bin"}},
	{cmd: "hexdump -f fmt data.bin", ro: true, why: "-f reads a format file", reads: []string{"fmt", "data.bin"}},
	{cmd: "xxd data.bin", ro: true, why: "xxd dumps to stdout", reads: []string{"data.bin"}},
	{cmd: "xxd -l 64 -c 16 data.bin", ro: true, why: "-l and -c take values", reads: []string{"data.bin"}},
	{cmd: "xxd -p", ro: true, why: "stdin to stdout"},
	{cmd: "xxd -r -p dump.hex", ro: true, why: "-r without an output file writes stdout", reads: []string{"dump.hex"}},
	{cmd: "xxd -r dump.hex data.bin", why: "the second operand is written", reads: []string{"dump.hex"}, writes: []string{"data.bin"}},
	{cmd: "xxd data.bin data.hex", why: "the second operand is written", reads: []string{"data.bin"}, writes: []string{"data.hex"}},
	{cmd: "objdump -d build/app", ro: true, why: "objdump disassembles", reads: []string{"build/app"}},
	{cmd: "objdump -h -j .text --no-show-raw-insn app", ro: true, why: "listed options", reads: []string{"app"}},
	{cmd: "objdump -W app", why: "DWARF dumps follow debug links (debuginfod)", reads: []string{"app"}},
	{cmd: "objdump -S app", why: "-S reads the sources the debug info names", reads: []string{"app"}},
	{cmd: "readelf -a app", ro: true, why: "readelf prints headers", reads: []string{"app"}},
	{cmd: "readelf --debug-dump=info app", why: "debug dumps follow links", reads: []string{"app"}},
	{cmd: "nm -C --defined-only lib.a", ro: true, why: "nm lists symbols", reads: []string{"lib.a"}},
	{cmd: "nm --plugin evil.so lib.a", why: "--plugin loads a shared object", reads: []string{"evil.so", "lib.a"}},
	{cmd: "unzip -l dist.zip", ro: true, why: "unzip -l lists", reads: []string{"dist.zip"}},
	{cmd: "unzip -lv dist.zip 'src/*'", ro: true, why: "member names are not paths", reads: []string{"dist.zip"}},
	{cmd: "unzip dist.zip", why: "unzip extracts", reads: []string{"dist.zip"}},
	{cmd: "unzip -l", why: "no archive: unzip -l alone is refused"},
	{cmd: "unzip -l dist.zip -d out", why: "-d is refused"},
	{cmd: "tar -tf dist.tar", ro: true, why: "tar -t lists", reads: []string{"dist.tar"}},
	{cmd: "tar tzvf dist.tgz", ro: true, why: "the old cluster form", reads: []string{"dist.tgz"}},
	{cmd: "tar --list --file=dist.tar", ro: true, why: "long forms", reads: []string{"dist.tar"}},
	{cmd: "tar -t -v -f dist.tar", ro: true, why: "one option a word", reads: []string{"dist.tar"}},
	{cmd: "tar -tf -", ro: true, why: "the archive on stdin"},
	{cmd: "tar --force-local -tf host:dist.tar", ro: true, why: "--force-local: a colon is part of the name", reads: []string{"host:dist.tar"}},
	{cmd: "tar -tv", why: "no archive file: tar would read a tape device"},
	{cmd: "tar -xf dist.tar", why: "tar -x extracts"},
	{cmd: "tar -czf out.tgz src", why: "tar -c writes"},
	{cmd: "tar -tf host:dist.tar", why: "a colon names a remote host"},
	{cmd: "tar --to-command=sh -tf dist.tar", why: "--to-command runs a program"},
	{cmd: "tar -I 'sh -c id' -tf dist.tar", why: "-I runs a program"},
	{cmd: "tar --use-compress-program=x -tf dist.tar", why: "runs a program"},
	{cmd: "jq . package.json", ro: true, why: "jq computes", reads: []string{"package.json"}},
	{cmd: "jq -r '.dependencies | keys[]' package.json", ro: true, why: "a filter", reads: []string{"package.json"}},
	{cmd: "jq --slurpfile a a.json -n '$a'", ro: true, why: "--slurpfile reads a file", reads: []string{"a.json"}},
	{cmd: "jq --arg v x.txt '.[$v]' data.json", ro: true, why: "--arg takes two values, not files", reads: []string{"data.json"}},
	{cmd: "jq -n '$ARGS' --args a b", ro: true, why: "after --args operands are values"},
	{cmd: "jq 'include \"m\"; .' a.json", why: "a module is a file riot does not see"},
	{cmd: "jq -f prog.jq a.json", why: "-f reads a filter riot does not see"},
	{cmd: "jq --slurpfile a", why: "no file for --slurpfile, and no filter"},
	{cmd: "python3 -m json.tool data.json", ro: true, why: "json.tool pretty-prints", reads: []string{"data.json"}},
	{cmd: "python3 -m json.tool --sort-keys --indent 2 data.json", ro: true, why: "options", reads: []string{"data.json"}},
	{cmd: "python3 -m json.tool in.json out.json", why: "the second file is written", reads: []string{"in.json"}, writes: []string{"out.json"}},
	{cmd: "python3 -m json.tool", ro: true, why: "stdin to stdout"},
	{cmd: "python3 -I -m json.tool data.json", ro: true, why: "-I: isolated", reads: []string{"data.json"}},
	{cmd: "python3 -I -c 'print(1)'", why: "-I runs code all the same"},
	{cmd: "python3", why: "an interpreter reading its program from stdin"},
	{cmd: "python3 -m http.server", why: "only json.tool"},
	{cmd: "python3 -c 'print(1)'", why: "python runs code"},
	{cmd: "command -v go", ro: true, why: "command -v looks up"},
	{cmd: "command rm x", why: "command runs a command"},
	{cmd: "ps aux", ro: true, why: "ps lists processes"},
	{cmd: "ps -eo pid,comm", ro: true, why: "-o takes a value"},
	{cmd: "pgrep -fl node", ro: true, why: "pgrep lists"},
	{cmd: "pkill node", why: "pkill signals"},
	{cmd: "lsof -p 1234", ro: true, why: "lsof lists"},
	{cmd: "lsof -nP -i :8080", ro: true, why: "-n: no DNS"},
	{cmd: "lsof -i :8080", why: "-i without -n looks names up over the network"},
	{cmd: "bash -n script.sh", ro: true, why: "bash -n parses only", reads: []string{"script.sh"}},
	{cmd: "sh -n install.sh", ro: true, why: "sh -n parses only", reads: []string{"install.sh"}},
	{cmd: "bash -n -c 'rm x'", why: "-c is not a file"},
	{cmd: "bash -ni x.sh", why: "-i is interactive: -n is ignored"},
	{cmd: "bash script.sh", why: "bash runs it"},

	// Version queries.
	{cmd: "node --version", ro: true, why: "a version query"},
	{cmd: "node -v", ro: true, why: "a version query"},
	{cmd: "python3 --version", ro: true, why: "a version query"},
	{cmd: "gcc --version", ro: true, why: "a version query"},
	{cmd: "git --version", ro: true, why: "a version query"},
	{cmd: "make -v", ro: true, why: "a version query"},
	{cmd: "java -version", ro: true, why: "a version query"},
	{cmd: "/usr/bin/node --version", ro: true, why: "by its path in a system bin directory"},
	{cmd: "make", why: "make runs the Makefile"},
	{cmd: "node -v app.js", why: "more than the query"},
	{cmd: "node app.js", why: "node runs code"},
	{cmd: "go version", why: "a go.mod may switch toolchains"},
	{cmd: "cargo --version", why: "rustup may run a toolchain the project names"},
	{cmd: "npm --version", why: "npm reads the project's .npmrc"},
	{cmd: "./node_modules/.bin/tsc --version", why: "a program in the project"},
	{cmd: "/opt/x/bin/node --version", why: "not a system bin directory"},

	// Git reads.
	{cmd: "git reflog", ro: true, why: "reflog show"},
	{cmd: "git reflog show --oneline -20", ro: true, why: "reflog show"},
	{cmd: "git reflog list", ro: true, why: "reflog list"},
	{cmd: "git reflog --all expire", why: "expire after an option may still be the subcommand"},
	{cmd: "git grep -Ovim TODO", why: "-O with its pager attached", reads: []string{"TODO"}},
	{cmd: "git reflog expire --expire=now --all", why: "expire prunes"},
	{cmd: "git reflog delete HEAD@{1}", why: "delete"},
	{cmd: "git ls-tree -r --name-only HEAD", ro: true, why: "ls-tree lists"},
	{cmd: "git grep -n 'func main'", ro: true, why: "git grep reads tracked files", reads: []string{"func main"}},
	{cmd: "git grep -O TODO", why: "-O opens a pager", reads: []string{"TODO"}},
	{cmd: "git grep --no-index TODO", why: "files outside the index", reads: []string{"TODO"}},
	{cmd: "git -C sub log --oneline -5", ro: true, why: "git -C is cd for git", reads: []string{"sub"}},
	{cmd: "git -C sub branch feature", why: "branch NAME creates", reads: []string{"sub"}},
	{cmd: "git branch -a", ro: true, why: "lists"},
	{cmd: "git branch --list 'feat*'", ro: true, why: "lists"},
	{cmd: "git branch newname", why: "creates a branch"},
	{cmd: "git branch -d old", why: "deletes"},
	{cmd: "git branch -m old new", why: "renames"},

	// Shell structure.
	{cmd: "export NODE_ENV=test", ro: true, why: "export of a literal", cmds: []string{"export NODE_ENV=test"}},
	{cmd: "export PATH=/tmp/x:$PATH; ls", why: "an upper-case variable may change what ls is", reads: []string{"."}},
	{cmd: "export X=1; echo $X", ro: true, why: "echo reads no variable"},
	{cmd: "export -f f", why: "export -f exports a function"},
	{cmd: "export a=$(rm x)", why: "the value runs rm"},
	{cmd: "f=a.txt; cat \"$f\"", ro: true, why: "a lower-case variable", opaque: true},
	{cmd: "a[$(rm x)]=1", why: "the subscript runs rm"},
	{cmd: "while read -r line; do echo \"$line\"; done < list.txt", ro: true, why: "read sets a variable", reads: []string{"list.txt"}},
	{cmd: "while read -r PATH; do ls; done < list.txt", why: "read into PATH", reads: []string{".", "list.txt"}},
	{cmd: "for f in a b; do cat $f; X=1; done", why: "the next turn runs cat after X=1", opaque: true},
	{cmd: "find . -name *.py -type f", ro: true, why: "a glob pattern after -name", reads: []string{"."}},
	{cmd: "find . -name *.py -delete", why: "-delete", reads: []string{"."}},
	{cmd: "git ls-files | xargs wc -l", ro: true, why: "xargs of wc", opaque: true},
	{cmd: "ls | xargs -0 -n1 head -1", ro: true, why: "options of xargs", reads: []string{"."}, opaque: true},
	{cmd: "ls | xargs rm", why: "rm writes", reads: []string{"."}},
	{cmd: "ls | xargs sort -o out", why: "sort has options that write", reads: []string{"."}},
	{cmd: "ls | xargs -p cat", why: "-p asks the terminal", reads: []string{"."}},
	{cmd: "ls | xargs -0", ro: true, why: "xargs without a command runs echo", reads: []string{"."}},
	{cmd: "ls | xargs echo", ro: true, why: "echo's program prints its words", reads: []string{"."}},
	{cmd: "ls | xargs pwd", ro: true, why: "pwd's program prints the directory", reads: []string{"."}},
	{cmd: "ls | xargs printf %s", why: "xargs runs printf's program, not the builtin riot checks", reads: []string{"."}},
	{cmd: "/usr/bin/cat /etc/os-release", ro: true, why: "cat by its path", reads: []string{"/etc/os-release"}},
	{cmd: "./cat x", why: "a program in the project"},
	{cmd: "/usr/bin/printf %s x", why: "the program, not the builtin whose options riot knows"},
	{cmd: "/usr/bin/ x", why: "no name after the directory"},
	{cmd: "/usr/bin/../bin/cat x", why: "not a name in the directory"},
	{cmd: "read -", why: "not a variable name"},
	{cmd: "git -C", why: "-C without a directory"},
	{cmd: "/tmp/cat x", why: "not a system bin directory"},
	{cmd: "echo $(jq -r .name package.json)", ro: true, why: "a read-only substitution", reads: []string{"package.json"}},
}

func TestAnalyzeInspectTable(t *testing.T) { checkTable(t, inspectTable) }

// TestAnalyzeInInspect: what only the session's world shows: a program on PATH in the workspace, a json
// module beside `python3 -m json.tool`, a glob that expands to an option of find, and git -C out of the roots.
func TestAnalyzeInInspect(t *testing.T) {
	tr := newEnvTree(t)
	bin := tr.ws + "/node_modules/.bin"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"node", "cat"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\ntouch pwned\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sys := t.TempDir() // a system-like directory outside the roots
	if err := os.WriteFile(filepath.Join(sys, "node"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd, path, ask string
	}{
		{"node --version", bin + ":" + sys, "is " + bin + "/node, in the workspace"},
		{"cat a.txt", bin + ":/usr/bin", "is " + bin + "/cat, in the workspace"},
		{"node --version", sys + ":" + bin, ""},
		{"node --version", "node_modules/.bin:" + sys, "relative PATH entry"},
		{"node --version", "nope:" + sys, ""},
		{"cd \"$D\" && node --version", "nope:" + sys, "relative PATH entry \"nope\""},
		{"cd \"$D\" && node --version", sys, ""},
		{"cd \"$D\" && python3 -m json.tool a.txt", "", "after this `cd`"},
		{"/usr/bin/cat a.txt", bin, ""},
		{"rm a.txt", bin, ""}, // not read-only: an allow rule decides, not the PATH check
		{"python3 -m json.tool a.txt", "", ""},
		{"python3 -I -m json.tool a.txt", "", ""},
	} {
		e := tr.env()
		e.Path = c.path
		a := AnalyzeIn(c.cmd, e)
		got := strings.Join(a.Asks, " | ")
		if c.ask == "" && got != "" || c.ask != "" && !strings.Contains(got, c.ask) {
			t.Errorf("%s with PATH=%s: asks %q, want %q", c.cmd, c.path, got, c.ask)
		}
	}
	if err := os.WriteFile(filepath.Join(tr.ws, "json.py"), []byte("import os\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := AnalyzeIn("python3 -m json.tool a.txt", tr.env()); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "json.py") {
		t.Errorf("a json.py beside json.tool: %q", a.Asks)
	}
	if a := AnalyzeIn("python3 -I -m json.tool a.txt", tr.env()); len(a.Asks) != 0 {
		t.Errorf("-I leaves the directory out: %q", a.Asks)
	}
	if err := os.WriteFile(filepath.Join(tr.ws, "-delete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := AnalyzeIn("find . -name -*", tr.env()); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "Quote the pattern") {
		t.Errorf("a glob that expands to -delete: %q", a.Asks)
	}
	if a := AnalyzeIn("find . -name *.txt", tr.env()); len(a.Asks) != 0 {
		t.Errorf("a glob pattern: %q", a.Asks)
	}
	a := AnalyzeIn("git -C "+tr.out+" log", tr.env())
	if !strings.Contains(strings.Join(a.ReadPaths, " "), tr.out) {
		t.Errorf("git -C out: reads %q, want %s", a.ReadPaths, tr.out)
	}
	gitIn(t, tr.ws, "init", "-q")
	if a := AnalyzeIn("git -C d grep SECRET", tr.env()); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "secret.txt") && !strings.Contains(a.Asks[0], "not inside") {
		t.Logf("git -C d grep with an untracked secret: %q", a.Asks)
	}
}
