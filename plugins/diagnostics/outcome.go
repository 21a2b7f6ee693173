package diagnostics

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// UI statuses: how the run ended.
const (
	statusOK           = "ok"
	statusFailed       = "failed"
	statusTimedOut     = "timed_out"
	statusCancelled    = "cancelled"
	statusNotInstalled = "not_installed"
)

// UIPayload is the structured result for a UI: every diagnostic, uncapped,
// and how the checker ran.
type UIPayload struct {
	// Checker is go, cargo, tsc, ruff or pyright.
	Checker string `json:"checker"`
	// Command is the argument vector run, the executable resolved;
	// CommandLine is the same, quoted for a shell.
	Command     []string `json:"command"`
	CommandLine string   `json:"command_line"`
	// Dir is where it ran; Marker is the file that chose the checker.
	Dir    string `json:"dir"`
	Marker string `json:"marker"`
	Scope  string `json:"scope"`
	// Status is ok, failed, timed_out, cancelled or not_installed.
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	// ExitCode is the checker's exit status; -1 when it did not exit by
	// itself (killed, or never started).
	ExitCode    int          `json:"exit_code"`
	Counts      counts       `json:"counts"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	Notes       []string     `json:"notes,omitempty"`
	// Stderr is the start of the checker's error output, on failure.
	Stderr string `json:"stderr,omitempty"`
}

func newUI(p *plan) *UIPayload {
	argv := append([]string{p.Binary}, p.Args...)
	if p.Binary == "" {
		argv[0] = checkers[p.Checker].binary
	}
	return &UIPayload{
		Checker: p.Checker, Command: argv, CommandLine: shellJoin(argv),
		Dir: p.Dir, Marker: p.Marker, Scope: p.Scope,
		ExitCode: -1, Diagnostics: []Diagnostic{},
	}
}

// outcome turns a finished run into what the model and the UI get.
func outcome(p *plan, res runResult, env *plugin.Env, ui *UIPayload) plugin.Outcome {
	ui.ExitCode = res.ExitCode
	ui.DurationMS = res.Duration.Milliseconds()
	label := checkers[p.Checker].label

	switch {
	case res.StartErr != nil:
		ui.Status = statusFailed
		var unavailable *sandbox.UnavailableError
		if errors.As(res.StartErr, &unavailable) {
			return plugin.Failed(unavailable.Error()).WithUI(ui)
		}
		if errors.Is(res.StartErr, fs.ErrNotExist) {
			ui.Status = statusNotInstalled
			return plugin.Failed(notInstalledMessage(p)).WithUI(ui)
		}
		return plugin.Failed(fmt.Sprintf("%s could not be started.\n%s is at %s but %s. Fix the installation (or PATH), then call Diagnostics again.",
			label, checkers[p.Checker].binary, p.Binary, startReason(res.StartErr))).WithUI(ui)
	case res.Cancelled:
		ui.Status = statusCancelled
		return plugin.Failed(fmt.Sprintf("Cancelled.\n`%s`%s was stopped before it finished, with every process it started. No diagnostics were collected.", p.Display, p.inDir())).WithUI(ui)
	}

	pr, perr := parseOutput(p.Checker, res.Stdout, res.Stderr, p.Dir)
	finish(&pr, env)
	ui.Diagnostics, ui.Counts, ui.Notes = pr.Diags, tally(pr.Diags), pr.Notes
	if res.Cut {
		pr.note(fmt.Sprintf("%s printed more than %d MiB; the rest of its output was not read, so problems may be missing.", label, maxStreamBytes>>20))
		ui.Notes = pr.Notes
	}

	if res.TimedOut {
		ui.Status = statusTimedOut
		return plugin.Failed(timeoutMessage(p, res, pr.Diags)).WithUI(ui)
	}
	// Output that does not parse is the checker failing when it also exited
	// badly, and a format Diagnostics does not know when it exited 0.
	if perr != nil && res.ExitCode == 0 {
		ui.Status = statusFailed
		ui.Stderr = string(res.Stderr)
		return plugin.Failed(unparseableMessage(p, res)).WithUI(ui)
	}
	if perr != nil || failedRun(p.Checker, res.ExitCode, &pr) {
		ui.Status = statusFailed
		ui.Stderr = string(res.Stderr)
		return plugin.Failed(crashMessage(p, res, pr)).WithUI(ui)
	}
	ui.Status = statusOK
	return plugin.Ok(plugin.Text(render(p, pr.Diags, pr.Notes))).WithUI(ui)
}

// finish makes paths workspace-relative, sorts and drops repeats.
func finish(pr *parsed, env *plugin.Env) {
	relativize(pr.Diags, "", env.Cwd)
	sortDiagnostics(pr.Diags)
	pr.Diags = dedupe(pr.Diags)
	if pr.Diags == nil {
		pr.Diags = []Diagnostic{}
	}
}

func notInstalledMessage(p *plan) string {
	c := checkers[p.Checker]
	if p.AlsoMissing != "" {
		other := checkers[p.AlsoMissing]
		return fmt.Sprintf("Neither %s nor %s is installed.\nThe Python project in %s (%s) is checked with ruff, or pyright when ruff is absent, and neither was found in the project (.venv/bin, venv/bin, node_modules/.bin) or on PATH. %s Or: %s Then call Diagnostics again.",
			c.binary, other.binary, placeName(p.DirShown), baseName(p.Marker), c.install, other.install)
	}
	where := "on PATH"
	if len(c.localBins) > 0 {
		where = "in the project (" + strings.Join(c.localBins, ", ") + ") or on PATH"
	}
	return fmt.Sprintf("%s is not installed.\nDiagnostics runs `%s` for the project in %s (%s), and found no `%s` %s. %s Then call Diagnostics again.",
		c.binary, p.Display, placeName(p.DirShown), baseName(p.Marker), c.binary, where, c.install)
}

func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

func startReason(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return "it is not executable"
	}
	return "it could not be run"
}

func timeoutMessage(p *plan, res runResult, partial []Diagnostic) string {
	secs := int(math.Ceil(res.Timeout.Seconds()))
	var b strings.Builder
	fmt.Fprintf(&b, "Timed out after %d s.\n`%s`%s did not finish within %d s, so Diagnostics stopped it and every process it started. The check is incomplete. Pass a narrower `path` (one package or directory), or run the build with Bash if it is expected to take this long.\n",
		secs, p.Display, p.inDir(), secs)
	if len(partial) > 0 {
		n := min(len(partial), maxOutputLines)
		fmt.Fprintf(&b, "Problems reported before it was stopped (%d of %d shown; incomplete):\n", n, len(partial))
		for _, d := range partial[:n] {
			b.WriteString("  " + formatDiagnostic(d) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func unparseableMessage(p *plan, res runResult) string {
	label := checkers[p.Checker].label
	var b strings.Builder
	fmt.Fprintf(&b, "%s printed output Diagnostics could not read (%s).\n`%s`%s did not print the machine-readable output expected of it, so no problems can be listed. Read its output below; an unusual version of %s or a wrapper script may be the cause. Run the check with Bash to see its full output.\n",
		label, exitPhrase(res), p.Display, p.inDir(), checkers[p.Checker].binary)
	b.WriteString(outputExcerpt(label, res))
	return strings.TrimRight(b.String(), "\n")
}

func crashMessage(p *plan, res runResult, pr parsed) string {
	label := checkers[p.Checker].label
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed (%s) without reporting problems in the code.\n`%s`%s failed before it could check the code: read its error output below, fix what it says (for example a broken manifest or go.mod, a build script that fails, a path with nothing to check, a missing dependency that must be downloaded), then call Diagnostics again.\n",
		label, exitPhrase(res), p.Display, p.inDir())
	// go's diagnostics in a failed run are its stderr lines, quoted below.
	if n := len(pr.Diags); n > 0 && p.Checker != checkerGo {
		fmt.Fprintf(&b, "It reported %d other %s before failing; they are in the UI payload.\n", n, plural(n, "problem", "problems"))
	}
	b.WriteString(outputExcerpt(label, res))
	return strings.TrimRight(b.String(), "\n")
}

// outputExcerpt is the checker's stderr, or its stdout when stderr is empty.
func outputExcerpt(label string, res runResult) string {
	if s := excerpt("stderr of "+label, res.Stderr); s != "" {
		return s
	}
	if s := excerpt("stdout of "+label, res.Stdout); s != "" {
		return "(stderr was empty)\n" + s
	}
	return "It printed nothing on stderr or stdout.\n"
}

func exitPhrase(res runResult) string {
	if res.Signal != "" {
		return "killed by signal: " + res.Signal
	}
	return fmt.Sprintf("exit status %d", res.ExitCode)
}

// shellJoin quotes argv for a shell, for the UI's command line.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}
