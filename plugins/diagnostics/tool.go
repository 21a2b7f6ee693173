package diagnostics

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/riot-tools/riot/plugin"
)

// Input is what the model sends. Detection fills plan during ValidateInput,
// which the SDK runs on the same *Input before Describe, the properties and
// Call; that is why the tool's input type is a pointer.
type Input struct {
	Path    string `json:"path,omitempty" jsonschema_description:"File or directory to check. Relative paths resolve against the workspace root. The checker is chosen from the nearest project marker at or above it. Default: the workspace root."`
	Checker string `json:"checker,omitempty" jsonschema:"enum=go,enum=cargo,enum=tsc,enum=ruff,enum=pyright" jsonschema_description:"Checker to run instead of detecting one: go (go vet), cargo (cargo check), tsc (tsc --noEmit), ruff (ruff check) or pyright. Default: detected from the nearest go.mod, Cargo.toml, tsconfig.json, pyproject.toml or setup.py."`

	plan *plan
}

// options are what tests inject; Tools uses the defaults.
type options struct {
	// timeout bounds one checker run.
	timeout time.Duration
	// environ is the checkers' environment, and its PATH is where they are
	// looked up; nil means the plugin's own environment.
	environ []string
}

// Tool is the Diagnostics tool.
type Tool struct {
	opts options
}

// Tools returns the tools this package serves, in the order the model sees
// them.
func Tools() []plugin.Handler {
	return []plugin.Handler{newHandler(options{})}
}

func newHandler(o options) plugin.Handler {
	if o.timeout <= 0 {
		o.timeout = DefaultTimeout
	}
	return plugin.New[*Input](&Tool{opts: o})
}

// Name implements plugin.Tool.
func (*Tool) Name() string { return "Diagnostics" }

// Prompt implements plugin.Tool.
func (*Tool) Prompt() string {
	return `Runs the project's own checker on a file or directory and returns its compile, type and lint problems as a list: a summary line naming the checker and the scope, then one line per problem, ` + "`path:line:col: severity: message [code]`" + `, errors before warnings, grouped by file. Paths are relative to the workspace root. A clean run says "no problems found".

Use it after editing code, to see whether the project still builds and type-checks, instead of running the build with Bash and reading raw logs.

For a source file, its language picks the checker first (.go go vet, .rs cargo check, .ts tsc, .py ruff or pyright), then that checker's nearest marker at or above it. Otherwise the checker comes from the nearest project marker at or above ` + "`path`" + `; above several projects, the rejection names them, and you pass one as ` + "`path`" + `:
- go.mod: ` + "`go vet`" + ` on the packages under ` + "`path`" + ` (a file means its package). Build and type errors are reported too; go vet shows only the first type error of a package.
- Cargo.toml: ` + "`cargo check`" + ` on the whole crate.
- tsconfig.json: ` + "`tsc --noEmit`" + ` on the whole project.
- pyproject.toml or setup.py: ` + "`ruff check`" + `, or ` + "`pyright`" + ` when ruff is not installed, on ` + "`path`" + `.
Pass ` + "`checker`" + ` to pick one of these yourself. At most 200 problems are listed; narrow ` + "`path`" + ` to see past them. A run is stopped after 5 minutes.

This tool is never read-only, so the user may be asked to approve it: checkers execute project code (Rust build scripts and proc macros, cgo), may download toolchains and modules, and write build caches.

NEVER use Diagnostics to run tests, build release binaries or format code; use Bash.
NEVER call it again without changing code in between; the result will be the same.
NEVER read a problem list as complete when the summary or a Note says it is not.`
}

// Describe implements plugin.Tool: "Check ./internal with go vet".
func (*Tool) Describe(in *Input) string {
	if in == nil || in.plan == nil {
		return "Check the project with its checker"
	}
	what := in.plan.Shown
	if what == "." {
		what = "the workspace root"
	}
	return fmt.Sprintf("Check %s with %s", what, checkers[in.plan.Checker].label)
}

// IsReadOnly is false for every input, and must stay so. A checker executes
// project code: cargo check runs build.rs and proc macros, go vet runs cgo
// and may download toolchains and modules, and all of them write caches. A
// read-only tool is allowed without asking in every permission mode, which
// would let a model run a build script nobody approved.
func (*Tool) IsReadOnly(*Input) bool { return false }

// IsConcurrencySafe is false: two checkers share build caches and lock
// files (cargo's target directory lock, go's module cache).
func (*Tool) IsConcurrencySafe(*Input) bool { return false }

// CascadesOnFailure is false: a failed check (a missing toolchain, a
// timeout) says nothing about the other calls of the turn.
func (*Tool) CascadesOnFailure() bool { return false }

// ResultBudget is the default, stated: the text is already capped at
// maxShown diagnostics, and one over budget is spilled whole, summary first.
func (*Tool) ResultBudget() plugin.Budget { return plugin.Limit(plugin.DefaultBudgetChars) }

// ClassifierInput is the exact command and where it runs, with the reason
// it is not harmless: "Run `go vet ./...` in /w (build tooling may execute
// project code such as build scripts)".
func (*Tool) ClassifierInput(in *Input) string {
	const why = "(build tooling may execute project code such as build scripts)"
	if in == nil || in.plan == nil {
		// Not reached through the SDK, which validates first; still never
		// empty, and still says what may run.
		return "Run the project's checker (go vet, cargo check, tsc, ruff or pyright) " + why
	}
	return fmt.Sprintf("Run `%s` in %s %s", in.plan.Display, in.plan.Dir, why)
}

// PermissionSubjects are the project directory and the command, so that a
// rule such as Diagnostics(go vet:*) can allow the call. The directory is a
// read subject on purpose: as a write it would count as a file edit, which
// acceptEdits mode allows without asking; the call is still not read-only,
// so no mode treats it as a harmless read.
func (*Tool) PermissionSubjects(in *Input, _ *plugin.Env) []plugin.Subject {
	if in == nil || in.plan == nil {
		return nil
	}
	return []plugin.Subject{plugin.ReadPath(in.plan.Dir), plugin.Command(in.plan.Display)}
}

// ValidateInput resolves the input to a plan: the path exists, a project
// marker is found, the command is known. Both Prepare and Call run it.
func (t *Tool) ValidateInput(_ context.Context, in *Input, env *plugin.Env) plugin.Validation {
	if in == nil {
		return plugin.Rejected("Send a JSON object, with optional `path` and `checker`.")
	}
	p, rejected := makePlan(in, env, t.lookup())
	if rejected != "" {
		return plugin.Rejected(rejected)
	}
	in.plan = p
	return plugin.Accepted()
}

func (t *Tool) lookup() lookup {
	if t.opts.environ == nil {
		return lookup{path: os.Getenv("PATH")}
	}
	var lk lookup
	for _, kv := range t.opts.environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			lk.path = v
		}
	}
	return lk
}

// Call implements plugin.Tool.
func (t *Tool) Call(ctx context.Context, in *Input, env *plugin.Env) plugin.Outcome {
	if in == nil || in.plan == nil {
		// The SDK validates before Call; this keeps Call safe without it.
		if v := t.ValidateInput(ctx, in, env); v.IsRejected() {
			return plugin.Failed(v.Message())
		}
	}
	p := in.plan
	ui := newUI(p)
	if p.Binary == "" {
		ui.Status = statusNotInstalled
		return plugin.Failed(notInstalledMessage(p)).WithUI(ui)
	}
	env.Progress(fmt.Sprintf("Running %s%s", p.Display, p.inDir()))
	res := run(ctx, p, env, t.opts, newProgress(p.Checker, env.Progress))
	return outcome(p, res, env, ui)
}
