package grep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
	"github.com/riot-tools/riot/plugins/grep/internal/search"
)

// UI is the payload for a UI.
type UI struct {
	Mode    string `json:"mode"`
	Pattern string `json:"pattern"`
	// FilesSearched were read; FilesMatched had a match.
	FilesSearched int `json:"files_searched"`
	FilesMatched  int `json:"files_matched"`
	// Matches are matching lines; in files_with_matches mode, which stops
	// reading a file at its first match, the files matched.
	Matches int `json:"matches"`
	// Truncated: head_limit (or offset) left entries out.
	Truncated bool `json:"truncated"`
	// TimedOut: the search stopped at its time limit, so every count is a
	// lower bound.
	TimedOut  bool  `json:"timed_out"`
	ElapsedMs int64 `json:"elapsed_ms"`
}

// Call runs the search and formats its result for the mode.
func (g *Grep) Call(ctx context.Context, in Input, env *plugin.Env) plugin.Outcome {
	clock := env.Clock
	if clock == nil {
		clock = plugin.SystemClock{}
	}
	start := clock.Now()
	root := absPath(in.path(), env)
	// Outside the fence ValidateInput left the path to now, after the
	// permission chain.
	if msg := checkPath(in.path(), env.Shown(root), root); msg != "" {
		return plugin.Failed(msg)
	}
	opts, err := g.options(in, env, root)
	if err != nil {
		return plugin.Failed(patternHint(in.Pattern, err))
	}
	// The root is opened once and the file opened is checked, not the
	// name: a symlink swapped since the permission chain checked the path
	// cannot lead the search elsewhere, and the walk opens every file
	// beneath this descriptor.
	opened, err := env.OpenRead(root)
	var refused *plugin.RefusedError
	if errors.As(err, &refused) {
		return plugin.Failed(refused.Message)
	}
	if err != nil {
		// It was there a moment ago, for checkPath: say what is wrong now.
		if msg := checkPath(in.path(), env.Shown(root), root); msg != "" {
			return plugin.Failed(msg)
		}
		return plugin.Failed(fmt.Sprintf("`path` %s could not be opened (resolved to %s).\nSearch a path you can read.", in.path(), env.Shown(root)))
	}
	defer func() { _ = opened.Close() }()
	opts.Opened = opened
	limit := g.limit(env)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res := search.Search(sctx, opts)
	if res.Panic != "" {
		if env.Log != nil {
			env.Log.Error("panic in the search engine", "pattern", in.Pattern, "path", root, "panic", res.Panic)
		}
		return plugin.Failed("Grep failed with an internal error while searching (a bug in Grep, now in the log).\nDo not retry this input unchanged; narrow the path, or use another approach.")
	}
	timedOut := res.Incomplete && ctx.Err() == nil
	if res.Incomplete && !timedOut {
		return plugin.Failed("Cancelled.\nThe search was stopped before it finished; re-issue it if you still need it.")
	}
	r := report{in: in, env: env, res: res, root: root, limit: limit, timedOut: timedOut, outputCap: g.outputCap(), returnCap: g.returnCap()}
	text, truncated := r.format()
	ui := UI{
		Mode:          in.mode(),
		Pattern:       in.Pattern,
		FilesSearched: res.Stats.Searched,
		FilesMatched:  len(res.Files),
		Matches:       totalMatches(res.Files),
		Truncated:     truncated,
		TimedOut:      timedOut,
		ElapsedMs:     clock.Now().Sub(start).Milliseconds(),
	}
	return plugin.Ok(plugin.Text(text)).WithUI(ui)
}

// absPath is env.Abs, made absolute against the process's directory if
// the host sent no working directory.
func absPath(p string, env *plugin.Env) string {
	abs := env.Abs(p)
	if !filepath.IsAbs(abs) {
		if a, err := filepath.Abs(abs); err == nil {
			abs = a
		}
	}
	return abs
}

// options turns the input into the engine's options.
func (g *Grep) options(in Input, env *plugin.Env, root string) (search.Options, error) {
	pat, err := search.Compile(in.Pattern, search.PatternOptions{
		IgnoreCase: in.IgnoreCase, Multiline: in.Multiline, NoPrefilter: g.noPrefilter,
	})
	if err != nil {
		return search.Options{}, err
	}
	o := search.Options{Root: root, Cwd: env.Cwd, Show: env.Shown, Pattern: pat, MaxOutputBytes: g.outputCap()}
	if len(env.DenyRead) > 0 {
		// The walk follows no symlink below the root, so one resolution
		// of the root gives every walked path's physical form; a root that
		// cannot be resolved costs a resolution per file instead.
		o.Denied = env.Denied
		if phys, err := env.Physical(root); err == nil {
			o.Denied, o.PhysicalRoot = env.DeniedPhysical, phys
		}
	}
	switch in.mode() {
	case modeContent:
		o.Mode = search.Content
		o.Before, o.After = in.context()
		o.LineNumbers = in.LineNumber == nil || *in.LineNumber
		offset, limit := in.window()
		if limit > 0 {
			o.Keep = offset + limit
		}
	case modeCount:
		o.Mode = search.Count
	default:
		o.Mode = search.FilesWithMatches
	}
	if in.Glob != "" {
		// Validated already; an error here leaves the filter off.
		o.Glob, _ = ignore.CompileOverride(in.Glob)
	}
	if in.Type != "" {
		o.Type, _ = g.types.Filter(in.Type)
	}
	if g.getenv != nil {
		o.GlobalExcludes = ignore.ReadRules(ignore.GlobalExcludesPath(g.getenv))
	}
	return o, nil
}

// returnCap is the most text one call returns, in bytes.
func (g *Grep) returnCap() int {
	if g.maxReturnBytes > 0 {
		return g.maxReturnBytes
	}
	return defaultReturnBytes
}

// outputCap is the most content a search keeps, in bytes.
func (g *Grep) outputCap() int {
	if g.maxOutputBytes > 0 {
		return g.maxOutputBytes
	}
	return search.DefaultMaxOutputBytes
}

// limit is the time a search may take: the tool's timeout, or less when
// the host's deadline comes sooner, keeping a margin to report in.
func (g *Grep) limit(env *plugin.Env) time.Duration {
	limit := g.timeout
	if limit <= 0 {
		limit = defaultTimeout
	}
	if !env.Deadline.IsZero() {
		if until := time.Until(env.Deadline) - deadlineMargin; until < limit {
			limit = max(until, 10*time.Millisecond)
		}
	}
	return limit
}

func totalMatches(files []search.File) int {
	n := 0
	for _, f := range files {
		n += f.Matches
	}
	return n
}
