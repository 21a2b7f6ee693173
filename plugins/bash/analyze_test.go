package bash

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// anCase is one row of the classifier table. reads, writes, opaque and noMatch are always checked (nil means
// none); cmds only when given.
type anCase struct {
	cmd     string
	ro      bool
	why     string
	cmds    []string
	reads   []string
	writes  []string
	opaque  bool
	noMatch string
	// ask is in the one question Analyze asks, if any: only a file list, or a command it refuses to parse.
	ask string
}

// anTable holds every example of issue 5 and the evasions it lists, and more.
var anTable = []anCase{
	// The allow-list, plain.
	{cmd: "ls", ro: true, why: "ls is listed", reads: []string{"."}},
	{cmd: "ls -la src", ro: true, why: "ls is listed", reads: []string{"src"}},
	{cmd: "ls -w 80 -I '*.o' src", ro: true, why: "-w and -I take values", reads: []string{"src"}},
	{cmd: "pwd", ro: true, why: "pwd is listed"},
	{cmd: "cat README.md", ro: true, why: "cat is listed", reads: []string{"README.md"}},
	{cmd: "cat -", ro: true, why: "- is stdin, not a path"},
	{cmd: "cat -- -file", ro: true, why: "after -- an operand may start with -", reads: []string{"-file"}},
	{cmd: "cat a a", ro: true, why: "paths are deduplicated", reads: []string{"a"}},
	{cmd: "head -n 20 main.go", ro: true, why: "-n takes a value", reads: []string{"main.go"}},
	{cmd: "head -n20 a b", ro: true, why: "attached value", reads: []string{"a", "b"}},
	{cmd: "head -5 a", ro: true, why: "obsolete -NUM is no value option", reads: []string{"a"}},
	{cmd: "head --lines 3 a", ro: true, why: "--lines takes a value", reads: []string{"a"}},
	{cmd: "tail -f log.txt", ro: true, why: "tail is listed", reads: []string{"log.txt"}},
	{cmd: "tail -n +5 x", ro: true, why: "-n takes a value", reads: []string{"x"}},
	{cmd: "wc -l *.go", ro: true, why: "globs are fine for wc", reads: []string{"*.go"}},
	{cmd: "wc --files0-from=list.txt", ro: true, why: "--files0-from reads a file", reads: []string{"list.txt"}, ask: "--files0-from"},
	{cmd: "wc --files0-from list.txt", ro: true, why: "--files0-from reads a file", reads: []string{"list.txt"}, ask: "--files0-from"},
	{cmd: "echo hello world", ro: true, why: "echo is listed", cmds: []string{"echo hello world"}},
	{cmd: "echo -e 'a\\nb' $'\\x72m'", ro: true, why: "echo prints anything"},
	{cmd: "printf '%s\\n' a b", ro: true, why: "printf without -v"},
	{cmd: "printf", ro: true, why: "printf without arguments only fails"},
	{cmd: "printf -v x hi", why: "printf -v assigns a variable"},
	{cmd: "printf -vx hi", why: "printf -vx assigns a variable"},
	{cmd: "printf \"$fmt\" x", why: "an expanded format could be -v"},
	{cmd: "printf *", why: "a glob format could be -v"},
	{cmd: "whoami", ro: true, why: "whoami is listed"},
	{cmd: "which go", ro: true, why: "which is listed"},
	{cmd: "type ls", ro: true, why: "type is listed"},
	{cmd: "sleep 1", ro: true, why: "sleep is listed"},
	{cmd: "true", ro: true, why: "true is listed"},
	{cmd: "false", ro: true, why: "false is listed"},
	{cmd: "basename /a/b.go .go", ro: true, why: "basename reads nothing"},
	{cmd: "dirname x/y", ro: true, why: "dirname reads nothing"},
	{cmd: "realpath ../x", ro: true, why: "realpath is listed", reads: []string{"../x"}},
	{cmd: "tr a-z A-Z", ro: true, why: "tr has no file operands"},
	{cmd: "tr -d x < in.txt", ro: true, why: "input redirection", reads: []string{"in.txt"}},
	{cmd: "cut -d: -f1 /etc/passwd", ro: true, why: "cut is listed", reads: []string{"/etc/passwd"}},
	{cmd: "cut -d , -f 2 a.csv", ro: true, why: "-d and -f take values", reads: []string{"a.csv"}},
	{cmd: "nl -ba main.go", ro: true, why: "nl is listed", reads: []string{"main.go"}},
	{cmd: "nl -w 3 x", ro: true, why: "-w takes a value", reads: []string{"x"}},
	{cmd: "stat -c %s go.mod", ro: true, why: "-c takes a value", reads: []string{"go.mod"}},
	{cmd: "du -sh", ro: true, why: "du reads the working directory", reads: []string{"."}},
	{cmd: "du -X excl.txt src", ro: true, why: "-X reads a file", reads: []string{"excl.txt", "src"}},
	{cmd: "df -h", ro: true, why: "df is listed"},
	{cmd: "df -h /", ro: true, why: "df is listed", reads: []string{"/"}},
	{cmd: "diff a.txt b.txt", ro: true, why: "diff is listed", reads: []string{"a.txt", "b.txt"}, noMatch: "diff"},
	{cmd: "diff -x '*.o' -r d1 d2", ro: true, why: "-x takes a value", reads: []string{"d1", "d2"}, noMatch: "diff"},
	{cmd: "diff --from-file=base a", ro: true, why: "--from-file reads", reads: []string{"base", "a"}, noMatch: "diff"},
	{cmd: "cmp -n 10 a b", ro: true, why: "cmp is listed", reads: []string{"a", "b"}, noMatch: "cmp"},

	// grep and rg: the first operand is the pattern unless an option gave it.
	{cmd: "grep -rn TODO .", ro: true, why: "grep is listed", reads: []string{"."}, noMatch: "grep"},
	{cmd: "grep -rn TODO", ro: true, why: "grep -r reads the working directory", reads: []string{"."}, noMatch: "grep"},
	{cmd: "grep --recursive TODO", ro: true, why: "grep --recursive too", reads: []string{"."}, noMatch: "grep"},
	{cmd: "grep foo", ro: true, why: "grep without -r reads stdin", noMatch: "grep"},
	{cmd: "grep -d read x f", ro: true, why: "-d read does not recurse", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "grep -d skip x f", ro: true, why: "-d skip does not recurse", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "grep -d recurse x .", why: "-d recurse recurses where the walk does not look", reads: []string{"."}, noMatch: "grep"},
	{cmd: "grep --directories=recurse x .", why: "--directories=recurse too", reads: []string{"."}, noMatch: "grep"},
	{cmd: "grep x -d", why: "-d without its value", noMatch: "grep"},
	{cmd: "grep -e foo -e bar file.txt", ro: true, why: "-e gives the pattern", reads: []string{"file.txt"}, noMatch: "grep"},
	{cmd: "grep -f pats.txt src/a.go", ro: true, why: "-f reads a file", reads: []string{"pats.txt", "src/a.go"}, noMatch: "grep"},
	{cmd: "grep -rf pats.txt", ro: true, why: "-f in a cluster", reads: []string{"pats.txt", "."}, noMatch: "grep"},
	{cmd: "grep -A 3 -B2 foo x.go", ro: true, why: "-A and -B take values", reads: []string{"x.go"}, noMatch: "grep"},
	{cmd: "grep --regexp=foo secret.txt", ro: true, why: "--regexp= gives the pattern", reads: []string{"secret.txt"}, noMatch: "grep"},
	{cmd: "grep --reg=foo secret.txt", ro: true, why: "an abbreviated --regexp too", reads: []string{"secret.txt"}, noMatch: "grep"},
	{cmd: "grep --max-count 5 foo a", ro: true, why: "--max-count takes a value", reads: []string{"a"}, noMatch: "grep"},
	{cmd: "grep -- -v file", ro: true, why: "after -- the pattern may start with -", reads: []string{"file"}, noMatch: "grep"},
	{cmd: "grep \"$pat\" file", ro: true, why: "an expanded pattern is fine", reads: []string{"file"}, opaque: true, noMatch: "grep"},
	{cmd: "rg TODO", ro: true, why: "rg is listed", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg -n foo src", ro: true, why: "rg is listed", reads: []string{"src"}, noMatch: "rg"},
	{cmd: "rg -g '*.go' -t go foo", ro: true, why: "-g and -t take values", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --files src", ro: true, why: "--files has no pattern", reads: []string{"src"}, noMatch: "rg"},
	{cmd: "rg -f=pats.txt x", ro: true, why: "clap reads -f=x as x", reads: []string{"=pats.txt", "pats.txt", "x"}, noMatch: "rg"},
	{cmd: "rg --pre cat foo", why: "rg --pre runs a program", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --pre=cat foo", why: "rg --pre= runs a program", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --pre-glob='*' foo", why: "a longer option starting with --pre is refused too", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg -z foo", why: "rg -z runs decompressors", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg -nz foo", why: "rg -z in a cluster", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --search-zip foo", why: "rg --search-zip runs decompressors", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --search foo", why: "an abbreviation of --search-zip", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg --hostname-bin=x foo", why: "rg --hostname-bin runs a program", reads: []string{"."}, noMatch: "rg"},
	{cmd: "rg $OPT foo", why: "an expansion could be --pre", reads: []string{"foo"}, opaque: true, noMatch: "rg"},
	{cmd: "rg foo *", why: "a glob could expand to --pre=x", reads: []string{"*"}, noMatch: "rg"},
	{cmd: "rg foo ./*", ro: true, why: "a glob that cannot start with -", reads: []string{"./*"}, noMatch: "rg"},

	// find, tree, file, stat, du, date, sort, uniq: flag checks.
	{cmd: "find . -name '*.go'", ro: true, why: "find without actions", reads: []string{"."}},
	{cmd: "find src -type f -newer ref.txt", ro: true, why: "-newer reads a file", reads: []string{"src", "ref.txt"}},
	{cmd: "find -name x", ro: true, why: "find without a start reads .", reads: []string{"."}},
	{cmd: "find -L . \\( -name x \\) -print", ro: true, why: "global options come first", reads: []string{"."}},
	{cmd: "find -O2 -D tree a b -print", ro: true, why: "-D takes a value", reads: []string{"a", "b"}},
	{cmd: "find . -samefile x", ro: true, why: "-samefile names a file", reads: []string{".", "x"}},
	{cmd: "find . -delete", why: "find -delete deletes", reads: []string{"."}},
	{cmd: "find . -exec rm {} ;", why: "find -exec runs a program", reads: []string{"."}},
	{cmd: "find . -execdir x ;", why: "find -execdir runs a program", reads: []string{"."}},
	{cmd: "find . -ok rm {} ;", why: "find -ok runs a program", reads: []string{"."}},
	{cmd: "find . -okdir rm {} ;", why: "find -okdir runs a program", reads: []string{"."}},
	{cmd: "find . -fprint out", why: "find -fprint writes", reads: []string{"."}, writes: []string{"out"}},
	{cmd: "find . -fprint0 out", why: "find -fprint0 writes", reads: []string{"."}, writes: []string{"out"}},
	{cmd: "find . -fprintf out %p", why: "find -fprintf writes", reads: []string{"."}, writes: []string{"out"}},
	{cmd: "find . -fls out", why: "find -fls writes", reads: []string{"."}, writes: []string{"out"}},
	{cmd: "find . -fprint", why: "find -fprint without its file", reads: []string{"."}},
	{cmd: "find . '-delete'", why: "quoting does not hide -delete", reads: []string{"."}},
	{cmd: "find . -name *.go", ro: true, why: "a glob after -name is a pattern (issue 34); AnalyzeIn asks when it expands to an option", reads: []string{"."}},
	{cmd: "find . {-delete,-print}", why: "brace expansion gives -delete", reads: []string{"."}, cmds: []string{"find . -delete -print"}},
	{cmd: "find ./* -name x", ro: true, why: "a glob that cannot start with -", reads: []string{"./*"}},
	{cmd: "find $DIR -name x", why: "an expansion could be -delete", opaque: true},
	{cmd: "tree", ro: true, why: "tree is listed", reads: []string{"."}},
	{cmd: "tree -L 2 src", ro: true, why: "-L takes a value", reads: []string{"src"}},
	{cmd: "tree -o out.txt", why: "tree -o writes", reads: []string{"."}, writes: []string{"out.txt"}},
	{cmd: "tree -aR -H . src", why: "tree -R writes 00Tree.html", reads: []string{"src"}},
	{cmd: "file main.go", ro: true, why: "file is listed", reads: []string{"main.go"}},
	{cmd: "file -m magic.db x", ro: true, why: "-m reads a file", reads: []string{"magic.db", "x"}},
	{cmd: "file -C -m magic", why: "file -C writes magic.mgc", reads: []string{"magic"}},
	{cmd: "file --compile", why: "file --compile writes"},
	{cmd: "date", ro: true, why: "date is listed"},
	{cmd: "date +%Y-%m-%d", ro: true, why: "a +FORMAT operand"},
	{cmd: "date -u -d tomorrow +%F", ro: true, why: "-d takes a value"},
	{cmd: "date -r file.txt", ro: true, why: "-r reads a file's time", reads: []string{"file.txt"}},
	{cmd: "date -s 2020-01-01", why: "date -s sets the clock"},
	{cmd: "date -us x", why: "date -s in a cluster"},
	{cmd: "date --set=x", why: "date --set sets the clock"},
	{cmd: "date --se x", why: "an abbreviation of --set"},
	{cmd: "date 010112002025", why: "a date operand sets the clock"},
	{cmd: "date -d \"$X\"", why: "an expansion could be -s", opaque: true},
	{cmd: "sort -u names.txt", ro: true, why: "sort is listed", reads: []string{"names.txt"}},
	{cmd: "sort -k2 -t, data.csv", ro: true, why: "-k and -t take values", reads: []string{"data.csv"}},
	{cmd: "sort -k1o x", ro: true, why: "the o is -k's value, not -o", reads: []string{"x"}},
	{cmd: "sort -o out in", why: "sort -o writes", reads: []string{"in"}, writes: []string{"out"}},
	{cmd: "sort -ro out in", why: "sort -o in a cluster", reads: []string{"in"}, writes: []string{"out"}},
	{cmd: "sort --output=x in", why: "sort --output writes", reads: []string{"in"}, writes: []string{"x"}},
	{cmd: "sort --out=x in", why: "an abbreviation of --output", reads: []string{"in"}, writes: []string{"x"}},
	{cmd: "sort -T /tmp/x in", why: "sort -T writes temporary files there (issue 11, class 9)", reads: []string{"in"}, writes: []string{"/tmp/x"}},
	{cmd: "sort --temporary-directory=d in", why: "sort --temporary-directory writes", reads: []string{"in"}, writes: []string{"d"}},
	{cmd: "sort --compress-program=gzip x", why: "sort --compress-program runs a program", reads: []string{"x"}},
	{cmd: "sort *", why: "a glob could expand to -o", reads: []string{"*"}},
	{cmd: "sort --=x in", ro: true, why: "`--=x` is no abbreviation of anything: sort refuses it", reads: []string{"in"}},
	{cmd: "sort ./*", ro: true, why: "a glob that cannot start with -", reads: []string{"./*"}},
	{cmd: "uniq -c counts.txt", ro: true, why: "one operand", reads: []string{"counts.txt"}},
	{cmd: "uniq -f 2 in", ro: true, why: "-f takes a value", reads: []string{"in"}},
	{cmd: "uniq in out", why: "uniq's second operand is its output", reads: []string{"in"}, writes: []string{"out"}},
	{cmd: "uniq ./*.txt", why: "a glob may give two operands", reads: []string{"./*.txt"}},

	// sed: only -n with print-only scripts.
	{cmd: "sed -n 1,20p file.go", ro: true, why: "sed -n Np", reads: []string{"file.go"}},
	{cmd: "sed -n '$p' a", ro: true, why: "sed -n $p", reads: []string{"a"}},
	{cmd: "sed -n '/foo/p' a", ro: true, why: "sed -n /re/p", reads: []string{"a"}},
	{cmd: "sed -n -e '/a/,/b/p' -e 1p f", ro: true, why: "several -e", reads: []string{"f"}},
	{cmd: "sed -ne 1p f", ro: true, why: "-e in a cluster", reads: []string{"f"}},
	{cmd: "sed -n -e1p f", ro: true, why: "attached -e", reads: []string{"f"}},
	{cmd: "sed -n '10q;p' f", ro: true, why: "q quits", reads: []string{"f"}},
	{cmd: "sed -n '/a\\/b/p' f", ro: true, why: "an escaped delimiter", reads: []string{"f"}},
	{cmd: "sed -n '\\%a%p' f", ro: true, why: "a custom delimiter", reads: []string{"f"}},
	{cmd: "sed -n '1!p;0~3p;/x/Ip;/y/,+2p' f", ro: true, why: "!, steps, flags and +N", reads: []string{"f"}},
	{cmd: "sed -n '/x/{p;q}' f", ro: true, why: "a block", reads: []string{"f"}},
	{cmd: "sed -n '/x/ p ; 3 q 2' f", ro: true, why: "spaces and an exit code", reads: []string{"f"}},
	{cmd: "sed -n p", ro: true, why: "stdin"},
	{cmd: "sed --quiet --expression=1p f", ro: true, why: "long options", reads: []string{"f"}},
	{cmd: "sed --silent --expression 1p f", ro: true, why: "long options with a separate value", reads: []string{"f"}},
	{cmd: "sed -nE -s -u -z --posix '/a+/p' f", ro: true, why: "harmless options", reads: []string{"f"}},
	{cmd: "sed -n -l 5 l f", ro: true, why: "-l takes a value", reads: []string{"f"}},
	{cmd: "sed -n --line-length 5 l f", ro: true, why: "--line-length takes a value", reads: []string{"f"}},
	{cmd: "sed -n 1p -- -f", ro: true, why: "after -- an operand may start with -", reads: []string{"-f"}},
	{cmd: "sed -n 's/a/b/p' f", why: "s can write (w) or run (e)", reads: []string{"f"}},
	{cmd: "sed -n '1w out' f", why: "w writes", reads: []string{"f"}},
	{cmd: "sed -n '1e rm x' f", why: "e runs a program", reads: []string{"f"}},
	{cmd: "sed -n 'p w' f", why: "junk after p", reads: []string{"f"}},
	{cmd: "sed 's/a/b/' f", why: "sed without -n", reads: []string{"f"}},
	{cmd: "sed 1p f", why: "sed without -n", reads: []string{"f"}},
	{cmd: "sed -i -n 1p f", why: "-i edits in place", reads: []string{"f"}},
	{cmd: "sed -ni 1p f", why: "-i in a cluster", reads: []string{"f"}},
	{cmd: "sed -n --in-place 1p f", why: "--in-place edits", reads: []string{"f"}},
	{cmd: "sed -n -f script.sed f", why: "a script file we cannot see", reads: []string{"script.sed", "f"}},
	{cmd: "sed -n '# c' f", why: "comments are refused", reads: []string{"f"}},
	{cmd: "sed -n '/unterminated' f", why: "unterminated regex", reads: []string{"f"}},
	{cmd: "sed -n '1,' f", why: "an address without a command", reads: []string{"f"}},
	{cmd: "sed -n", why: "no script"},
	{cmd: "sed -n \"$s\" f", why: "an expanded script", reads: []string{"f"}, opaque: true},
	{cmd: "sed -n 1p *.txt", why: "sed wants fixed words", reads: []string{"*.txt"}},

	// git: read-only subcommands only.
	{cmd: "git status", ro: true, why: "git status"},
	{cmd: "git  log --oneline -5", ro: true, why: "git log", cmds: []string{"git log --oneline -5"}},
	{cmd: "git diff HEAD~1 -- src/a.go", ro: true, why: "git diff", reads: []string{"HEAD~1", "src/a.go"}},
	{cmd: "git diff -- -weird", ro: true, why: "after -- a path may start with -", reads: []string{"-weird"}},
	{cmd: "git show HEAD:secret.txt", ro: true, why: "git show rev:path", reads: []string{"secret.txt"}},
	{cmd: "git show HEAD:", ro: true, why: "rev: is the tree", reads: []string{"HEAD:"}},
	{cmd: "git blame main.go", ro: true, why: "git blame", reads: []string{"main.go"}},
	{cmd: "git blame --contents other.txt main.go", ro: true, why: "--contents reads", reads: []string{"other.txt", "main.go"}},
	{cmd: "git blame --contents=o.txt m.go", ro: true, why: "--contents= reads", reads: []string{"o.txt", "m.go"}},
	{cmd: "git ls-files", ro: true, why: "git ls-files"},
	{cmd: "git rev-parse HEAD", ro: true, why: "git rev-parse names no path"},
	{cmd: "git --no-pager log", ro: true, why: "--no-pager is harmless"},
	{cmd: "git branch", ro: true, why: "listing branches"},
	{cmd: "git branch -a -vv", ro: true, why: "listing flags"},
	{cmd: "git branch -avl 'feat*'", ro: true, why: "-l lists with a pattern"},
	{cmd: "git branch --list 'feat*'", ro: true, why: "--list with a pattern"},
	{cmd: "git branch --merged main", ro: true, why: "--merged takes a commit"},
	{cmd: "git branch --sort=-committerdate --color=always", ro: true, why: "listing options with values"},
	{cmd: "git branch newbranch", why: "git branch NAME creates"},
	{cmd: "git branch -d old", why: "git branch -d deletes"},
	{cmd: "git branch -D old", why: "git branch -D deletes"},
	{cmd: "git branch -m a b", why: "git branch -m renames"},
	{cmd: "git branch -c a b", why: "git branch -c copies"},
	{cmd: "git branch --set-upstream-to=o/m", why: "re-tracks"},
	{cmd: "git branch -", why: "- names the previous branch"},
	{cmd: "git -c core.pager=x log", why: "git -c can run programs"},
	{cmd: "git -C /tmp log", ro: true, why: "git -C is cd for git: the fence applies to its directory (issue 34)", reads: []string{"/tmp"}},
	{cmd: "git log --output=x", why: "--output writes", writes: []string{"x"}},
	{cmd: "git diff --output x", why: "--output writes", reads: []string{"x"}, writes: []string{"x"}},
	{cmd: "git log --outp=x", why: "an abbreviation of --output", writes: []string{"x"}},
	{cmd: "git log --output", why: "--output without its file"},
	{cmd: "git show :x", ro: true, why: ":path is the index", reads: []string{"x"}},
	{cmd: "git show :1", ro: true, why: "a path named 1, not a stage", reads: []string{"1"}},
	{cmd: "git show :3:x", ro: true, why: "stage 3", reads: []string{"x"}},
	{cmd: "git show :4:x", ro: true, why: "no stage 4: a path", reads: []string{"4:x"}},
	{cmd: "git diff --output-indicator-new=+", ro: true, why: "a longer option is not an abbreviation of --output (issue 11 false alarm)"},
	{cmd: "git remote -v", ro: true, why: "listing remotes"},
	{cmd: "git remote", ro: true, why: "listing remotes"},
	{cmd: "git remote add o u", why: "adds a remote"},
	{cmd: "git tag -l", ro: true, why: "listing tags"},
	{cmd: "git tag -l 'v1*' --sort=-v:refname", ro: true, why: "listing tags with a pattern"},
	{cmd: "git tag v1", why: "creates a tag"},
	{cmd: "git tag -d v1", why: "deletes a tag"},
	{cmd: "git describe --tags --dirty", ro: true, why: "git describe"},
	{cmd: "git stash list", ro: true, why: "listing stashes"},
	{cmd: "git stash", why: "git stash pushes"},
	{cmd: "git stash pop", why: "git stash pop changes the work tree"},
	{cmd: "git cat-file -p HEAD", ro: true, why: "git cat-file -p"},
	{cmd: "git cat-file --textconv HEAD:a", why: "--textconv runs a driver", reads: []string{"a"}},
	{cmd: "git rev-list --count HEAD", ro: true, why: "git rev-list"},
	{cmd: "git shortlog -sn", ro: true, why: "git shortlog"},
	{cmd: "git config --get user.name", ro: true, why: "reading the config"},
	{cmd: "git config -l", ro: true, why: "listing the config"},
	{cmd: "git config user.name x", why: "git config writes .git/config (issue 11, class 8)", writes: []string{".git/config"}},
	{cmd: "git config --global core.pager x", why: "git config --global writes ~/.gitconfig", writes: []string{"~/.gitconfig"}},
	{cmd: "git show HEAD:./a", ro: true, why: "rev:./path is relative to here", reads: []string{"./a"}},
	{cmd: "git show :0:a.txt", ro: true, why: "a stage of the index", reads: []string{"a.txt"}},
	{cmd: "git log --exec=x", why: "--exec runs"},
	{cmd: "git diff --ext-diff", why: "--ext-diff runs a program"},
	{cmd: "git log -c -1", ro: true, why: "-c after the subcommand is the combined diff, not a config override (issue 29)"},
	{cmd: "git -c x log -c", why: "a config override before the subcommand, whatever follows it"},
	{cmd: "echo 'a\rb'", ro: true, why: "a carriage return inside single quotes is a literal (issue 29)", cmds: []string{"echo $'a\\rb'"}},
	{cmd: "echo a\rb", why: "a carriage return outside quotes is read differently by the parser and bash", opaque: true, cmds: []string{"echo a\rb"}},
	{cmd: "echo \"a\rb\"", why: "inside double quotes it is refused too", opaque: true, cmds: []string{"echo \"a\rb\""}},
	{cmd: "echo 'a'\r'b'", why: "between two quoted strings it is outside both", opaque: true, cmds: []string{"echo 'a'\r'b'"}},
	{cmd: "echo 'a\x01b'", why: "other control characters are refused even inside single quotes", opaque: true, cmds: []string{"echo 'a\x01b'"}},
	{cmd: "echo 'a\r\nb'", why: "the parser drops the CR of a CRLF even inside single quotes", opaque: true, cmds: []string{"echo 'a\r\nb'"}},
	{cmd: "echo 'a\fb'", why: "the printer turns a form feed into a newline even inside single quotes", opaque: true, cmds: []string{"echo 'a\fb'"}},
	{cmd: "echo 'a\r\rb' 'c\r'", ro: true, why: "every carriage return inside single quotes", cmds: []string{"echo $'a\\r\\rb' $'c\\r'"}},
	{cmd: "echo 'a\r' \rb", why: "one inside, one outside", opaque: true, cmds: []string{"echo 'a\r' \rb"}},
	{cmd: "cat <<'E'\n'\r'\nE", why: "quotes in a heredoc body are text: the CR is outside any", opaque: true, cmds: []string{"cat <<'E'\n'\r'\nE"}},
	{cmd: "git commit -m x", why: "git commit writes"},
	{cmd: "git push", why: "git push writes"},
	{cmd: "git", why: "no subcommand"},
	{cmd: "git --no-pager", why: "no subcommand"},
	{cmd: "git log $BRANCH", why: "an expansion could be --output", opaque: true},

	// test, [ and [[.
	{cmd: "test -f go.mod", ro: true, why: "test is listed", reads: []string{"go.mod"}, noMatch: "test"},
	{cmd: "[ -d src ]", ro: true, why: "[ is listed", reads: []string{"src"}, noMatch: "["},
	{cmd: "[ a -nt b ]", ro: true, why: "-nt compares files", reads: []string{"a", "b"}, noMatch: "["},
	{cmd: "[ \"$x\" = y ]", ro: true, why: "an expansion beside a binary operator", noMatch: "["},
	{cmd: "[ \"$x\" -eq 1 ]", ro: true, why: "test -eq does not evaluate", noMatch: "["},
	{cmd: "[ \"$a\" = \"$b\" ]", ro: true, why: "both sides of =", noMatch: "["},
	{cmd: "[ -n \"$x\" ]", ro: true, why: "the operand of -n", noMatch: "["},
	{cmd: "[ \"$x\" ]", ro: true, why: "a lone expansion", noMatch: "["},
	{cmd: "[ ! -f \"$f\" ]", ro: true, why: "after ! -f", opaque: true, noMatch: "["},
	{cmd: "[ -f ./* ]", ro: true, why: "a glob that cannot be an operator", reads: []string{"./*"}, noMatch: "["},
	{cmd: "test -v x", why: "test -v evaluates a subscript", noMatch: "test"},
	{cmd: "[ -v 'a[$(rm x)]' ]", why: "test -v runs $(..) in a subscript", noMatch: "["},
	{cmd: "[ $x = y ]", why: "an unquoted expansion may split", noMatch: "["},
	{cmd: "[ \"$a\" \"$b\" ]", why: "$a could be -v", noMatch: "["},
	{cmd: "[ \"$a\" x y ]", why: "$a could be an operator", noMatch: "["},
	{cmd: "[ x \"$a\" y ]", why: "$a could be an operator", noMatch: "["},
	{cmd: "[ -f \"$f\" -a -d x ]", why: "long expressions with expansions", opaque: true, reads: []string{"-d", "x"}, noMatch: "["},
	{cmd: "[ -f * ]", why: "a glob that could be -v", reads: []string{"*"}, noMatch: "["},
	{cmd: "[ ./* = \"$x\" ]", why: "a glob shifts the expansion", noMatch: "["},
	{cmd: "[[ -f go.mod ]]", ro: true, why: "[[ file test", cmds: []string{"[[ -f go.mod ]]"}, reads: []string{"go.mod"}},
	{cmd: "[[ $x == y* && -n $y ]]", ro: true, why: "[[ does not split"},
	{cmd: "[[ ( -f a ) && ! -d b ]]", ro: true, why: "nested file tests", reads: []string{"a", "b"}},
	{cmd: "[[ a -nt b ]]", ro: true, why: "-nt compares files", reads: []string{"a", "b"}},
	{cmd: "[[ -v x ]]", why: "[[ -v evaluates a subscript"},
	{cmd: "[[ $a -eq 1 ]]", why: "-eq evaluates $a's value as an expression"},
	{cmd: "[[ 1 -gt $a ]]", why: "-gt evaluates"},
	{cmd: "[[ $a -ne 1 || $a -le 1 || $a -ge 1 || $a -lt 1 ]]", why: "all arithmetic comparisons evaluate"},
	{cmd: "[[ -f $(rm x) ]]", why: "a substitution", cmds: []string{"[[ -f $(rm x) ]]", "rm x"}, opaque: true},

	// The evasions of issue 5.
	{cmd: "ls; rm x", why: "rm is not listed", cmds: []string{"ls", "rm x"}, reads: []string{"."}},
	{cmd: "ls && rm x", why: "rm is not listed", cmds: []string{"ls", "rm x"}, reads: []string{"."}},
	{cmd: "ls | tee f", why: "tee writes", cmds: []string{"ls", "tee f"}, reads: []string{"."}},
	{cmd: "echo $(rm x)", why: "command substitution", cmds: []string{"echo $(rm x)", "rm x"}},
	{cmd: "echo `rm x`", why: "backquote substitution", cmds: []string{"echo `rm x`", "rm x"}},
	{cmd: "echo \"$(rm x)\"", why: "substitution in double quotes", cmds: []string{"echo \"$(rm x)\"", "rm x"}},
	{cmd: "cat <(curl x)", why: "process substitution", cmds: []string{"cat <(curl x)", "curl x"}, opaque: true},
	{cmd: "ls >(cat)", why: "process substitution", opaque: true},
	{cmd: "FOO=1 ls", why: "an assignment prefix", cmds: []string{"FOO=1 ls"}, reads: []string{"."}},
	{cmd: "FOO=1", ro: true, why: "an assignment alone only sets a variable (issue 34)", cmds: []string{"FOO=1"}},
	{cmd: "X=$(rm y) ls", why: "an assignment with a substitution", cmds: []string{"X=$(rm y) ls", "rm y"}, reads: []string{"."}},
	{cmd: "$CMD x", why: "expansion in command position", cmds: []string{"$CMD x"}},
	{cmd: "\"$(echo rm)\" x", why: "substitution in command position", cmds: []string{"\"$(echo rm)\" x", "echo rm"}},
	{cmd: "$'rm' x", why: "$'..' in command position", cmds: []string{"$'rm' x"}},
	{cmd: "'r''m' x", why: "quotes do not hide rm", cmds: []string{"rm x"}},
	{cmd: "\\rm x", why: "a backslash does not hide rm", cmds: []string{"rm x"}},
	{cmd: "ls &", why: "background", cmds: []string{"ls"}, reads: []string{"."}},
	{cmd: "f() { ls; }", why: "a function definition", cmds: []string{"f() { ls; }", "ls"}, reads: []string{"."}},
	{cmd: "function f { cat x; }; f", why: "a function definition", cmds: []string{"function f { cat x; }", "cat x", "f"}, reads: []string{"x"}},
	{cmd: "cat <<EOF\nhello\nEOF", ro: true, why: "a heredoc", cmds: []string{"cat"}},
	{cmd: "cat <<EOF\n$HOME\nEOF", ro: true, why: "a heredoc with a plain expansion"},
	{cmd: "cat <<EOF\n$(rm x)\nEOF", why: "a substitution in an unquoted heredoc", cmds: []string{"cat", "rm x"}},
	{cmd: "cat <<EOF\n${x:=1}\nEOF", why: "an assignment in an unquoted heredoc"},
	{cmd: "cat <<'EOF'\n$(rm x)\nEOF", ro: true, why: "a quoted heredoc does not expand", cmds: []string{"cat"}},
	{cmd: "cat <<< hi", ro: true, why: "a here-string"},
	{cmd: "cat <<< \"$(rm x)\"", why: "a substitution in a here-string"},
	{cmd: "ls\nrm x", why: "a newline separates commands", cmds: []string{"ls", "rm x"}, reads: []string{"."}},
	{cmd: "timeout 5 rm -rf ~", why: "wrappers are never listed", cmds: []string{"timeout 5 rm -rf ~"}},
	{cmd: "env ls", why: "env is a wrapper"},
	{cmd: "nice ls", why: "nice is a wrapper"},
	{cmd: "nohup ls", why: "nohup is a wrapper"},
	{cmd: "time ls", why: "time is a wrapper", cmds: []string{"time ls", "ls"}, reads: []string{"."}},
	{cmd: "xargs cat", ro: true, why: "xargs of a command no word makes write (issue 34); its paths are unknown", opaque: true},
	{cmd: "sudo ls", why: "sudo is a wrapper"},
	{cmd: "exec ls", why: "exec is a wrapper"},
	{cmd: "command ls", why: "command is a wrapper"},
	{cmd: "builtin echo", why: "builtin is a wrapper"},
	{cmd: "python -c 'print(1)'", why: "interpreters are not listed"},
	{cmd: "node x.js", why: "interpreters are not listed"},
	{cmd: "sh -c ls", why: "interpreters are not listed"},
	{cmd: "bash -c ls", why: "interpreters are not listed"},
	{cmd: "eval ls", why: "eval runs code"},
	{cmd: "source x", why: "source runs code"},
	{cmd: ". x", why: ". runs code"},
	{cmd: "less x", why: "less runs LESSOPEN"},
	{cmd: "more x", why: "more is left out"},
	{cmd: "cd /tmp && ls", ro: true, why: "cd reads its directory (the fence judges it)", cmds: []string{"cd /tmp", "ls"}, reads: []string{"/tmp", "."}},
	{cmd: "cd - && ls", ro: true, why: "cd - goes somewhere unknown: what follows is opaque", reads: []string{"."}, opaque: true},
	{cmd: "cd \"$D\"", ro: true, why: "an expanded directory", opaque: true},
	{cmd: "cd a b", why: "cd takes one directory", opaque: true},
	{cmd: "cd", ro: true, why: "cd alone goes home", reads: []string{"~"}},
	{cmd: "/bin/ls", ro: true, why: "a listed command by its path in a system bin directory (issue 34)", reads: []string{"."}},
	{cmd: "l\\s", ro: true, why: "an escaped ls is ls", cmds: []string{"ls"}, reads: []string{"."}},
	{cmd: "l's' \"-la\"", ro: true, why: "a quoted ls is ls", cmds: []string{"ls -la"}, reads: []string{"."}},
	{cmd: "l? x", why: "a glob in command position", cmds: []string{"l? x"}},
	{cmd: "coproc ls", why: "a coprocess", cmds: []string{"coproc ls", "ls"}, reads: []string{"."}},

	// Redirections.
	{cmd: "ls > out.txt", why: "output redirection", writes: []string{"out.txt"}, reads: []string{"."}},
	{cmd: "ls >> out", why: "appending", writes: []string{"out"}, reads: []string{"."}},
	{cmd: "ls >| x", why: "clobbering", writes: []string{"x"}, reads: []string{"."}},
	{cmd: "ls &> x", why: "both streams to a file", writes: []string{"x"}, reads: []string{"."}},
	{cmd: "ls &>> x", why: "both streams appended", writes: []string{"x"}, reads: []string{"."}},
	{cmd: "ls 2> err", why: "stderr to a file", writes: []string{"err"}, reads: []string{"."}},
	{cmd: "ls <> x", why: "<> opens for writing", writes: []string{"x"}, reads: []string{"."}},
	{cmd: "ls >&x", why: ">&file is &>file", writes: []string{"x"}, reads: []string{"."}},
	{cmd: "cat <&x", why: "<& wants an fd"},
	{cmd: "ls >/dev/null 2>/dev/null", ro: true, why: "/dev/null", reads: []string{"."}},
	{cmd: "ls &>/dev/null", ro: true, why: "/dev/null", reads: []string{"."}},
	{cmd: "ls 2>&1 >&2 <&0 >&-", ro: true, why: "fd duplication", reads: []string{"."}},
	{cmd: "cat < in.txt", ro: true, why: "input redirection", reads: []string{"in.txt"}},
	{cmd: "cat < \"$F\"", ro: true, why: "expanded input redirection", opaque: true},
	{cmd: "ls {fd}>/dev/null", why: "{var}> assigns", reads: []string{"."}},
	{cmd: "ls > \"$F\"", why: "expanded output redirection", opaque: true, reads: []string{"."}},
	{cmd: "ls > ~/x", why: "output redirection", writes: []string{"~/x"}, reads: []string{"."}},
	{cmd: "ls > '~/x'", why: "a quoted ~ is a file name", writes: []string{"./~/x"}, reads: []string{"."}},
	{cmd: "ls > /dev/nul?", why: "a glob is not /dev/null", writes: []string{"/dev/nul?"}, reads: []string{"."}},
	{cmd: "{ ls; } > out", why: "a redirected block", writes: []string{"out"}, reads: []string{"."}},

	// Expansions.
	{cmd: "echo $((1+2))", ro: true, why: "constant arithmetic (issue 11 false alarm)"},
	{cmd: "echo $((x=2))", why: "arithmetic can assign"},
	{cmd: "echo $((x+1))", why: "a variable's value is evaluated as an expression"},
	{cmd: "echo $((0x1f * 2 ? 3 : 4))", ro: true, why: "constants and operators"},
	{cmd: "echo $((1++))", why: "does not parse", opaque: true},
	{cmd: "echo $((++x))", why: "increments assign"},
	{cmd: "echo $((x--))", why: "decrements assign"},
	{cmd: "echo $((x += 1))", why: "assignment operators assign"},
	{cmd: "echo $((-1 + ~2 + !0))", ro: true, why: "unary operators that do not assign"},
	{cmd: "echo $((1 + -x))", why: "a variable under a unary operator"},
	{cmd: "echo $((1\\x))", why: "a digit, then a character no number holds (a backslash)"},
	{cmd: "echo $(( (9 % 10) << 1 ))", ro: true, why: "parentheses; 9 and 0 are digits"},
	{cmd: "echo $((16#aF + 36#z + 64#@_ + 2#10))", ro: true, why: "BASE#digits: letters, @ and _ are digits there, never names"},
	{cmd: "(( x = 1 ))", why: "arithmetic command", cmds: []string{"(( x = 1 ))"}},
	{cmd: "let x=1", why: "let assigns", cmds: []string{"let x=1"}},
	{cmd: "export X=1", ro: true, why: "export of a literal value (issue 34)", cmds: []string{"export X=1"}},
	{cmd: "declare -p", why: "declare is not listed"},
	{cmd: "echo ${x:=v}", why: "${x:=v} assigns"},
	{cmd: "echo ${x=v}", why: "${x=v} assigns"},
	{cmd: "echo ${x@P}", why: "prompt expansion runs $(..)"},
	{cmd: "echo ${!x}", why: "indirection evaluates subscripts"},
	{cmd: "echo ${a[$i]}", why: "an expression subscript is evaluated"},
	{cmd: "echo ${a[i]}", why: "a name subscript is evaluated too"},
	{cmd: "echo ${x:$n}", why: "an expression slice is evaluated"},
	{cmd: "echo ${x:1:$n}", why: "an expression slice length"},
	{cmd: "echo ${a[$(rm x)]}", why: "a substitution in a subscript", cmds: []string{"echo ${a[$(rm x)]}", "rm x"}},
	{cmd: "echo ${a[0]} \"${a[@]}\" ${a[*]} ${x:1:2} ${x:2}", ro: true, why: "literal subscripts and slices"},
	{cmd: "echo ${x:-default} ${x-d} ${x:+alt} ${x?err} ${x#p} ${x%%s} ${x/a/b} ${x//} ${x^^} ${#x}", ro: true, why: "reading expansions"},
	{cmd: "echo ${x:-$(rm y)}", why: "a substitution in a default", cmds: []string{"echo ${x:-$(rm y)}", "rm y"}},
	{cmd: "echo ${x/$(rm y)/z}", why: "a substitution in a pattern", cmds: []string{"echo ${x/$(rm y)/z}", "rm y"}},
	{cmd: "echo ${x/a/$(rm y)}", why: "a substitution in a replacement", cmds: []string{"echo ${x/a/$(rm y)}", "rm y"}},
	{cmd: "echo \"$HOME\" $HOME/x", ro: true, why: "plain expansions in arguments", cmds: []string{"echo \"$HOME\" $HOME/x"}},
	{cmd: "echo ~", ro: true, why: "tilde"},
	{cmd: "cat ~/.ssh/id_rsa", ro: true, why: "a home path stays as written", reads: []string{"~/.ssh/id_rsa"}},
	{cmd: "cat ~root/x", ro: true, why: "~user stays as written", reads: []string{"~root/x"}},
	{cmd: "cat '~/x'", ro: true, why: "a quoted ~ is a file", reads: []string{"./~/x"}},
	{cmd: "cat \"$HOME/.ssh/id_rsa\"", ro: true, why: "an expanded path", opaque: true},
	{cmd: "ls \"$d\"", ro: true, why: "an expanded path", opaque: true},
	{cmd: "cat @(a|b)", ro: true, why: "an extended glob", opaque: true},
	{cmd: "echo $'\\x72m' x", ro: true, why: "$'..' as an argument", cmds: []string{"echo $'\\x72m' x"}},

	// Compound commands.
	{cmd: "cat x | grep y", ro: true, why: "a pipeline", reads: []string{"x"}, noMatch: "grep"},
	{cmd: "ls |& cat", ro: true, why: "|& pipes stderr too", reads: []string{"."}},
	{cmd: "! grep x f", ro: true, why: "negation", reads: []string{"f"}},
	{cmd: "{ ls; cat x; }", ro: true, why: "a block", reads: []string{".", "x"}},
	{cmd: "(ls; pwd)", ro: true, why: "a subshell", reads: []string{"."}},
	{cmd: "(cd x && ls)", ro: true, why: "cd in a subshell", reads: []string{"x", "."}},
	{cmd: "while true; do sleep 1; done", ro: true, why: "a while loop"},
	{cmd: "until false; do echo; done", ro: true, why: "an until loop"},
	{cmd: "while rm x; do :; done", why: "the condition runs rm"},
	{cmd: "if test -f a; then cat a; else echo no; fi", ro: true, why: "if", reads: []string{"a"}},
	{cmd: "if true; then ls; elif false; then rm x; fi", why: "rm in elif", reads: []string{"."}},
	{cmd: "if true; then ls; else rm x; fi", why: "rm in else", reads: []string{"."}},
	{cmd: "case $x in a) ls;; esac", ro: true, why: "case", reads: []string{"."}},
	{cmd: "case $x in a) ls;; *) rm y;; esac", why: "rm in case", reads: []string{"."}},
	{cmd: "case x in $(rm y)) ;; esac", why: "a substitution in a pattern", cmds: []string{"rm y"}},
	{cmd: "case $(rm y) in x) ;; esac", why: "a substitution in the word", cmds: []string{"rm y"}},
	{cmd: "for f in *.go; do wc -l \"$f\"; done", ro: true, why: "a for loop", cmds: []string{"for f in *.go", "wc -l \"$f\""}, opaque: true},
	{cmd: "for x in $(ls); do echo $x; done", ro: true, why: "a read-only substitution in the list", cmds: []string{"for x in $(ls)", "ls", "echo $x"}, reads: []string{"."}},
	{cmd: "for x in $(rm y); do echo $x; done", why: "rm in a substitution", cmds: []string{"for x in $(rm y)", "rm y", "echo $x"}},
	{cmd: "for PATH in /tmp; do ls; done", why: "the loop assigns PATH", reads: []string{"."}},
	{cmd: "for ((i=0;i<3;i++)); do echo $i; done", why: "arithmetic assigns", cmds: []string{"for ((i=0;i<3;i++))", "echo $i"}},
	{cmd: "for ((;$(rm x);)); do :; done", why: "a substitution in arithmetic", cmds: []string{"for ((;$(rm x);))", "rm x", ":"}},
	{cmd: "select x in a b; do echo $x; done", why: "select"},
	{cmd: "ls # comment", ro: true, why: "a comment", cmds: []string{"ls"}, reads: []string{"."}},
	{cmd: "ls \\\n  -la", ro: true, why: "a line continuation", cmds: []string{"ls -la"}, reads: []string{"."}},

	// Nothing to run, and parse errors.
	{cmd: "", why: "nothing to run"},
	{cmd: "  # only a comment", why: "nothing to run"},
	{cmd: "ls (", why: "a parse error", cmds: []string{"ls ("}, opaque: true},
	{cmd: " echo \"unterminated ", why: "a parse error", cmds: []string{"echo \"unterminated"}, opaque: true},

	// Edges: options and operands at the end of the words, escapes.
	{cmd: "ls 9>/dev/null 2>&9", ro: true, why: "fd 9", reads: []string{"."}},
	{cmd: "echo \"\\$HOME\" \"a\\b\"", ro: true, why: "escapes in double quotes", cmds: []string{"echo '$HOME' 'a\\b'"}},
	{cmd: "cat a\\", ro: true, why: "a trailing backslash", reads: []string{"a\\"}},
	{cmd: "rg", ro: true, why: "rg without a pattern only fails", reads: []string{"."}, noMatch: "rg"},
	{cmd: "head --lines", ro: true, why: "a value option last"},
	{cmd: "head -n", ro: true, why: "a value option last"},
	{cmd: "find -L", ro: true, why: "only global options", reads: []string{"."}},
	{cmd: "find a b", ro: true, why: "starting points only", reads: []string{"a", "b"}},
	{cmd: "find . -newer", ro: true, why: "-newer without its file", reads: []string{"."}},
	{cmd: "test \"$x\" ]", why: "] closes only [", noMatch: "test"},
	{cmd: "[", ro: true, why: "[ alone only fails", noMatch: "["},
	{cmd: "[ -f ]", ro: true, why: "-f without its operand", noMatch: "["},
	{cmd: "[ -nt x ]", ro: true, why: "-nt without its left side", noMatch: "["},
	{cmd: "[ x -nt ]", ro: true, why: "-nt without its right side", noMatch: "["},
	{cmd: "git blame --contents", ro: true, why: "--contents without its file"},
	{cmd: "sed -n -e", why: "-e without its script"},
	{cmd: "sed -n p -", ro: true, why: "- is stdin"},
	{cmd: "sed -n 1 f", why: "an address without a command", reads: []string{"f"}},
	{cmd: "sed -n '\\' f", why: "a backslash without a delimiter", reads: []string{"f"}},
	{cmd: "sed -n '\\\\a\\\\p' f", why: "a backslash as delimiter", reads: []string{"f"}},
	{cmd: "sed -n '\\\np' f", why: "a newline as delimiter", reads: []string{"f"}},
	{cmd: "sed -n '/a\nb/p' f", why: "a newline in a regex", reads: []string{"f"}},

	// NoMatchExit: the last command of the last pipeline.
	{cmd: "grep x f | head -5", ro: true, why: "head is last", reads: []string{"f"}},
	{cmd: "grep x f && echo found", ro: true, why: "echo is last", reads: []string{"f"}},
	{cmd: "ls && grep x f", ro: true, why: "grep is last", reads: []string{".", "f"}, noMatch: "grep"},
	{cmd: "grep x f || true", ro: true, why: "true is last", reads: []string{"f"}},
	{cmd: "{ ls; grep x f; }", ro: true, why: "grep is last in the block", reads: []string{".", "f"}, noMatch: "grep"},
	{cmd: "(grep x f)", ro: true, why: "grep is last in the subshell", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "grep x f &", why: "background", reads: []string{"f"}},
	{cmd: "diff a b; echo done", ro: true, why: "echo is last", reads: []string{"a", "b"}},
	{cmd: "\\grep x f", ro: true, why: "an escaped grep", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "echo; [ -f x ]", ro: true, why: "[ is last", reads: []string{"x"}, noMatch: "["},
	{cmd: "rm x; grep y f", why: "grep is last", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "if true; then grep x f; fi", ro: true, why: "an if is not followed", reads: []string{"f"}},
	{cmd: "x=1 grep y f", why: "an assignment prefix still runs grep", reads: []string{"f"}, noMatch: "grep"},
	{cmd: "> f", why: "a truncating redirection alone", cmds: []string{}, writes: []string{"f"}},
	{cmd: "$(grep x f)", why: "a substitution in command position", cmds: []string{"$(grep x f)", "grep x f"}, reads: []string{"f"}},
}

func TestAnalyzeTable(t *testing.T) {
	if len(anTable) < 120 {
		t.Fatalf("the classifier table has %d rows; issue 5 asks for at least 80, and we keep 120+", len(anTable))
	}
	checkTable(t, anTable)
}

// checkTable checks each row's analysis by Analyze, which asks nothing but for a command it refuses to parse.
func checkTable(t *testing.T, rows []anCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range rows {
		if seen[c.cmd] {
			t.Errorf("duplicate row %q", c.cmd)
		}
		seen[c.cmd] = true
		t.Run(c.cmd, func(t *testing.T) {
			a := Analyze(c.cmd)
			if a.ReadOnly != c.ro {
				t.Errorf("ReadOnly = %v, want %v: %s", a.ReadOnly, c.ro, c.why)
			}
			if c.cmds != nil && !slices.Equal(a.Commands, c.cmds) {
				t.Errorf("Commands = %q, want %q", a.Commands, c.cmds)
			}
			if !slices.Equal(a.ReadPaths, c.reads) {
				t.Errorf("ReadPaths = %q, want %q", a.ReadPaths, c.reads)
			}
			if !slices.Equal(a.WritePaths, c.writes) {
				t.Errorf("WritePaths = %q, want %q", a.WritePaths, c.writes)
			}
			if a.Opaque != c.opaque {
				t.Errorf("Opaque = %v, want %v", a.Opaque, c.opaque)
			}
			if a.NoMatchExit != c.noMatch {
				t.Errorf("NoMatchExit = %q, want %q", a.NoMatchExit, c.noMatch)
			}
			switch got := strings.Join(a.Asks, " | "); {
			case riskyText(c.cmd):
			case c.ask == "" && got != "", c.ask != "" && !strings.Contains(got, c.ask):
				t.Errorf("Asks = %q, want %q", got, c.ask)
			}
		})
	}
}

// TestAnalyzeIssueExamples checks that the table holds every example and evasion issue 5 names.
func TestAnalyzeIssueExamples(t *testing.T) {
	must := []string{
		"ls; rm x", "ls && rm x", "ls | tee f", "echo $(rm x)", "echo `rm x`", "cat <(curl x)", "FOO=1 ls",
		"$CMD x", "'r''m' x", "\\rm x", "ls &", "f() { ls; }", "cat <<EOF\nhello\nEOF", "cat <<EOF\n$(rm x)\nEOF",
		"ls\nrm x", "timeout 5 rm -rf ~",
	}
	for _, name := range strings.Fields("cat head tail wc ls pwd echo printf grep rg find tree file stat du df " +
		"which type whoami date sort uniq cut tr nl diff cmp basename dirname realpath sleep true false test [ " +
		"less more env nice nohup time xargs sudo exec command builtin python node sh") {
		found := false
		for _, c := range anTable {
			found = found || strings.HasPrefix(c.cmd, name+" ") || c.cmd == name
		}
		if !found {
			t.Errorf("no row of the table runs %s", name)
		}
	}
	for _, sub := range []string{"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"} {
		must = append(must, "git "+sub)
	}
	for _, m := range must {
		found := false
		for _, c := range anTable {
			found = found || strings.HasPrefix(c.cmd, m)
		}
		if !found {
			t.Errorf("the table lacks the issue's example %q", m)
		}
	}
}

// anBench are typical commands: Analyze runs on every Bash Prepare.
var anBench = []struct{ name, cmd string }{
	{"ls", "ls -la"},
	{"git-log", "git log --oneline -20"},
	{"grep-pipe", "grep -rn TODO src | head -20"},
	{"go-test", "cd /work && go test ./... 2>&1 | tail -50"},
	{"for-loop", `for f in *.go; do wc -l "$f"; done`},
	{"sed-heredoc", "sed -n '/^func /p' main.go && cat <<EOF\nsummary for $USER\nEOF"},
}

func BenchmarkAnalyze(b *testing.B) {
	for _, bc := range anBench {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyze(bc.cmd)
			}
		})
	}
}

// BenchmarkAnalyzeParseOnly is the parser alone, the floor under BenchmarkAnalyze.
func BenchmarkAnalyzeParseOnly(b *testing.B) {
	for _, bc := range anBench {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(bc.cmd), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
