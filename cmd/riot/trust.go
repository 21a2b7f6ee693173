package main

import (
	"context"
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
		Long: `Until you trust a workspace, its .riot/config.toml and .riot/config.local.toml may only add
deny and ask rules, and .riot/plugins is not searched: a cloned repository must not be able to
switch checks off or start a binary. riot trust DIR (the working directory by default) records
the trust in ` + "`$XDG_CONFIG_HOME/riot/" + trust.FileName + "`" + `, outside any workspace, by the directory's real
path; it does not extend to subdirectories. --list shows the record, --revoke removes DIR from it.`,
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
		if !e.Trusted {
			state = "not trusted (you declined)"
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
	fmt.Fprintf(&b, "  [t] trust %s (as riot trust does)\n  [n] ignore them; deny and ask rules still apply (the default)\nAnswer: ", t.Workspace)
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

// trustingPrompter marks an untrusted workspace trusted when the user
// answers "always allow" on the terminal, which writes the rule to
// .riot/config.local.toml: that answer is the user's own act. It does so
// only when the workspace's files hold nothing else that trust gates, so
// that trusting changes nothing but the rule just granted; otherwise it
// says that the rule applies once the user trusts the workspace.
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
	if err != nil || ans != permission.AnswerAllowAlways || p.cfg.Trust.Trusted() || len(d.Suggestions) == 0 {
		return ans, err
	}
	t := &p.cfg.Trust
	if len(t.Ignored) > 0 {
		fmt.Fprintf(p.a.stderr, "riot: the rule goes to .riot/config.local.toml, but this workspace is not trusted, so later runs ignore it until you run: riot trust %s\n", shellQuote(t.Workspace))
		return ans, err
	}
	if _, terr := p.a.trustStore().Trust(t.Workspace, time.Now()); terr != nil {
		fmt.Fprintf(p.a.stderr, "riot: the workspace is not trusted, so later runs ignore the saved rule: %v\n", terr)
		return ans, err
	}
	t.State = trust.Trusted
	fmt.Fprintf(p.a.stderr, "riot: trusted %s, since you chose always allow: its own config now applies (undo: riot trust --revoke %s)\n", t.Workspace, shellQuote(t.Workspace))
	return ans, err
}
