package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/procguard"
)

// app holds what every command shares: the flags, the streams, and the
// host built from them.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	mode       string
	allow      []string
	deny       []string
	ask        []string
	addDirs    []string
	cwd        string
	configFile string
	session    string
	quiet      bool

	// noPluginWarnings is set by commands that report plugin problems
	// themselves (riot plugins) or must print nothing extra (completion).
	noPluginWarnings bool
	// everyTool is set by riot mcp, whose clients list every tool and
	// defer them themselves: its host defers none and has no ToolSearch.
	everyTool bool
	// statuses are every plugin known, discovered or configured, as the
	// last host was resolved.
	statuses []core.PluginStatus
	// trustWarned says the untrusted-workspace line was printed.
	trustWarned bool
	// cfg is the config the host was built from, and specs its plugins.
	cfg   *config.Config
	specs []core.PluginSpec
	// preloaded is a config a command read before building its host (riot
	// run, to find [remote] url), which trustedConfig takes instead of
	// reading the files again; once, so a host rebuilt later reads anew.
	preloaded *loadedConfig
	// lifetime, when set, is the RIOT_HOST_LIFETIME the plugins are given:
	// a session host's, which outlives this invocation.
	lifetime string
	// daemon starts a session host for --session when none runs.
	daemon bool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if versionOnly(args) {
		// Answered before the command tree is built, which costs more
		// than printing the line.
		_, _ = io.WriteString(stdout, versionLine()+"\n")
		return exitOK
	}
	// SIGINT and SIGTERM cancel the invocation's context rather than end
	// the process, so that an interrupt ends the calls in flight Cancelled,
	// here or in the session host a client is attached to, and closes the
	// plugins; the exit status is then the command's own.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand(commandIn(args))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "riot:", msg)
	}
	return exitCode(err)
}

// command is one of riot's commands under the root, by name, built only
// when the tree needs it.
type command struct {
	name  string
	build func(*app) *cobra.Command
}

func commands() []command {
	return []command{
		{"tools", (*app).toolsCommand}, {"call", (*app).callCommand}, {"run", (*app).runCommand},
		{"plugins", (*app).pluginsCommand}, {"explain", (*app).explainCommand}, {"config", (*app).configCommand},
		{"mcp", (*app).mcpCommand}, {"version", (*app).versionCommand}, {"trust", (*app).trustCommand},
		{core.BuiltinCommand, (*app).servePluginCommand}, {"serve", (*app).serveCommand},
		{"permissions", (*app).permissionsCommand},
	}
}

// commandIn is the command args run when they start with its name, or "".
func commandIn(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, c := range commands() {
		if args[0] == c.name {
			return c.name
		}
	}
	return ""
}

// rootCommand builds the command tree: the root holding only the command
// named only, or, for "", every command and the completion commands. An
// invocation that starts with a command's name gets that command alone:
// the whole tree costs a third of a millisecond to build, which each
// `riot run --session` attached to a host would pay for nothing. Anything
// else (a flag first, help, completion, no command) gets the whole tree.
func (a *app) rootCommand(only string) *cobra.Command {
	root := &cobra.Command{
		Use:           "riot",
		Short:         "A tool host for LLM coding agents",
		Long:          "riot runs an agent's tool calls (the builtin Bash, Read, Edit, Write, Glob, Grep and Diagnostics, and plugins) through one pipeline:\nschema validation, the permission chain, parallel scheduling, cascade cancellation and result budgets.",
		Version:       ident.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(flagError)
	f := root.PersistentFlags()
	f.StringVar(&a.mode, "mode", "", "permission mode: "+orList(asStrings(config.Modes)))
	f.StringArrayVar(&a.allow, "allow", nil, "allow rule, such as 'Bash(git log:*)' (repeatable)")
	f.StringArrayVar(&a.deny, "deny", nil, "deny rule, such as 'Read(**/.env)' (repeatable)")
	f.StringArrayVar(&a.ask, "ask", nil, "ask rule (repeatable)")
	f.StringArrayVar(&a.addDirs, "add-dir", nil, "an extra workspace root (repeatable)")
	f.StringVar(&a.cwd, "cwd", "", "working directory and first workspace root (default: the current directory)")
	f.StringVar(&a.configFile, "config", "", "a config file read after the workspace's")
	f.StringVar(&a.session, "session", "", "a session id whose state (such as Bash's directory) lasts across invocations")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "no progress spinner on the terminal")
	for _, c := range commands() {
		if only == "" || c.name == only {
			root.AddCommand(c.build(a))
		}
	}
	if only != "" {
		root.CompletionOptions.DisableDefaultCmd = true
	} else {
		root.InitDefaultCompletionCmd() // now, so that its arguments are checked in riot's words too
	}
	argsInOwnWords(root)
	a.completions(root)
	return root
}

// workspace is the --cwd directory, absolute.
func (a *app) workspace() (string, error) {
	dir := a.cwd
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", usageErr("cannot read the working directory: %v", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(config.ExpandHome(dir))
	if err != nil {
		return "", usageErr("--cwd %s: %v", dir, err)
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", usageErr("--cwd %s is not a directory", dir)
	}
	return abs, nil
}

// loadConfig reads every config layer with the flags on top.
func (a *app) loadConfig() (*config.Config, string, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(config.Options{
		Workspace: ws,
		ExtraFile: a.configFile,
		Flags:     config.Flags{Mode: config.Mode(a.mode), Allow: a.allow, Ask: a.ask, Deny: a.deny, AddDirs: a.addDirs},
	})
	if err == nil {
		err = cfg.LoadMCPJSON(ws)
	}
	if err != nil {
		return nil, "", &exitError{code: exitUsage, msg: "config: " + err.Error()}
	}
	return cfg, ws, nil
}

// loadedConfig is what loadConfig read.
type loadedConfig struct {
	cfg *config.Config
	ws  string
}

// trustedConfig is loadConfig for the commands that run tools: in an
// untrusted workspace whose files would loosen something, it asks once on
// a terminal, and warns about what stays ignored.
func (a *app) trustedConfig() (*config.Config, string, error) {
	var cfg *config.Config
	var ws string
	var err error
	if a.preloaded != nil { // read a moment ago by this command: handed over once
		cfg, ws = a.preloaded.cfg, a.preloaded.ws
		a.preloaded = nil
	} else {
		cfg, ws, err = a.loadConfig()
	}
	if err == nil && a.askTrust(cfg) {
		cfg, ws, err = a.loadConfig()
	}
	if err != nil {
		return nil, "", err
	}
	a.warnUntrusted(cfg)
	a.cfg = cfg
	return cfg, ws, nil
}

// host builds the host for a command; the caller closes it.
func (a *app) host(ctx context.Context, opts core.Options) (*core.Host, error) {
	cfg, ws, err := a.trustedConfig()
	if err != nil {
		return nil, err
	}
	specs, statuses, err := a.resolved(cfg, ws)
	if err != nil {
		return nil, err
	}
	a.setLifetime(specs)
	a.statuses, a.specs = statuses, specs
	for _, st := range statuses {
		if !st.Enabled && st.Discovered != "" {
			opts.NotEnabled = append(opts.NotEnabled, st.Name)
		}
	}
	opts.Config, opts.Workspace, opts.Plugins, opts.SessionID = cfg, ws, specs, a.session
	if opts.Prompter == nil && interactive(a.stdin, a.stderr) {
		opts.Prompter = &trustingPrompter{Prompter: &permission.TTYPrompter{In: a.stdin, Out: a.stderr}, a: a, cfg: cfg}
	}
	opts.HookGuard = procguard.Self() // main runs procguard.Main
	opts.ToolSearch = !a.everyTool
	h, err := core.New(ctx, opts)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	if !a.noPluginWarnings {
		warnPlugins(a.stderr, h)
	}
	return h, nil
}

// setLifetime tells the plugins how long they live when that is longer
// than this invocation.
func (a *app) setLifetime(specs []core.PluginSpec) {
	if a.lifetime == "" {
		return
	}
	for i := range specs {
		env := make(map[string]string, len(specs[i].Env)+1)
		for k, v := range specs[i].Env {
			env[k] = v
		}
		env["RIOT_HOST_LIFETIME"] = a.lifetime
		specs[i].Env = env
	}
}

// warnPlugins says, one line each, which enabled plugins could not start:
// their tools are missing from tools[], and nothing else would say so.
func warnPlugins(w io.Writer, h *core.Host) {
	for _, p := range h.Plugins() {
		if p.Problem != "" {
			fmt.Fprintf(w, "riot: warning: the plugin %s is enabled but cannot start, so its tools are left out; `riot plugins` says why.\n", p.Name)
		}
	}
}
