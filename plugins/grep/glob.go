package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
	"github.com/riot-tools/riot/plugins/grep/internal/search"
)

// GlobInput is what the model sends to Glob.
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema_description:"The glob to match file paths against, relative to path: ** matches any number of directories, * and ? stay within one, {a,b} is either, [abc] a class. A pattern without a slash matches file names at any depth, as in .gitignore: *.go is every Go file. Examples: **/*.go, src/**/*.{ts,tsx}, cmd/*/main.go."`
	Path    string `json:"path,omitempty" jsonschema_description:"The directory to search in. Defaults to the working directory. Leave it out rather than passing \"undefined\" or \"null\"."`
}

// defaultGlobLimit is how many paths Glob lists: enough to act on, and a
// model that needs more should narrow the pattern.
const defaultGlobLimit = 100

// Glob is the Glob tool: the files Grep would search, by path pattern,
// through the same walker and ignore engine (the grep plugin serves both).
// Like Grep it takes no permission position; PermissionSubjects gives the
// core the directory it lists.
type Glob struct {
	grep  *Grep
	limit int
}

// NewGlob returns the Glob tool with its defaults, sharing g's settings.
func NewGlob(g *Grep) *Glob { return &Glob{grep: g, limit: defaultGlobLimit} }

// GlobUI is Glob's payload for a UI.
type GlobUI struct {
	Pattern string `json:"pattern"`
	// Files are the paths listed, newest first.
	Files []string `json:"files"`
	// Total files matched; Files holds at most the limit of them.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
	// Denied files matched but are covered by a Read deny rule.
	Denied    int   `json:"denied"`
	TimedOut  bool  `json:"timed_out"`
	ElapsedMs int64 `json:"elapsed_ms"`
}

// Name is the tool's name.
func (*Glob) Name() string { return "Glob" }

// Prompt is the tool's usage text for the model.
func (*Glob) Prompt() string { return globPrompt }

// Describe is "Find files matching **/*.go in src".
func (*Glob) Describe(in GlobInput) string {
	return "Find files matching " + in.Pattern + " in " + globDir(in)
}

// IsReadOnly is true: Glob lists names and reads no file.
func (*Glob) IsReadOnly(GlobInput) bool { return true }

// IsConcurrencySafe is true: listings change nothing.
func (*Glob) IsConcurrencySafe(GlobInput) bool { return true }

// ClassifierInput is "List files matching PATTERN in PATH".
func (*Glob) ClassifierInput(in GlobInput) string {
	return "List files matching " + in.Pattern + " in " + globDir(in)
}

// ResultBudget is Unlimited: Glob lists at most its limit and says so.
func (*Glob) ResultBudget() plugin.Budget { return plugin.Unlimited() }

// PermissionSubjects is the listed directory, as a read.
func (*Glob) PermissionSubjects(in GlobInput, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.ReadPath(env.Abs(globDir(in)))}
}

// globDir is the directory to list as given, "." by default; models send
// "undefined" and "null" for none.
func globDir(in GlobInput) string {
	p := strings.TrimSpace(in.Path)
	if p == "" || p == "undefined" || p == "null" {
		return "."
	}
	return p
}

// ValidateInput rejects an empty or invalid pattern and, inside the
// fence, a path that is not a directory.
func (*Glob) ValidateInput(_ context.Context, in GlobInput, env *plugin.Env) plugin.Validation {
	if msg := checkGlobInput(in); msg != "" {
		return plugin.Rejected(msg)
	}
	abs := absPath(globDir(in), env)
	if !env.InFence(abs) {
		return plugin.Accepted()
	}
	if msg := checkGlobDir(globDir(in), env.Shown(abs), abs); msg != "" {
		return plugin.Rejected(msg)
	}
	return plugin.Accepted()
}

func checkGlobInput(in GlobInput) string {
	if strings.TrimSpace(in.Pattern) == "" {
		return "`pattern` is empty.\nPass a glob such as **/*.go; to list a directory's entries, use Bash `ls`."
	}
	if _, err := ignore.CompileOverride(in.Pattern); err != nil {
		return fmt.Sprintf("`pattern` %q is not a valid glob: %s.\nFix it: ** for any directories, * within one, {a,b} for either.", in.Pattern, globError(err))
	}
	if strings.HasPrefix(in.Pattern, "!") {
		return fmt.Sprintf("`pattern` %q starts with !, which would list every file but those.\nPass the files you want, such as **/*.go; to exclude some, narrow `path` instead.", in.Pattern)
	}
	return ""
}

// checkGlobDir refuses a path that is not an existing directory.
func checkGlobDir(given, shown, abs string) string {
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return checkPath(given, shown, abs)
	case !fi.IsDir():
		return fmt.Sprintf("`path` %s is a file, not a directory (resolved to %s).\nPass the directory to search in, or leave `path` out for the working directory.", given, shown)
	}
	return ""
}

// Call lists the matching files, newest first.
func (g *Glob) Call(ctx context.Context, in GlobInput, env *plugin.Env) plugin.Outcome {
	clock := env.Clock
	if clock == nil {
		clock = plugin.SystemClock{}
	}
	start := clock.Now()
	root := absPath(globDir(in), env)
	if msg := checkGlobDir(globDir(in), env.Shown(root), root); msg != "" {
		return plugin.Failed(msg)
	}
	override, _ := ignore.CompileOverride(in.Pattern)
	// The walk starts from the resolved directory and follows no link, so
	// every path it finds is physical, as the deny rules are matched.
	phys := root
	if p, err := filepath.EvalSymlinks(root); err == nil {
		phys = p
	}
	// The pattern is matched relative to the listed directory, as rg's
	// --glob is when rg runs there: Cwd is that directory.
	o := search.Options{Root: phys, Cwd: phys, Mode: search.ListFiles, Glob: override}
	if g.grep.getenv != nil {
		o.GlobalExcludes = ignore.ReadRules(ignore.GlobalExcludesPath(g.grep.getenv))
	}
	limit := g.grep.limit(env)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res := search.Search(sctx, o)
	if res.Panic != "" {
		if env.Log != nil {
			env.Log.Error("panic in the walker", "pattern", in.Pattern, "path", root, "panic", res.Panic)
		}
		return plugin.Failed("Glob failed with an internal error while listing (a bug in Glob, now in the log).\nDo not retry this input unchanged; narrow the path, or use Bash `find`.")
	}
	timedOut := res.Incomplete && ctx.Err() == nil
	if res.Incomplete && !timedOut {
		return plugin.Failed("Cancelled.\nThe listing was stopped before it finished; re-issue it if you still need it.")
	}
	var files []string
	denied := 0
	for _, f := range res.Files {
		// The chain allowed the directory; the files in it it never saw.
		if env.DeniedPhysical(filepath.Join(phys, f.Path)) {
			denied++
			continue
		}
		files = append(files, env.Rel(filepath.Join(root, f.Path)))
	}
	ui := GlobUI{Pattern: in.Pattern, Total: len(files), Denied: denied, TimedOut: timedOut}
	if len(files) > g.limit {
		ui.Files, ui.Truncated = files[:g.limit], true
	} else {
		ui.Files = files
	}
	ui.ElapsedMs = clock.Now().Sub(start).Milliseconds()
	return plugin.Ok(plugin.Text(globText(in, env, root, res, ui, limit))).WithUI(ui)
}

// globText is the listing with what it left out said: the bound, files
// denied, the time limit.
func globText(in GlobInput, env *plugin.Env, root string, res search.Result, ui GlobUI, limit time.Duration) string {
	var b strings.Builder
	dir := env.Rel(root)
	if ui.TimedOut {
		fmt.Fprintf(&b, "Incomplete: the listing stopped at its time limit of %.0f s, so the files below are only some of those matching. Narrow the path or the pattern.\n", limit.Seconds())
	}
	if ui.Total == 0 {
		s := res.Stats
		fmt.Fprintf(&b, "No files match %s in %s", in.Pattern, dir)
		if ui.Denied > 0 {
			fmt.Fprintf(&b, " that you may read (%s denied by the permission rules)", plural(ui.Denied, "file is", "files are"))
		}
		b.WriteString("; ignored and hidden files are not listed")
		if s.Ignored+s.Hidden > 0 {
			fmt.Fprintf(&b, " (%s ignored, %s hidden here)", commas(s.Ignored), commas(s.Hidden))
		}
		b.WriteString(". Check the pattern: without a slash it matches file names at any depth; with one, paths relative to the directory.")
		return b.String()
	}
	for _, f := range ui.Files {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if ui.Truncated {
		fmt.Fprintf(&b, "… and %s more; narrow the pattern or the path to see them (listed newest first, %s shown).\n", commas(ui.Total-len(ui.Files)), commas(len(ui.Files)))
	}
	if ui.Denied > 0 {
		fmt.Fprintf(&b, "%s matching %s left out: the permission rules deny reading %s.\n", commas(ui.Denied), plural(ui.Denied, "file", "files"), plural(ui.Denied, "it", "them"))
	}
	return b.String()
}
