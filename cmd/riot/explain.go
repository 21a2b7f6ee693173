package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

func (a *app) explainCommand() *cobra.Command {
	var asJSON, noHooks bool
	cmd := &cobra.Command{
		Use:   "explain TOOL [JSON|-]",
		Short: "Trace the permission chain for one call without running it",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			input, err := a.inputArg(args[1:])
			if err != nil {
				return err
			}
			if err := checkCallInput(args[0], input); err != nil {
				return err
			}
			h, err := a.host(cmd.Context(), core.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			if err := a.checkToolName(h, args[0]); err != nil {
				return err
			}
			ex := h.Explain(cmd.Context(), args[0], input, core.ExplainOptions{SkipHooks: noHooks})
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				out := explainJSON(ex)
				if a.cfg != nil && len(a.cfg.Trust.Ignored) > 0 {
					out.Untrusted = untrustedLine(a.cfg.Trust)
				}
				return enc.Encode(out)
			}
			printExplain(cmd.OutOrStdout(), ex)
			if a.cfg != nil && len(a.cfg.Trust.Ignored) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "not applied: %s\n", untrustedLine(a.cfg.Trust))
			}
			if ex.Invalid != "" {
				return errOutcome
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the trace as JSON")
	cmd.Flags().BoolVar(&noHooks, "no-hooks", false, "do not run the PreToolUse hooks (they run by default, since what they say is part of the decision)")
	return cmd
}

func printExplain(w io.Writer, ex core.Explanation) {
	fmt.Fprintf(w, "%s", ex.Tool)
	if ex.Describe != "" {
		fmt.Fprintf(w, ": %s", ex.Describe)
	}
	fmt.Fprintln(w)
	if len(ex.Hooks) > 0 {
		fmt.Fprintln(w, "hooks:")
		for _, hr := range ex.Hooks {
			fmt.Fprintf(w, "  %s %s (%s): %s", hr.Event, hr.Hook, hr.Source, hr.Verdict)
			if hr.Reason != "" {
				fmt.Fprintf(w, ": %s", hr.Reason)
			}
			fmt.Fprintln(w)
		}
	}
	if ex.Invalid != "" {
		fmt.Fprintf(w, "The call would fail before the permission chain:\n  %s\n", ex.Invalid)
		return
	}
	fmt.Fprintf(w, "read-only: %v\n", ex.Request.ReadOnly)
	if len(ex.Request.Subjects) > 0 {
		fmt.Fprintln(w, "subjects:")
		for _, s := range ex.Request.Subjects {
			fmt.Fprintf(w, "  %s\n", subjectText(s))
		}
	}
	fmt.Fprintln(w, "chain:")
	for _, st := range ex.Decision.Trace {
		mark := "·"
		if st.Matched {
			mark = "→"
		}
		fmt.Fprintf(w, "  %d. %-14s %s %s: %s", int(st.Step), st.Step, mark, st.Result, st.Checked)
		if st.Rule != nil {
			fmt.Fprintf(w, " [rule %s from %s]", st.Rule.Text, st.Rule.Source)
		}
		fmt.Fprintln(w)
	}
	for st := lastStep(ex.Decision.Trace) + 1; st <= permission.StepMode; st++ {
		fmt.Fprintf(w, "  %d. %-14s   not reached\n", int(st), st)
	}
	fmt.Fprintf(w, "decision: %s (by %s)\n", strings.ToUpper(ex.Decision.Behavior.String()), ex.Decision.Step)
	if ex.Decision.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", ex.Decision.Reason)
	}
	if ex.Decision.Suggest != "" && ex.Decision.Behavior != permission.Allow {
		fmt.Fprintf(w, "to allow: --allow '%s', or add it to [permissions] allow\n", ex.Decision.Suggest)
	}
	printExplainSandbox(w, ex)
	printExplainNetwork(w, ex)
}

func subjectText(s permission.Subject) string {
	switch s.Kind {
	case permission.CommandSubject:
		return "command " + s.Value
	case permission.PathSubject:
		if s.Access == permission.Read {
			return "read " + s.Value
		}
		return "write " + s.Value
	default:
		return "unknown " + s.Value
	}
}

type explainStep struct {
	Step    string `json:"step"`
	Checked string `json:"checked"`
	Matched bool   `json:"matched"`
	Result  string `json:"result"`
	Rule    string `json:"rule,omitempty"`
	Source  string `json:"source,omitempty"`
}

type explainOut struct {
	Tool     string        `json:"tool"`
	Describe string        `json:"describe,omitempty"`
	Invalid  string        `json:"invalid,omitempty"`
	ReadOnly bool          `json:"read_only"`
	Subjects []string      `json:"subjects,omitempty"`
	Steps    []explainStep `json:"steps,omitempty"`
	Decision string        `json:"decision,omitempty"`
	Step     string        `json:"decided_by,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Suggest  string        `json:"suggest,omitempty"`
	Sandbox  *sandboxOut   `json:"sandbox,omitempty"`
	Network  *networkOut   `json:"network,omitempty"`
	Hooks    []explainHook `json:"hooks,omitempty"`
	// Untrusted says what the untrusted workspace's files set that was
	// not applied.
	Untrusted string `json:"untrusted,omitempty"`
}

type explainHook struct {
	Event   string `json:"event"`
	Hook    string `json:"hook"`
	Source  string `json:"source"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

func explainJSON(ex core.Explanation) explainOut {
	out := explainOut{Tool: ex.Tool, Describe: ex.Describe, Invalid: ex.Invalid, ReadOnly: ex.Request.ReadOnly}
	for _, hr := range ex.Hooks {
		out.Hooks = append(out.Hooks, explainHook{Event: hr.Event, Hook: hr.Hook, Source: hr.Source.String(), Verdict: hr.Verdict, Reason: hr.Reason})
	}
	if ex.Invalid != "" {
		return out
	}
	for _, s := range ex.Request.Subjects {
		out.Subjects = append(out.Subjects, subjectText(s))
	}
	for _, st := range ex.Decision.Trace {
		js := explainStep{Step: st.Step.String(), Checked: st.Checked, Matched: st.Matched, Result: st.Result}
		if st.Rule != nil {
			js.Rule, js.Source = st.Rule.Text, st.Rule.Source.String()
		}
		out.Steps = append(out.Steps, js)
	}
	out.Decision = ex.Decision.Behavior.String()
	out.Step = ex.Decision.Step.String()
	out.Reason = ex.Decision.Reason
	out.Suggest = ex.Decision.Suggest
	out.Sandbox = explainSandboxJSON(ex)
	out.Network = explainNetworkJSON(ex)
	return out
}

// lastStep is the last step the chain ran.
func lastStep(trace []permission.TraceStep) permission.Step {
	var last permission.Step
	for _, st := range trace {
		last = max(last, st.Step)
	}
	return last
}
