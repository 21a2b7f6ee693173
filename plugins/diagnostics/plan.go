package diagnostics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/riot-tools/riot/plugin"
)

// The checkers, by the name the model passes in `checker`.
const (
	checkerGo      = "go"
	checkerCargo   = "cargo"
	checkerTsc     = "tsc"
	checkerRuff    = "ruff"
	checkerPyright = "pyright"
)

// checkerNames is the enum of `checker`, in the order the prompt lists them.
var checkerNames = []string{checkerGo, checkerCargo, checkerTsc, checkerRuff, checkerPyright}

// checkerInfo is what detection and the failure messages know about one
// checker.
type checkerInfo struct {
	// label names the checker in the summary line: "go vet".
	label string
	// binary is the executable's name.
	binary string
	// markers are the files that make a directory its project root when
	// the model names this checker explicitly.
	markers []string
	// localBins are project-relative directories searched for binary, from
	// the project root up to the workspace root, before PATH.
	localBins []string
	// install tells the model how to install it.
	install string
}

var checkers = map[string]checkerInfo{
	checkerGo: {
		label: "go vet", binary: "go", markers: []string{"go.mod"},
		install: "Install Go (https://go.dev/doc/install) and make sure `go` is on PATH.",
	},
	checkerCargo: {
		label: "cargo check", binary: "cargo", markers: []string{"Cargo.toml"},
		install: "Install the Rust toolchain with rustup (https://rustup.rs) and make sure `cargo` is on PATH.",
	},
	checkerTsc: {
		label: "tsc", binary: "tsc", markers: []string{"tsconfig.json"},
		localBins: []string{"node_modules/.bin"},
		install:   "Install TypeScript in the project (`npm install --save-dev typescript`, which provides node_modules/.bin/tsc) or globally (`npm install -g typescript`).",
	},
	checkerRuff: {
		label: "ruff", binary: "ruff", markers: []string{"pyproject.toml", "setup.py", "ruff.toml", ".ruff.toml"},
		localBins: []string{".venv/bin", "venv/bin"},
		install:   "Install ruff (`pip install ruff`, `uv tool install ruff` or `pipx install ruff`), or into the project's .venv.",
	},
	checkerPyright: {
		label: "pyright", binary: "pyright", markers: []string{"pyproject.toml", "setup.py", "pyrightconfig.json"},
		localBins: []string{"node_modules/.bin", ".venv/bin", "venv/bin"},
		install:   "Install pyright (`npm install -g pyright` or `pip install pyright`), or into the project.",
	},
}

// autoMarkers are the markers detection looks for, in the order that
// breaks a tie between markers in the same directory. checkerPython means
// ruff or pyright, whichever is installed.
var autoMarkers = []struct{ file, checker string }{
	{"go.mod", checkerGo},
	{"Cargo.toml", checkerCargo},
	{"tsconfig.json", checkerTsc},
	{"pyproject.toml", checkerPython},
	{"setup.py", checkerPython},
}

const checkerPython = "python"

// plan is one resolved call: which checker runs, where, on what.
type plan struct {
	// Checker is go, cargo, tsc, ruff or pyright.
	Checker string
	// Marker is the absolute path of the marker file that chose it.
	Marker string
	// Dir is where the command runs: the directory holding the marker.
	Dir string
	// Target is the absolute path the model asked to check.
	Target string
	// Binary is the resolved executable, or "" when it is not installed.
	Binary string
	// Args follow the binary.
	Args []string
	// Display is the command as shown to the model, the user and the
	// permission rules, without the machine-output flags: "go vet ./...".
	Display string
	// Scope is what is checked, relative to the workspace root:
	// "./internal/..." for go, the project directory for the others.
	Scope string
	// Shown is Target as the Describe line names it, and DirShown is Dir,
	// both relative to the workspace root: "./internal", or ".".
	Shown    string
	DirShown string
	// AlsoMissing names a second checker that is not installed either
	// (pyright, when neither Python checker is).
	AlsoMissing string
}

// lookup finds executables on path, the PATH the checkers get.
type lookup struct {
	path string
}

// makePlan resolves the input against the file system: the path, the
// nearest marker, the checker, the command and its executable. The string
// is a rejection for the model when no plan can be made.
func makePlan(in *Input, env *plugin.Env, lk lookup) (*plan, string) {
	if in.Checker != "" {
		if _, ok := checkers[in.Checker]; !ok {
			return nil, fmt.Sprintf("`checker` must be one of %s, or omitted to detect the checker from the project; got %q.", strings.Join(checkerNames, ", "), in.Checker)
		}
	}
	p := in.Path
	if p == "" {
		p = "."
	}
	target := env.Abs(p)
	if !filepath.IsAbs(target) {
		// Only a host that sent no working directory gets here.
		return nil, "The workspace directory is unknown, so a relative `path` cannot be resolved. Pass an absolute `path`."
	}
	info, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Sprintf("`path` %s does not exist. Pass an existing file or directory inside the project, or omit `path` to check the workspace root.", shownPath(env.Rel(target)))
	case err != nil:
		return nil, fmt.Sprintf("`path` %s cannot be read (%s). Pass a file or directory you can read, or omit `path` to check the workspace root.", shownPath(env.Rel(target)), fsReason(err))
	}
	start := target
	if !info.IsDir() {
		start = filepath.Dir(target)
	}

	want := in.Checker
	if want == "" && !info.IsDir() {
		// A file's language decides first: a .rs file beside a go.mod
		// and a Cargo.toml is Rust's to check, not go vet's.
		want = languageOf(target)
	}
	checker, dir, marker := findMarker(start, want)
	if dir == "" {
		if want != in.Checker {
			return nil, noLanguageMarkerMessage(shownPath(env.Rel(target)), shownPath(env.Rel(start)), want)
		}
		msg := noMarkerMessage(shownPath(env.Rel(start)), in.Checker)
		if in.Checker == "" && info.IsDir() {
			msg += projectsBelow(start, env)
		}
		return nil, msg
	}
	pl := &plan{
		Checker: checker, Marker: marker, Dir: dir, Target: target,
		Shown: shownPath(env.Rel(target)), DirShown: shownPath(env.Rel(dir)),
	}
	if checker == checkerPython {
		// Ruff is preferred for speed; pyright runs when ruff is absent.
		pl.Checker = checkerRuff
		pl.Binary = lk.find(checkerRuff, dir, env)
		if pl.Binary == "" {
			if py := lk.find(checkerPyright, dir, env); py != "" {
				pl.Checker, pl.Binary = checkerPyright, py
			} else {
				pl.AlsoMissing = checkerPyright
			}
		}
	} else {
		pl.Binary = lk.find(checker, dir, env)
	}
	pl.Args, pl.Display = command(pl.Checker, dir, target, info.IsDir())
	pl.Scope = scope(pl, env)
	return pl, ""
}

// findMarker walks up from start to the nearest directory holding a marker
// of the named checker, or of any checker when checker is "". Within one
// directory autoMarkers' order decides.
func findMarker(start, checker string) (chosen, dir, marker string) {
	for d := start; ; d = filepath.Dir(d) {
		if checker != "" {
			for _, m := range markersOf(checker) {
				if isFile(filepath.Join(d, m)) {
					return checker, d, filepath.Join(d, m)
				}
			}
		} else {
			for _, m := range autoMarkers {
				if isFile(filepath.Join(d, m.file)) {
					return m.checker, d, filepath.Join(d, m.file)
				}
			}
		}
		if parent := filepath.Dir(d); parent == d {
			return "", "", ""
		}
	}
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

func noMarkerMessage(start, checker string) string {
	if checker != "" {
		return fmt.Sprintf("No %s found in %s or any directory above it, so `checker: %s` has no project to check. Pass a `path` inside such a project, or omit `checker` to detect the project.",
			orList(checkers[checker].markers), start, checker)
	}
	return fmt.Sprintf("No project marker found in %s or any directory above it. Diagnostics looked for go.mod (go vet), Cargo.toml (cargo check), tsconfig.json (tsc), and pyproject.toml or setup.py (ruff or pyright). Pass a `path` inside a project that has one; for other languages, run the project's build with Bash.", start)
}

func orList(ss []string) string {
	switch len(ss) {
	case 0:
		return ""
	case 1:
		return ss[0]
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " or " + ss[len(ss)-1]
}

// command is the argument list and the displayed command for checker run in
// dir on target. A path argument always starts with "./", so that a file
// named like a flag can never become one.
func command(checker, dir, target string, isDir bool) (args []string, display string) {
	switch checker {
	case checkerGo:
		pattern := goPattern(dir, target, isDir)
		return []string{"vet", "-json", pattern}, "go vet " + pattern
	case checkerCargo:
		return []string{"check", "--message-format=json"}, "cargo check"
	case checkerTsc:
		// tsc cannot check one file under a tsconfig.json; it checks the
		// whole project.
		return []string{"--noEmit", "--pretty", "false"}, "tsc --noEmit"
	case checkerRuff:
		args = []string{"check", "--output-format=json", "--no-fix"}
		display = "ruff check"
		if rel := relArg(dir, target); rel != "" {
			args = append(args, rel)
			display += " " + rel
		}
		return args, display
	default: // pyright
		args = []string{"--outputjson"}
		display = "pyright"
		if rel := relArg(dir, target); rel != "" {
			args = append(args, rel)
			display += " " + rel
		}
		return args, display
	}
}

// goPattern is the package pattern covering target from the module root
// dir: every package under a directory, or the package of a file.
func goPattern(dir, target string, isDir bool) string {
	if !isDir {
		target = filepath.Dir(target)
	}
	// Both are absolute, and target lies under dir, so Rel cannot fail.
	rel, _ := filepath.Rel(dir, target)
	rel = filepath.ToSlash(rel)
	switch {
	case isDir && rel == ".":
		return "./..."
	case isDir:
		return "./" + rel + "/..."
	case rel == ".":
		return "."
	default:
		return "./" + rel
	}
}

// relArg is target relative to dir as a "./" path, or "" when they are the
// same directory.
func relArg(dir, target string) string {
	rel, _ := filepath.Rel(dir, target) // as in goPattern
	if rel == "." {
		return ""
	}
	return "./" + filepath.ToSlash(rel)
}

// scope is what the summary line says was checked, relative to the
// workspace root: go's package pattern rebased there, the file or directory
// ruff and pyright were given, or the directory cargo and tsc checked whole.
func scope(p *plan, env *plugin.Env) string {
	dir := shownPath(env.Rel(p.Dir))
	switch p.Checker {
	case checkerGo:
		pattern := p.Args[len(p.Args)-1]
		if dir == "." {
			return pattern
		}
		return dir + strings.TrimPrefix(pattern, ".")
	case checkerRuff, checkerPyright:
		return placeName(shownPath(env.Rel(p.Target)))
	default:
		return placeName(dir)
	}
}

// placeName names a shown path in a sentence.
func placeName(shown string) string {
	if shown == "." {
		return "the workspace root"
	}
	return shown
}

// shownPath writes a workspace-relative path the way the model reads it
// best: "." for the root, "./x" below it, absolute outside it.
func shownPath(rel string) string {
	rel = filepath.ToSlash(rel)
	if rel == "." || filepath.IsAbs(rel) || strings.HasPrefix(rel, "./") {
		return rel
	}
	return "./" + rel
}

// find resolves checker's executable: the project's own first (searching
// its localBins from dir up to the workspace root that holds dir), then
// PATH. Nothing else: the checker that runs is the one the user's own shell
// would run.
func (lk lookup) find(checker, dir string, env *plugin.Env) string {
	c := checkers[checker]
	if len(c.localBins) > 0 {
		stop := workspaceRootOf(dir, env)
		for d := dir; ; d = filepath.Dir(d) {
			for _, b := range c.localBins {
				if p := filepath.Join(d, filepath.FromSlash(b), c.binary); isExecutable(p) {
					return p
				}
			}
			if d == stop || stop == "" || filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range filepath.SplitList(lk.path) {
		// An empty entry means the current directory, which is the
		// plugin's and not the project's; never search it.
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, c.binary); isExecutable(p) {
			return p
		}
	}
	return ""
}

// workspaceRootOf is the workspace root (Cwd or one of Roots) that holds
// dir, the deepest if several do, or "" when none does: then only the
// project directory itself is searched for a local binary.
func workspaceRootOf(dir string, env *plugin.Env) string {
	best := ""
	for _, r := range append([]string{env.Cwd}, env.Roots...) {
		if r == "" {
			continue
		}
		r = filepath.Clean(r)
		if within(dir, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// fsReason is a file-system error in a few plain words.
func fsReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	default:
		return "it could not be accessed"
	}
}
