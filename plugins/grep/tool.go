package grep

import (
	"os"
	"strings"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
)

// Tools are the tools this package serves, in the order the model sees
// them.
// Glob shares Grep's settings; riot lists it after Edit and Write, by the
// builtin order, not by this one.
func Tools() []plugin.Handler {
	g := New()
	return []plugin.Handler{plugin.New[Input](g), plugin.New[GlobInput](NewGlob(g))}
}

// Input is what the model sends. The field names, flags included, are the
// ones models are trained on; keep them. Optional numbers are pointers
// where leaving one out differs from sending 0.
type Input struct {
	Pattern    string `json:"pattern" jsonschema_description:"The regular expression to search for, in Go RE2 syntax (no lookaround, no backreferences). \\w, \\d, \\s and \\b are Unicode-aware, as in rg (with multiline, \\b counts only ASCII letters, digits and _ as word characters). Escape literal braces and parentheses: interface\\{\\}, \\(."`
	Path       string `json:"path,omitempty" jsonschema_description:"The file or directory to search. Defaults to the working directory. A file is searched even if it is ignored."`
	Glob       string `json:"glob,omitempty" jsonschema_description:"Search only files matching this glob, such as *.go or **/*.{ts,tsx}; !*_test.go excludes instead. Matched against the path relative to the working directory (or the base name, for a glob without a slash)."`
	Type       string `json:"type,omitempty" jsonschema_description:"Search only files of this type, as rg knows them: go, js, ts, py, rust, java, c, cpp, md, json, yaml and so on. More efficient than glob for standard file types."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"enum=files_with_matches,enum=content,enum=count" jsonschema_description:"files_with_matches (the default) lists the files that match, newest first; content shows the matching lines; count shows the number of matching lines per file."`
	IgnoreCase bool   `json:"-i,omitempty" jsonschema_description:"Search case-insensitively."`
	LineNumber *bool  `json:"-n,omitempty" jsonschema_description:"Show line numbers. Content mode only; on by default there."`
	After      *int   `json:"-A,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show after each match. Content mode only."`
	Before     *int   `json:"-B,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show before each match. Content mode only."`
	Context    *int   `json:"-C,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show before and after each match. Content mode only."`
	HeadLimit  *int   `json:"head_limit,omitempty" jsonschema:"minimum=0" jsonschema_description:"Show at most this many entries (files, count lines or content lines). Defaults to 250; 0 means no limit on entries, though one call still returns at most about 100 KB and says how to page on with offset."`
	Offset     *int   `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"Skip this many entries before applying head_limit, to page through a long result. Defaults to 0."`
	Multiline  bool   `json:"multiline,omitempty" jsonschema_description:"Let . match newlines and patterns span lines, such as struct \\{[\\s\\S]*?field. Slower: each file is searched whole."`
}

// The output modes.
const (
	modeFiles   = "files_with_matches"
	modeContent = "content"
	modeCount   = "count"
)

// Defaults and limits.
const (
	// defaultHeadLimit caps what a call shows unless head_limit says
	// otherwise: enough to act on, little enough not to drown the context.
	defaultHeadLimit = 250
	// defaultTimeout stops a search that runs longer.
	defaultTimeout = 30 * time.Second
	// defaultReturnBytes bounds the text one call returns, whatever
	// head_limit says (0 included): about 25,000 tokens, a large result
	// that still leaves the model room to work. Grep is Unlimited, so no
	// host budget spills it; this cap is what bounds it.
	defaultReturnBytes = 100_000
	// deadlineMargin is kept free before the host's deadline, to return
	// what was found before the host gives up on the call.
	deadlineMargin = time.Second
)

func (in Input) mode() string {
	if in.OutputMode == "" {
		return modeFiles
	}
	return in.OutputMode
}

// path is the path to search as given, "." by default.
func (in Input) path() string {
	if strings.TrimSpace(in.Path) == "" {
		return "."
	}
	return in.Path
}

// context returns the before- and after-context: -B and -A, each falling
// back to -C, as in rg.
func (in Input) context() (before, after int) {
	if in.Context != nil {
		before, after = *in.Context, *in.Context
	}
	if in.Before != nil {
		before = *in.Before
	}
	if in.After != nil {
		after = *in.After
	}
	return before, after
}

// window returns the offset and head limit; a limit of 0 means none.
func (in Input) window() (offset, limit int) {
	limit = defaultHeadLimit
	if in.HeadLimit != nil {
		limit = *in.HeadLimit
	}
	if in.Offset != nil {
		offset = *in.Offset
	}
	return offset, limit
}

// Grep is the Grep tool: a ripgrep-class search in pure Go.
//
// It has no CheckPermissions on purpose, so it stays Passthrough and the
// core's whole chain decides every call: `Grep -l "BEGIN PRIVATE KEY"
// ~/.ssh` is a read too, as much as reading the key with Read, and only the
// core sees the fence, the protected paths and the user's rules. Taking a
// position here (Allow for "harmless" searches) would skip those checks.
// PermissionSubjects gives the core the path to judge.
type Grep struct {
	// timeout stops a search; tests shorten it.
	timeout time.Duration
	// getenv finds the home and config directories for the global git
	// excludes file; tests replace it.
	getenv func(string) string
	// noPrefilter turns the literal prefilter off; tests compare.
	noPrefilter bool
	// maxOutputBytes caps the content a search keeps; 0 is the engine's
	// default. Tests lower it.
	maxOutputBytes int
	// maxReturnBytes caps the text one call returns; 0 is
	// defaultReturnBytes. Tests lower it.
	maxReturnBytes int
	types          ignore.Types
}

// New returns the Grep tool with its defaults.
func New() *Grep {
	return &Grep{timeout: defaultTimeout, getenv: os.Getenv, types: ignore.LoadTypes()}
}

// Name is the tool's name.
func (*Grep) Name() string { return "Grep" }

// Prompt is the tool's usage text for the model.
func (*Grep) Prompt() string { return prompt }

// Describe is `Search for "pattern" in src/`. It shows the path as the
// model gave it: Describe has no Env to resolve it with.
func (*Grep) Describe(in Input) string {
	d := `Search for "` + in.Pattern + `" in ` + in.path()
	switch {
	case in.Glob != "":
		d += " (" + in.Glob + ")"
	case in.Type != "":
		d += " (" + in.Type + " files)"
	}
	return d
}

// IsReadOnly is true: Grep opens files for reading and runs nothing.
func (*Grep) IsReadOnly(Input) bool { return true }

// IsConcurrencySafe is true: searches change nothing, so they never
// depend on each other.
func (*Grep) IsConcurrencySafe(Input) bool { return true }

// ClassifierInput is "Search for /PATTERN/ in PATH", with the path as
// the model gave it.
func (*Grep) ClassifierInput(in Input) string {
	return "Search for /" + in.Pattern + "/ in " + in.path()
}

// ClassifierInputEnv is ClassifierInput with the path resolved, so the
// classifier judges the directory actually searched: "." in ~/.ssh is
// ~/.ssh.
func (*Grep) ClassifierInputEnv(in Input, env *plugin.Env) string {
	return "Search for /" + in.Pattern + "/ in " + absPath(in.path(), env)
}

// ResultBudget is Unlimited: Grep caps its own output (head_limit, 250
// entries by default, and defaultReturnBytes whatever head_limit says) and
// says so, and a spilled search result would only be searched again.
func (*Grep) ResultBudget() plugin.Budget { return plugin.Unlimited() }

// PermissionSubjects is the searched path, absolute, as a read: a search
// reads every file under it.
func (*Grep) PermissionSubjects(in Input, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.ReadPath(env.Abs(in.path()))}
}
