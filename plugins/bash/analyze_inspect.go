package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Inspection tools and version queries (issue 34): programs that print what a file, an archive or the system
// holds. Each is allowed only in the forms that neither write nor run another program; an option riot does not
// know refuses (`only`), since these tools grow options that follow debug links over the network or load plugins.

// only is a flag check that refuses every option but names: short ones exactly, long ones exactly or as
// --name=value. An abbreviation is refused: getopt_long would take it for whichever option it abbreviates.
func only(names ...string) func([]option, []word) bool {
	return func(opts []option, _ []word) bool {
		for _, o := range opts {
			if !slices.Contains(names, o.name) && !isDigits(strings.TrimPrefix(o.name, "-")) {
				return false
			}
		}
		return true
	}
}

// noResponseFile refuses an operand `@file`: binutils read more options from it.
func noResponseFile(check func([]option, []word) bool) func([]option, []word) bool {
	return func(opts []option, ops []word) bool {
		for _, o := range ops {
			if strings.HasPrefix(o.text, "@") {
				return false
			}
		}
		return check(opts, ops)
	}
}

// binutils' options that only print what the file holds. Left out: the DWARF dumps (-W, --dwarf, -g, -e,
// --debug-dump, -w, -P) and -S/-l, which follow links to separate debug files (over debuginfod, the network);
// nm --plugin, which loads a shared object.
var (
	objdumpOnly = []string{
		"-a", "-f", "-h", "-x", "-d", "-D", "-s", "-t", "-T", "-r", "-R", "-C", "-w", "-z", "-j", "-M", "-b", "-m",
		"--archive-headers", "--file-headers", "--section-headers", "--headers", "--all-headers", "--disassemble",
		"--disassemble-all", "--full-contents", "--syms", "--dynamic-syms", "--reloc", "--dynamic-reloc", "--demangle",
		"--wide", "--disassemble-zeroes", "--section", "--disassembler-options", "--target", "--architecture",
		"--no-show-raw-insn", "--show-raw-insn", "--start-address", "--stop-address", "--prefix-addresses",
		"--no-addresses", "--visualize-jumps", "--private-headers", "-p", "--insn-width", "--disassembler-color",
	}
	readelfOnly = []string{
		"-a", "-h", "-l", "-S", "-g", "-t", "-e", "-s", "-n", "-r", "-u", "-d", "-V", "-A", "-I", "-W", "-x", "-p",
		"-R", "-c", "-D", "-C", "-z", "--all", "--file-header", "--program-headers", "--segments", "--section-headers",
		"--sections", "--section-groups", "--section-details", "--headers", "--symbols", "--syms", "--dyn-syms",
		"--notes", "--relocs", "--unwind", "--dynamic", "--version-info", "--arch-specific", "--histogram", "--wide",
		"--hex-dump", "--string-dump", "--relocated-dump", "--archive-index", "--use-dynamic", "--demangle",
		"--decompress", "--lto-syms", "--sym-base",
	}
	nmOnly = []string{
		"-a", "-A", "-o", "-B", "-C", "-D", "-g", "-n", "-v", "-p", "-P", "-r", "-S", "-s", "-u", "-U", "-j", "-f", "-t",
		"-X", "--debug-syms", "--print-file-name", "--demangle", "--dynamic", "--defined-only", "--extern-only",
		"--numeric-sort", "--no-sort", "--portability", "--reverse-sort", "--print-size", "--print-armap",
		"--size-sort", "--undefined-only", "--format", "--radix", "--just-symbols", "--special-syms", "--no-demangle",
		"--quiet", "--without-symbol-versions", "--with-symbol-versions",
	}
	stringsOnly = []string{
		"-a", "-d", "-f", "-n", "-t", "-o", "-e", "-w", "-s", "-U", "-T", "--all", "--data", "--print-file-name",
		"--bytes", "--radix", "--encoding", "--include-all-whitespace", "--output-separator", "--unicode", "--target",
	}
)

// xxdCmd allows xxd with at most one operand: the second is the output file, which it writes (with -r it
// patches it). xxd stops at the first operand and takes a value option's value from the next word only when the
// option is the bare letter; where riot is unsure it counts one operand more, which refuses.
func xxdCmd(w *walker, _ string, args []word) bool {
	var ops []word
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if !args[i].lit {
			return false // an expansion may be an option or an operand
		}
		if t == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			ops = append(ops, args[i:]...)
			break
		}
		if strings.HasPrefix(t, "--") {
			t = t[1:]
		}
		if len(t) == 2 && strings.IndexByte("cglnosR", t[1]) >= 0 {
			i++
		}
	}
	return w.inOut(ops)
}

// unzipCmd allows the listing and testing forms (-l, -v, -t, -Z, -z): nothing is extracted. The first operand
// is the archive; the rest name members in it. -d (a directory to extract to) and -x lists are refused.
func unzipCmd(w *walker, _ string, args []word) bool {
	mode := false
	var ops []word
	for _, a := range args {
		t := a.text
		switch {
		case !a.fixed():
			return false
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for _, c := range t[1:] {
				switch {
				case strings.ContainsRune("lvtZz", c):
					mode = true
				case strings.ContainsRune("qs1hmTMC", c): // quiet, listing details, case-insensitive matching
				default:
					return false
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 {
		w.readPath(ops[0])
	}
	return mode && len(ops) > 0
}

// tarCmd allows listing an archive file: -t with -f FILE, and options that only shape the listing. Not -x, -c
// and the other modes (they write), the options that run programs (--to-command, -I/--use-compress-program,
// --checkpoint-action, --info-script, --rsh-command), that write (--index-file, -g, --volno-file) or read file
// lists (-T), -C, and an archive name with a colon, which tar opens on a remote host unless --force-local. A
// compressed archive runs its decompressor, one of the system's (gzip, xz, ...).
func tarCmd(w *walker, _ string, args []word) bool {
	list, force := false, false
	var file *word
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.fixed() {
			return false
		}
		cluster, isOpt := strings.CutPrefix(t, "-")
		if i == 0 && !isOpt {
			cluster, isOpt = t, true // `tar tf x.tar`: the first word is a cluster
		}
		switch {
		case !isOpt || t == "-":
			ops = append(ops, a)
		case strings.HasPrefix(cluster, "-"):
			name, v, eq := strings.Cut(t, "=")
			switch name {
			case "--list":
				list = true
			case "--file":
				if eq {
					file = &word{text: v, lit: true}
				} else if i+1 < len(args) {
					i++
					file = &args[i]
				}
			case "--force-local":
				force = true
			case "--verbose", "--gzip", "--gunzip", "--bzip2", "--xz", "--lzma", "--zstd", "--auto-compress",
				"--numeric-owner", "--full-time", "--utc", "--quiet", "--ignore-zeros", "--wildcards", "--no-wildcards",
				"--anchored", "--no-anchored", "--ignore-case", "--show-transformed-names", "--no-recursion",
				"--recursion", "--occurrence", "--block-number", "--totals":
			default:
				return false
			}
		default:
			for j := 0; j < len(cluster); j++ {
				switch c := cluster[j]; {
				case c == 't':
					list = true
				case c == 'f':
					rest := cluster[j+1:]
					switch {
					case rest != "":
						file = &word{text: rest, lit: true}
					case i+1 < len(args):
						i++
						file = &args[i]
					}
					j = len(cluster)
				case strings.IndexByte("vzjJZRi", c) >= 0: // verbose, the compressions, block numbers, zero blocks
				default:
					return false
				}
			}
		}
	}
	if file == nil || !list || strings.Contains(file.text, ":") && !force {
		return false
	}
	if file.text != "-" {
		w.readPath(*file)
	}
	_ = ops // member names inside the archive, not paths
	return true
}

// jqCmd allows jq: it reads its input files and computes, and has no way to write a file or run a program. The
// first operand is the filter; the others are input files, but after --args or --jsonargs, which make them
// values. --slurpfile and --rawfile read a file. Not -f/--from-file and -L, whose filter or modules riot does
// not see, nor a filter that imports or includes a module (which reads a file).
func jqCmd(w *walker, _ string, args []word) bool {
	filter, values, afterDD := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.lit:
			return false
		case t == "--" && !afterDD:
			afterDD = true
		case !afterDD && strings.HasPrefix(t, "-") && len(t) > 1:
			switch t {
			case "--arg", "--argjson":
				i += 2
			case "--slurpfile", "--rawfile":
				if i+2 < len(args) {
					w.readPath(args[i+2])
				}
				i += 2
			case "--indent":
				i++
			case "--args", "--jsonargs":
				values = true
			case "--null-input", "--raw-input", "--slurp", "--compact-output", "--tab", "--color-output",
				"--monochrome-output", "--ascii-output", "--unbuffered", "--sort-keys", "--raw-output", "--join-output",
				"--raw-output0", "--exit-status", "--seq", "--stream", "--stream-errors":
			default:
				if strings.HasPrefix(t, "--") || strings.Trim(t[1:], "nRscCMajrSe") != "" {
					return false
				}
			}
		case !filter:
			filter = true
			if a.glob || strings.Contains(t, "import") || strings.Contains(t, "include") {
				return false
			}
		case !values:
			if !a.flagSafe() {
				return false
			}
			w.readPath(a)
		}
	}
	return filter
}

// commandCmd allows `command -v NAME` and `command -V NAME`, which only look names up.
func commandCmd(_ *walker, _ string, args []word) bool {
	return len(args) >= 2 && args[0].fixed() && (args[0].text == "-v" || args[0].text == "-V") &&
		!slices.ContainsFunc(args[1:], func(a word) bool { return !a.fixed() })
}

// shellSyntaxCmd allows `bash -n FILE` and `sh -n FILE`: the shell reads the script and runs none of it (nor
// $BASH_ENV). Any other option could make it interactive or a login shell, which runs startup files.
func shellSyntaxCmd(w *walker, _ string, args []word) bool {
	if len(args) < 2 || !args[0].fixed() || args[0].text != "-n" {
		return false
	}
	for _, a := range args[1:] {
		if !a.flagSafe() || strings.HasPrefix(a.text, "-") {
			return false
		}
	}
	w.readPath(args[1])
	return true
}

// lsofCheck refuses -i without -n (lsof would look the addresses up in DNS, over the network) and -D, whose
// b and u build or update a device cache file.
func lsofCheck(opts []option, _ []word) bool {
	return !hasOpt(opts, "-D") && (!hasOpt(opts, "-i") || hasOpt(opts, "-n"))
}

// pythonCmd allows `python3 -m json.tool [options] [FILE]`: one operand, since a second is the file it writes.
// With -m, Python puts the working directory first on sys.path, so a json module there would run instead: with
// an Env, the call asks when the directory holds one (not under -I, which leaves it out).
func pythonCmd(w *walker, _ string, args []word) bool {
	isolated := len(args) > 0 && args[0].text == "-I"
	if isolated {
		args = args[1:]
	}
	if len(args) < 2 || args[0].text != "-m" || args[1].text != "json.tool" {
		return false
	}
	var ops []word
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch t := a.text; {
		case !a.flagSafe():
			return false
		case t == "--indent":
			i++
		case slices.Contains([]string{"--sort-keys", "--tab", "--no-indent", "--compact", "--json-lines", "--no-ensure-ascii"}, t):
		case strings.HasPrefix(t, "-") && t != "-":
			return false
		default:
			ops = append(ops, a)
		}
	}
	if !isolated {
		w.shadowedModule("json")
	}
	return w.inOut(ops)
}

// shadowedModule asks when a module of that name lies in the directory the command runs in, which python -m
// would import before the standard library's.
func (w *walker) shadowedModule(mod string) {
	if w.env == nil {
		return
	}
	if len(w.dirs) != 1 {
		w.ask(fmt.Sprintf("`python3 -m %s` imports from the directory it runs in, which riot cannot tell after this `cd`; running it needs the user's approval. Run the `cd` in a call of its own first.", mod))
		return
	}
	ents, err := os.ReadDir(w.dirs[0])
	if err != nil {
		w.ask(fmt.Sprintf("riot cannot list %s to check that no module there shadows Python's %s, so running it needs the user's approval.", w.dirs[0], mod))
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), mod) {
			w.ask(fmt.Sprintf("%s holds %s, which `python3 -m %s` would import instead of the standard library's, running it; running it needs the user's approval. Use `python3 -I -m %s`.", w.dirs[0], e.Name(), mod, mod))
			return
		}
	}
}

// versionFlags are the programs whose version query prints a version and runs no project code, by their own
// documentation, and the arguments that ask it. Left out: go (a go.mod's toolchain line downloads and runs
// another Go), rustc and cargo behind rustup (a rust-toolchain.toml may name a toolchain in the project), npm
// (its startup reads the project's .npmrc and checks for updates over the network).
var versionFlags = map[string][]string{
	"node": {"--version", "-v"}, "python3": {"--version", "-V"}, "python": {"--version", "-V"},
	"gcc": {"--version"}, "g++": {"--version"}, "cc": {"--version"}, "c++": {"--version"}, "clang": {"--version"},
	"clang++": {"--version"}, "git": {"--version"}, "make": {"--version", "-v"}, "java": {"-version", "--version"},
	"javac": {"-version", "--version"}, "perl": {"--version", "-v"}, "bash": {"--version"}, "curl": {"--version", "-V"},
	"jq": {"--version"}, "rg": {"--version", "-V"}, "tar": {"--version"}, "cmake": {"--version"},
	"ld": {"--version", "-v"}, "as": {"--version"}, "strace": {"-V", "--version"}, "gzip": {"--version"},
	"objdump": {"--version"}, "readelf": {"--version"}, "nm": {"--version"}, "strings": {"--version"},
	"file": {"--version"}, "xxd": {"-v", "--version"}, "unzip": {"-v"}, "lsof": {"-v"}, "ps": {"--version", "-V"},
	"man": {"--version"}, "ruby": {"--version"}, "php": {"--version", "-v"},
}

// versionQuery reports whether args only ask name for its version (`node --version`). With an Env, the program
// must be found on PATH outside the workspace roots: one the project holds is the project's code.
func (w *walker) versionQuery(name string, args []word) bool {
	flags, ok := versionFlags[name]
	if !ok || len(args) != 1 || !args[0].fixed() || !slices.Contains(flags, args[0].text) {
		return false
	}
	return true
}

// checkResolved asks, with an Env, when name is found on PATH in the workspace roots (or in a relative PATH
// entry, which depends on the directory): what would run is then the project's, not a program riot vouches for.
func (w *walker) checkResolved(name string) {
	if w.env == nil || strings.Contains(name, "/") {
		return
	}
	for _, dir := range filepath.SplitList(w.env.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			// Relative to the directory the command runs in, which may hold it, or be unknown (after a `cd`).
			if len(w.dirs) == 0 || slices.ContainsFunc(w.dirs, func(d string) bool { return fileIsExec(filepath.Join(d, dir, name)) }) {
				w.ask(fmt.Sprintf("`%s` may be found through the relative PATH entry %q, in the project, so running it needs the user's approval. Call it by its absolute path.", name, dir))
				return
			}
			continue
		}
		p := filepath.Join(dir, name)
		if !fileIsExec(p) {
			continue
		}
		if w.inRootsPhysical(p) {
			w.ask(fmt.Sprintf("`%s` is %s, in the workspace, so it is the project's code; running it needs the user's approval.", name, p))
		}
		return
	}
	// Not found: nothing runs.
}

func fileIsExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// systemBinDirs hold the programs an absolute path may name in place of a listed command's name: only root
// writes them.
var systemBinDirs = []string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/"}

// systemName is the listed command an absolute path in a system bin directory names (`/usr/bin/cat` is cat),
// or "".
func systemName(name string) string {
	for _, d := range systemBinDirs {
		// No listed name is empty or holds a slash, so `/usr/bin/../x` and `/usr/bin/sub/x` name none.
		if rest, ok := strings.CutPrefix(name, d); ok {
			if _, listed := allowList[rest]; listed && !bashBuiltins[rest] || versionFlags[rest] != nil {
				return rest
			}
		}
	}
	return ""
}

// bashBuiltins are the listed commands bash runs itself, never from PATH.
var bashBuiltins = map[string]bool{
	"cd": true, "echo": true, "printf": true, "pwd": true, "true": true, "false": true, "test": true, "[": true,
	"type": true, "command": true,
}

// samePrograms are the builtins xargs may run: it runs the program of that name, not the builtin whose words
// riot checks, and these programs only print or exit.
var samePrograms = map[string]bool{"echo": true, "pwd": true, "true": true, "false": true}

// readCmd allows the read builtin into variables with a lowercase letter (see assign): it sets them from its
// input and nothing else. -a names an array to set.
func readCmd(_ *walker, _ string, args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.fixed() {
			return false
		}
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			flag := strings.TrimLeft(t[1:], "rse")
			if flag == "" {
				continue
			}
			if !strings.Contains("adinNptu", flag[:1]) {
				return false
			}
			if len(flag) == 1 {
				i++
			}
			if flag[0] == 'a' && (len(flag) > 1 && !lowerName(flag[1:]) || len(flag) == 1 && (i >= len(args) || !lowerName(args[i].text))) {
				return false
			}
			continue
		}
		if !lowerName(t) {
			return false
		}
	}
	return true
}

// lowerName reports whether s is a variable name with a lowercase letter, which no program reads.
func lowerName(s string) bool {
	if s == "" || strings.ToUpper(s) == s {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// xargsCmd allows xargs running a listed command that no word can make write or run a program (no option
// check, strictness, custom parse or written file: cat, head, wc, echo and the like), since the words it
// adds come from its input. Those words may be paths, which riot cannot see: the call is opaque. Not -a (a
// file of arguments), -p and -o (the terminal), nor a command given by an expansion.
func xargsCmd(w *walker, _ string, args []word) bool {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if !args[i].fixed() {
			return false
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if t == "--" {
			i++
			break
		}
		if strings.HasPrefix(t, "--") {
			name, _, eq := strings.Cut(t, "=")
			switch name {
			case "--null", "--no-run-if-empty", "--verbose", "--exit":
			case "--max-args", "--max-lines", "--max-procs", "--delimiter", "--max-chars", "--eof", "--replace":
				if !eq && name != "--replace" && name != "--eof" {
					i++
				}
			default:
				return false
			}
			continue
		}
		flags := strings.TrimLeft(t[1:], "0rtx")
		switch {
		case flags == "":
		case strings.Contains("nLPdsEI", flags[:1]):
			if len(flags) == 1 {
				i++
			}
		case flags[0] == 'i' || flags[0] == 'l' || flags[0] == 'e': // optional values, attached only
		default:
			return false
		}
	}
	if i >= len(args) {
		return true // echo
	}
	name := args[i].text
	if sys := systemName(name); sys != "" {
		name = sys
	}
	s, ok := allowList[name]
	if !ok || s.custom != nil || s.check != nil || s.strict != anyWord || len(s.writes) > 0 || bashBuiltins[name] && !samePrograms[name] {
		return false
	}
	if s.paths != noPaths || len(s.files) > 0 {
		w.a.Opaque = true
	}
	at := len(w.a.Commands)
	w.simple(name, args[i+1:])
	w.a.Commands = w.a.Commands[:at]
	return w.ro
}
