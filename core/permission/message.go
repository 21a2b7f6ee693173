package permission

import (
	"fmt"
	"strings"

	"github.com/riot-tools/riot/config"
)

const noEvasion = "Do not try to get around this with another tool or command (for example doing the same through Bash); "

// DeniedMessage is what the model is told when the call is not run: for a
// Deny, or for an Ask that could not be asked (no terminal). It says that
// the user has not granted the call, which rule would allow it, and that
// the model must not get around the denial; in plan mode it is the plan
// mode text. It is "" for an Allow.
func (d Decision) DeniedMessage() string {
	switch {
	case d.Behavior == Allow:
		return ""
	case d.ByUser:
		return "The user denied permission for this call, so it was not run. " + noEvasion +
			"ask the user how to proceed if you need it."
	case d.Step == StepMode && d.Mode == config.ModePlan:
		return d.Reason
	case d.Step == StepDenyRule && d.byHook():
		return "Permission denied: " + d.Reason
	case d.Step == StepDenyRule:
		return "Permission denied: " + d.Reason + " No mode and no approval overrides a deny rule. " + noEvasion +
			"tell the user if the task cannot be done without it."
	}
	var b strings.Builder
	b.WriteString("Permission denied: the user has not granted permission for this call. ")
	b.WriteString(d.Reason)
	b.WriteByte(' ')
	b.WriteString(d.howToAllow())
	b.WriteString(noEvasion)
	b.WriteString("ask the user to grant it, or continue without it.")
	return b.String()
}

// howToAllow says what the user can do to allow the call.
func (d Decision) howToAllow() string {
	switch {
	case len(d.Suggestions) > 0:
		rules := make([]string, len(d.Suggestions))
		flags := make([]string, len(d.Suggestions))
		for i, r := range d.Suggestions {
			rules[i] = "`" + r + "`"
			flags[i] = "--allow " + shellQuote(r)
		}
		what := "The allow rule that would permit it is " + rules[0]
		if len(rules) > 1 {
			what = "The allow rules that would permit it are " + strings.Join(rules[:len(rules)-1], ", ") + " and " + rules[len(rules)-1]
		}
		return fmt.Sprintf("%s: the user can add it with `%s` or to [permissions] allow in their own config (~/.config/riot/config.toml), or in the workspace's .riot/config.toml followed by `riot trust` (a workspace file applies only as the user last trusted it). ", what, strings.Join(flags, " "))
	case d.Step == StepSafety && strings.HasPrefix(d.Check, "outside the workspace"):
		return "No allow rule overrides the workspace fence: the user can add the directory as a workspace root with --add-dir or [permissions] additional_dirs, or approve the call at an interactive prompt. "
	case d.Step == StepAskRule && d.byHook():
		return "The hook makes the user approve such a call at an interactive prompt, and there is none. "
	case d.Step == StepAskRule && d.Rule != nil:
		return fmt.Sprintf("The ask rule `%s` makes the user approve each such call at an interactive prompt, and there is none. ", d.Rule.Text)
	case d.Step == StepSafety || d.Step == StepTool:
		return "No allow rule overrides this check; only the user's approval at an interactive prompt can. "
	default:
		return "No single allow rule can permit it; only the user's approval at an interactive prompt can. "
	}
}

// byHook reports whether a PreToolUse hook decided.
func (d Decision) byHook() bool {
	return d.Rule == nil && (strings.HasPrefix(d.Check, "the PreToolUse hook") || strings.HasPrefix(d.Check, "the PermissionRequest hook"))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
