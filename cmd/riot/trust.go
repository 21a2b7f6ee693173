package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/trust"
	"github.com/riot-tools/riot/core/mcpsource"
	"github.com/riot-tools/riot/core/permission"
)

// Workspace trust at the CLI: the trust command, the warning when an
// untrusted workspace's files were not applied, the question asked once on
// a terminal, and what an "always allow" answer does to trust.

func (a *app) trustCommand() *cobra.Command {
	var list, revoke bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace, so that its own config may loosen checks and its plugins may run",
		Long: `Until you trust a workspace, its .riot/config.toml and .riot/config.local.toml may only
tighten riot (add deny and ask rules, and [sandbox] deny_read paths), and .riot/plugins is not
searched: a cloned repository must not be able to switch checks off or start a binary.
riot trust DIR (the working directory by default) records the trust in
` + "`$XDG_CONFIG_HOME/riot/" + trust.FileName + "`" + `, outside any workspace, by the directory's real path; it does
not extend to subdirectories. --list shows the record, --revoke removes DIR from it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if list && (revoke || len(args) > 0) {
				return usageErr("--list takes no directory and no --revoke")
			}
			st := a.trustStore()
			out := cmd.OutOrStdout()
			if list {
				return printTrust(out, st)
			}
			dir, err := a.trustDir(args)
			if err != nil {
				return err
			}
			if revoke {
				key, removed, err := st.Revoke(dir)
				if err != nil {
					return trustErr(dir, err)
				}
				if !removed {
					fmt.Fprintf(out, "%s was not in the trust record %s; nothing changed\n", key, st.File)
					return nil
				}
				fmt.Fprintf(out, "revoked %s: its own config may only tighten again\n", key)
				return nil
			}
			key, err := st.Trust(dir, time.Now())
			if err != nil {
				return trustErr(dir, err)
			}
			fmt.Fprintf(out, "trusted %s: its .riot/config.toml, .riot/config.local.toml and .riot/plugins now apply (undo: riot trust --revoke %s)\n", key, shellQuote(key))
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted workspaces, and those you chose not to trust")
	cmd.Flags().BoolVar(&revoke, "revoke", false, "remove DIR from the trust record")
	return cmd
}

func (a *app) trustStore() trust.Store {
	return trust.ForConfigDir(config.UserConfigDir(os.Getenv))
}

// trustDir is DIR, or the workspace.
func (a *app) trustDir(args []string) (string, error) {
	if len(args) == 1 {
		return config.ExpandHome(args[0]), nil
	}
	return a.workspace()
}

func trustErr(dir string, err error) error {
	switch {
	case errors.Is(err, trust.ErrNotDir):
		return usageErr("cannot trust %s: it is not an existing directory; give the workspace's directory", dir)
	case errors.Is(err, trust.ErrPath):
		return usageErr("cannot trust %s: %v; rename the directory", dir, err)
	}
	return usageErr("%v", err)
}

func printTrust(w io.Writer, st trust.Store) error {
	entries, err := st.List()
	if err != nil {
		return usageErr("%v", err)
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no workspace is trusted (record: %s)\n", st.File)
		return nil
	}
	for _, e := range entries {
		state := "trusted"
		switch {
		case e.Trusted:
		case e.Declined:
			state = "not trusted (you declined)"
		default:
			state = "not trusted"
		}
		if !e.Trusted && e.Local != "" {
			state += "; its .riot/config.local.toml applies while it is as riot wrote it"
		}
		if info, err := os.Stat(e.Dir); err != nil || !info.IsDir() {
			state += ", missing: moved or removed"
		}
		fmt.Fprintf(w, "%s\t%s since %s\n", e.Dir, state, e.At.Local().Format(time.DateTime))
	}
	return nil
}

// warnUntrusted prints, once per invocation, the line naming the files
// whose values were ignored and the command that trusts them.
func (a *app) warnUntrusted(cfg *config.Config) {
	if a.trustWarned || len(cfg.Trust.Ignored) == 0 {
		return
	}
	a.trustWarned = true
	fmt.Fprintln(a.stderr, "riot: "+untrustedLine(cfg.Trust))
}

func untrustedLine(t config.Trust) string {
	var parts []string
	for _, f := range t.IgnoredFiles() {
		parts = append(parts, fmt.Sprintf("%s (%s)", relTo(t.Workspace, f), strings.Join(t.IgnoredKeys(f), ", ")))
	}
	return fmt.Sprintf("this workspace is not trusted, so what its files set that loosens checks or runs code was ignored: %s; to apply it, run: riot trust %s",
		strings.Join(parts, ", "), shellQuote(t.Workspace))
}

func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// askTrust asks once, on a terminal, whether to trust a workspace whose
// files would loosen something and on which the user has not decided. It
// returns whether the workspace is now trusted. A "no" is recorded, so
// that riot warns from then on instead of asking.
func (a *app) askTrust(cfg *config.Config) bool {
	if len(cfg.Trust.Ignored) == 0 || cfg.Trust.State != trust.Unknown || !interactive(a.stdin, a.stderr) {
		return false
	}
	t := cfg.Trust
	var b strings.Builder
	fmt.Fprintf(&b, "\nriot: this workspace's own files would loosen riot's checks or run code:\n")
	for _, f := range t.IgnoredFiles() {
		fmt.Fprintf(&b, "  %s: %s\n", relTo(t.Workspace, f), strings.Join(t.IgnoredKeys(f), ", "))
	}
	fmt.Fprintf(&b, "  A cloned repository can use these to switch checks off or start a binary.\n")
	fmt.Fprintf(&b, "  [t] trust %s (as riot trust does)\n  [n] ignore them; what they tighten (deny and ask rules, deny_read) still applies (the default)\nAnswer: ", t.Workspace)
	// What was typed before the question appeared does not answer it.
	if f, ok := a.stdin.(*os.File); ok {
		_ = flushInput(int(f.Fd()))
	}
	_, _ = io.WriteString(a.stderr, b.String())
	answer := strings.ToLower(strings.TrimSpace(readLine(a.stdin)))
	st := a.trustStore()
	if answer == "t" || answer == "trust" || answer == "y" || answer == "yes" {
		if _, err := st.Trust(t.Workspace, time.Now()); err != nil {
			fmt.Fprintf(a.stderr, "riot: the workspace is not trusted: %v\n", err)
			return false
		}
		fmt.Fprintf(a.stderr, "riot: trusted %s (undo: riot trust --revoke %s)\n", t.Workspace, shellQuote(t.Workspace))
		return true
	}
	if _, err := st.Decline(t.Workspace, time.Now()); err != nil {
		fmt.Fprintf(a.stderr, "riot: cannot record the answer, so riot will ask again: %v\n", err)
	}
	return false
}

// readLine reads one line a byte at a time, so that nothing after it is
// taken from the permission prompts that read the same terminal later.
func readLine(r io.Reader) string {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return b.String()
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String()
		}
	}
}

// trustingPrompter makes an "always allow" answer on the terminal, the
// user's own act, last in a workspace that is not trusted. Such an answer
// writes the rule to .riot/config.local.toml, which an untrusted workspace
// would otherwise ignore from the next run on. It does not trust the
// workspace: that would also apply whatever the repository adds to
// .riot/config.toml later. It writes the rule itself and pins the file as
// written (trust.Store.PinLocal), so that the file applies while it is
// byte for byte riot's; Resolve's own write then finds the rule there. A
// local file that held the repository's text is not pinned, since pinning
// it would vouch for that text.
type trustingPrompter struct {
	permission.Prompter
	a   *app
	cfg *config.Config

	mu sync.Mutex // concurrent calls may prompt
}

func (p *trustingPrompter) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	ans, err := p.Prompter.Prompt(ctx, req, d)
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &p.cfg.Trust
	if err != nil || ans != permission.AnswerAllowAlways || t.Trusted() || len(d.Suggestions) == 0 {
		return ans, err
	}
	if !t.LocalOwn() || localSum(t.Workspace) != t.LocalSum {
		p.say("riot: the rule goes to .riot/config.local.toml, but this workspace is not trusted and riot did not write the rest of that file, so later runs ignore it until you run: riot trust %s\n", shellQuote(t.Workspace))
		return ans, err
	}
	for _, rule := range d.Suggestions {
		if _, werr := config.AppendAllowRule(t.Workspace, rule); werr != nil {
			p.say("riot: cannot save the rule %s: %v\n", rule, werr)
			return ans, err
		}
	}
	sum := localSum(t.Workspace)
	if _, perr := p.a.trustStore().PinLocal(t.Workspace, sum, time.Now()); perr != nil {
		p.say("riot: the rule is saved, but later runs ignore it until you run riot trust %s: %v\n", shellQuote(t.Workspace), perr)
		return ans, err
	}
	t.LocalSum, t.LocalPinned = sum, true
	p.say("riot: saved to .riot/config.local.toml; this workspace is not trusted, so riot applies that file only while it stays as riot wrote it (riot trust %s applies the rest)\n", shellQuote(t.Workspace))
	return ans, err
}

// Elicit passes an MCP server's question on to the terminal prompter.
func (p *trustingPrompter) Elicit(ctx context.Context, from, message string, schema json.RawMessage) (string, map[string]any, error) {
	if e, ok := p.Prompter.(interface {
		Elicit(context.Context, string, string, json.RawMessage) (string, map[string]any, error)
	}); ok {
		return e.Elicit(ctx, from, message, schema)
	}
	return "decline", nil, mcpsource.ErrNoOneToAsk
}

func (p *trustingPrompter) say(format string, args ...any) {
	fmt.Fprintf(p.a.stderr, format, args...)
}

// localSum is the SHA-256 of the workspace's .riot/config.local.toml, in
// hex, or "" when it cannot be read.
func localSum(workspace string) string {
	data, err := os.ReadFile(config.LocalFile(workspace))
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}
