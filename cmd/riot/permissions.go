package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/session"
)

func (a *app) permissionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Work with the permission rules",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var last int
	var asJSON bool
	suggest := &cobra.Command{
		Use:   "suggest",
		Short: "Propose allow rules from what a session asked (--session ID), or the last N sessions (--last N)",
		Long: "Reads the questions riot asked in a named session (--session ID) or in the last N named sessions (--last N, default 1), " +
			"and prints the narrowest allow rules that would have answered the approved ones, with the number of asks each covers, " +
			"as TOML to paste under [permissions]. No rule is proposed that would allow a denied command or one that writes outside the workspace. " +
			"Sessions without --session keep no record.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if last < 1 {
				return usageErr("--last must be 1 or more")
			}
			return a.suggestRules(cmd.OutOrStdout(), last, asJSON)
		},
	}
	suggest.Flags().IntVar(&last, "last", 1, "read the last N named sessions (without --session)")
	suggest.Flags().BoolVar(&asJSON, "json", false, "print the rules as JSON")
	cmd.AddCommand(suggest)
	return cmd
}

// suggestOutput is `riot permissions suggest --json`.
type suggestOutput struct {
	Sessions    []string                `json:"sessions"`
	Asks        int                     `json:"asks"`
	Approved    int                     `json:"approved"`
	Denied      int                     `json:"denied"`
	Suggestions []permission.Suggestion `json:"suggestions"`
}

func (a *app) suggestRules(w io.Writer, last int, asJSON bool) error {
	cfg, ws, err := a.loadConfig()
	if err != nil {
		return err
	}
	stateDir := cfg.ResolvedStateDir(nil)
	ids := []string{a.session}
	if a.session == "" {
		if ids, err = session.Recent(stateDir, last); err != nil {
			return fmt.Errorf("cannot list the sessions in %s: %w", stateDir, err)
		}
	}
	out := suggestOutput{Sessions: ids, Suggestions: []permission.Suggestion{}}
	var asks []permission.Asked
	for _, id := range ids {
		recorded, err := session.ReadAsks(stateDir, id)
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("there is no session %q in %s", id, stateDir)
		}
		if err != nil {
			return fmt.Errorf("cannot read session %s: %w", id, err)
		}
		for _, r := range recorded {
			asks = append(asks, askedOf(r))
			out.Asks++
			if r.Allowed {
				out.Approved++
			} else {
				out.Denied++
			}
		}
	}
	roots := []string{ws}
	for _, d := range cfg.Permissions.AdditionalDirs {
		d = config.ExpandHome(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(ws, d)
		}
		roots = append(roots, d)
	}
	perms := cfg.Permissions
	p, err := permission.New(permission.Config{Mode: perms.Mode, Allow: perms.Allow, Ask: perms.Ask, Deny: perms.Deny, Roots: roots})
	if err != nil {
		return &exitError{code: exitUsage, msg: "config: " + err.Error()}
	}
	out.Suggestions = append(out.Suggestions, p.SuggestRules(asks)...)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printSuggestions(w, out)
	return nil
}

func printSuggestions(w io.Writer, out suggestOutput) {
	switch {
	case len(out.Sessions) == 0:
		fmt.Fprintln(w, "# No named session to read: riot records questions only in sessions run with --session ID.")
		return
	case len(out.Suggestions) == 0:
		fmt.Fprintf(w, "# No rule to suggest from %s (%d asks, %d approved, %d denied).\n", sessionList(out.Sessions), out.Asks, out.Approved, out.Denied)
		return
	}
	fmt.Fprintf(w, "# From %s (%d asks, %d approved, %d denied).\n", sessionList(out.Sessions), out.Asks, out.Approved, out.Denied)
	fmt.Fprintln(w, "# Paste under [permissions] in .riot/config.toml (merge with an allow list already there):")
	fmt.Fprintln(w, "allow = [")
	for _, s := range out.Suggestions {
		q, ok := tomlString(s.Rule)
		if !ok {
			fmt.Fprintf(w, "  # %d %s: a rule TOML cannot hold on one line: %q\n", s.Asks, plural(s.Asks, "ask"), s.Rule)
			continue
		}
		fmt.Fprintf(w, "  %s, # %d %s\n", q, s.Asks, plural(s.Asks, "ask"))
	}
	fmt.Fprintln(w, "]")
}

func sessionList(ids []string) string {
	if len(ids) == 1 {
		return "session " + ids[0]
	}
	return "sessions " + strings.Join(ids, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// tomlString is s as a TOML string: basic when it needs no escape,
// literal when it holds a quote or backslash but no apostrophe; ok is
// false for the rest (control characters).
func tomlString(s string) (string, bool) {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	if !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`, true
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'", true
	}
	return "", false
}

// askedOf is a recorded ask as the permission package reads it. A step or
// kind it does not know reads as the one no rule answers.
func askedOf(r session.Ask) permission.Asked {
	a := permission.Asked{Tool: r.Tool, Allowed: r.Allowed, Truncated: r.Truncated}
	for s := permission.StepDenyRule; s <= permission.StepMode; s++ {
		if s.String() == r.Step {
			a.Step = s
		}
	}
	for _, s := range r.Subjects {
		sub := permission.Subject{Value: s.Value}
		switch s.Kind {
		case "command":
			sub.Kind = permission.CommandSubject
		case "path":
			sub.Kind = permission.PathSubject
		}
		if s.Access == "read" {
			sub.Access = permission.Read
		}
		a.Subjects = append(a.Subjects, sub)
	}
	return a
}
