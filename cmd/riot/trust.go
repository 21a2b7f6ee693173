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
	"strconv"
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
		Short: "Trust a workspace's files as they are now, so that they may loosen checks and its plugins may run",
		Long: `Until you trust a workspace, its .riot/config.toml, .riot/config.local.toml and .mcp.json may
only tighten riot (add deny and ask rules, and [sandbox] deny_read paths), and .riot/plugins is not
searched: a cloned repository must not be able to switch checks off or start a binary.
riot trust DIR (the working directory by default) shows what those files set that loosens checks
or runs code, and what changed since you last trusted it, then records the trust in
` + "`$XDG_CONFIG_HOME/riot/" + trust.FileName + "`" + `, outside any workspace, by the directory's real path and
with the SHA-256 of each of those files: a file that changes later (written by a command, the
model, or a git pull) may only tighten again until you run riot trust once more. It does not
extend to subdirectories. --list shows the record, --revoke removes DIR from it.`,
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
			key, err := trust.Key(dir)
			if err != nil {
				return trustErr(dir, err)
			}
			sums, err := reviewTrust(out, st, key)
			if err != nil {
				return err
			}
			if _, err := st.Trust(key, sums, time.Now()); err != nil {
				return trustErr(dir, err)
			}
			names := trustedFiles(sums, nil)
			fmt.Fprintf(out, "trusted %s: its %s and %s apply as they are now; when one changes, what it loosens waits until you run riot trust again (undo: riot trust --revoke %s)\n",
				key, strings.Join(names[:len(names)-1], ", "), names[len(names)-1], shellQuote(key))
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted workspaces, and those you chose not to trust")
	cmd.Flags().BoolVar(&revoke, "revoke", false, "remove DIR from the trust record")
	return cmd
}

// reviewTrust prints, for each of the workspace's files that can loosen
// checks or run code, whether it is new, changed or removed since the
// workspace was last trusted, and what it sets that loosens; it returns
// the sums of the files as read for that, which riot trust records, so
// that the trust covers the content shown.
func reviewTrust(w io.Writer, st trust.Store, ws string) (map[string]string, error) {
	prev, err := st.Lookup(ws)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	// The config as it loads now, with the record as it is: its Ignored
	// are the loosening values not yet vouched for.
	cfg, err := config.Load(config.Options{Workspace: ws, TrustFile: st.File})
	if err == nil {
		err = cfg.LoadMCPJSON(ws)
	}
	var sums map[string]string
	if err != nil {
		// The user asked to trust it: record the files as they are, and
		// say why their values cannot be listed.
		fmt.Fprintf(w, "riot cannot read this workspace's config, so it cannot list what it sets: %v\n", err)
		if sums, err = config.ContentSums(ws); err != nil {
			return nil, usageErr("cannot trust %s: %v", ws, err)
		}
	} else {
		sums = cfg.Trust.Sums
	}
	summed := prev.State == trust.Trusted && prev.Files != nil
	for _, name := range trustedFiles(sums, prev.Files) {
		cur, old := sums[name], prev.Files[name]
		var what string
		switch {
		case cur == "" && old != "":
			fmt.Fprintf(w, "%s: removed since you trusted this workspace\n", name)
			continue
		case cur == "" || (summed && cur == old):
			continue
		case summed && old == "":
			what = "new since you trusted this workspace"
		case summed:
			what = "changed since you trusted this workspace"
		default:
			what = "now applies"
		}
		if name == config.PluginsDirName {
			fmt.Fprintf(w, "%s: %s; the riot-tool-* binaries in it are searched for plugins\n", name, what)
			continue
		}
		keys := "nothing that loosens checks or runs code"
		if cfg != nil {
			if k := cfg.Trust.IgnoredKeys(filepath.Join(ws, name)); len(k) > 0 {
				keys = strings.Join(k, ", ")
			}
		}
		fmt.Fprintf(w, "%s: %s; it sets %s\n", name, what, keys)
	}
	return sums, nil
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
		if e.Trusted && e.Files == nil {
			state += " (before riot recorded what its files hold: they may only tighten until you run riot trust " + shellQuote(e.Dir) + ")"
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
	switch {
	case !t.Trusted():
		return fmt.Sprintf("this workspace is not trusted, so what its files set that loosens checks or runs code was ignored: %s; to apply it, run: riot trust %s",
			strings.Join(parts, ", "), shellQuote(t.Workspace))
	case t.Unsummed:
		return fmt.Sprintf("this workspace was trusted before riot recorded what its files hold, so what they set that loosens checks or runs code was ignored: %s; to review it and apply it, run: riot trust %s",
			strings.Join(parts, ", "), shellQuote(t.Workspace))
	}
	return fmt.Sprintf("this workspace's files changed since you trusted it, so what they set that loosens checks or runs code was ignored: %s; to review the change and apply it, run: riot trust %s",
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
		// The files as this run read them, which is what the question
		// listed.
		if _, err := st.Trust(t.Workspace, t.Sums, time.Now()); err != nil {
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
// user's own act, last. Such an answer writes the rule to
// .riot/config.local.toml, whose loosening values apply only while the
// trust record vouches for its content: the workspace was trusted with the
// file so, or riot wrote it so for the user. So it writes the rule itself,
// recording the new content's sum in the same step
// (config.AppendAllowRulesAsUser); Resolve's own write then finds the rule
// there. It does not trust the workspace: that would also apply whatever
// the repository adds to .riot/config.toml later. A local file that holds
// text the record does not vouch for is not recorded, since that would
// vouch for the text.
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
	if err != nil || ans != permission.AnswerAllowAlways || len(d.Suggestions) == 0 {
		return ans, err
	}
	p.saveAsUser(config.AppendAllowRulesAsUser(p.a.trustStore(), t.Workspace, d.Suggestions, time.Now()), "the rule", strings.Join(d.Suggestions, ", "))
	return ans, err
}

// saveAsUser tells the user what became of an "always" answer saved as
// theirs: werr is the write's error, kind and what name what was saved
// ("the rule", "Bash(make:*)"). p.mu is held.
func (p *trustingPrompter) saveAsUser(werr error, kind, what string) {
	t := &p.cfg.Trust
	ws := shellQuote(t.Workspace)
	switch {
	case errors.Is(werr, trust.ErrNotVouched) && t.Trusted():
		p.say("riot: %s goes to .riot/config.local.toml, but that file changed since you trusted this workspace, so later runs ignore what it loosens until you review it with: riot trust %s\n", kind, ws)
	case errors.Is(werr, trust.ErrNotVouched):
		p.say("riot: %s goes to .riot/config.local.toml, but this workspace is not trusted and riot did not write the rest of that file, so later runs ignore it until you run: riot trust %s\n", kind, ws)
	case werr != nil:
		p.say("riot: cannot save %s %s, so later runs ask again: %v\n", kind, what, werr)
	case t.Trusted():
		p.say("riot: saved to .riot/config.local.toml\n")
	default:
		t.LocalSum, t.LocalPinned = localSum(t.Workspace), true
		p.say("riot: saved to .riot/config.local.toml; this workspace is not trusted, so riot applies that file only while it stays as riot wrote it (riot trust %s applies the rest)\n", ws)
	}
}

// PromptNetwork asks about a host on the terminal; an "always" answer is
// saved as the user's, as Prompt's "always allow" is, before the host's
// own write finds the entry there.
func (p *trustingPrompter) PromptNetwork(ctx context.Context, q permission.NetworkQuestion) (permission.Answer, error) {
	np, ok := p.Prompter.(permission.NetworkPrompter)
	if !ok {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	ans, err := np.PromptNetwork(ctx, q)
	if err != nil || permission.NetworkAnswer(ans) != permission.AnswerAllowAlways {
		return ans, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.saveAsUser(config.AppendAllowedDomainsAsUser(p.a.trustStore(), p.cfg.Trust.Workspace, []string{q.Rule}, time.Now()), "the allowed_domains entry", strconv.Quote(q.Rule))
	return ans, nil
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

// trustedFiles are the workspace files a trust record covers: the
// ContentFiles, and Claude Code's settings files where they were summed,
// which happens only when [hooks] import_claude reads them, so that a
// workspace Claude Code alone uses is not asked about.
func trustedFiles(sums, prev map[string]string) []string {
	names := config.ContentFiles()
	for _, name := range config.ClaudeSettingsFiles() {
		if sums[name] != "" || prev[name] != "" {
			names = append(names, name)
		}
	}
	return names
}
