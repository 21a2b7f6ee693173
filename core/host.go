package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/mcpsource"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/session"
	"github.com/riot-tools/riot/core/toolcall"
	"github.com/riot-tools/riot/internal/procguard"
	"github.com/riot-tools/riot/shared"
)

// Options configures a Host.
type Options struct {
	// Config is the effective configuration.
	Config *config.Config
	// Workspace is the working directory: the first workspace root, and
	// what relative paths resolve against.
	Workspace string
	// Plugins are the plugins to serve tools from, in order. ResolvePlugins
	// builds them from the config.
	Plugins []PluginSpec
	// HostTools are in-process tools that need the host's session, served
	// through the same contract as plugins (shared.ToolPlugin; the SDK's
	// plugin.NewServer builds one).
	// Their tools come last in tools[].
	HostTools []shared.ToolPlugin
	// ToolSearch defers the tools of the MCP servers the config defers
	// ([mcp_servers.NAME] defer_loading, [mcp] defer_threshold) to the end
	// of tools[] (ToolInfo.Deferred), and serves the ToolSearch tool that
	// finds them, right after the builtins. riot mcp leaves it off: an MCP
	// client lists every tool and defers them itself.
	ToolSearch bool
	// NotEnabled names the plugins discovered but not enabled: a call of
	// an unknown tool says they are there, since the tool may be theirs.
	NotEnabled []string
	// SessionID names a session persisted under the state dir; empty means
	// an ephemeral session.
	SessionID string
	// WriteBehind writes the session's state in the background, off the
	// calls' path, for a process that is the session's only owner (a
	// session host). FlushSession and Close write what is pending.
	WriteBehind bool
	// Prompter resolves Ask; nil denies, as without a terminal.
	Prompter permission.Prompter
	// Classifier judges calls in auto mode; nil builds one from the config,
	// if it names an endpoint.
	Classifier permission.Classifier
	// Logger receives the host's log and the plugins' stderr; nil logs to
	// LogFile at debug and to Stderr at the configured level, with what
	// plugins print in the file only.
	Logger hclog.Logger
	// Stderr is where the host logs at the configured level when Logger is
	// nil; nil means os.Stderr.
	Stderr io.Writer
	// OnProgress, if set, is told when calls start, report progress and end.
	OnProgress func(Progress)
	// OnToolsChanged, if set, is told when an MCP server has added tools
	// (notifications/tools/list_changed); Tools() then lists them at the end.
	OnToolsChanged func()
	// Now is the clock for crash windows; nil means time.Now.
	Now func() time.Time
	// OneShot says the host serves one invocation and closes after it, as
	// `riot call` and `riot run` do, so tools can say that what they leave
	// running (background jobs) ends with it.
	OneShot bool
	// HookGuard runs hook commands under a tree guard, so that riot's death,
	// SIGKILL included, ends everything a hook started however it
	// detached; nil runs them in a process group of their own only. The
	// guard's binary must call procguard.Main first in its main.
	HookGuard *procguard.Tree
}

// Host runs tool calls for an agent. It is safe for concurrent use.
type Host struct {
	opts      Options
	cfg       *config.Config
	log       hclog.Logger
	fileLog   hclog.Logger
	logFile   string
	logCloser func() error
	// tls makes the host's mutual TLS identity on first use: a plugin
	// start needs it, and a listing served from the manifest cache
	// starts no plugin and so never pays for the keys.
	tls   func() (*shared.TLSMaterial, error)
	cache *manifestCache
	// state is the session's state: what tools recorded, grants.
	state     *session.Session
	policy    *permission.Policy
	stateDir  string
	resultDir string
	now       func() time.Time
	results   *resultStore
	notes     sessionNotes

	pluginLogLevel string
	startTimeout   time.Duration

	plugins []*pluginProc
	tools   []*tool
	byName  map[string]*tool
	// startErrs are plugins whose tools are unknown because they could not
	// start, by plugin name.
	startErrs map[string]error
	// leftOut are, by plugin, why tools of its manifest were left out of
	// tools[]: names the model APIs would reject.
	leftOut map[string][]string

	sockOnce sync.Once
	sockDir  string

	sbox sandboxHost
	// egress is the session's network proxy, in proxy mode (egress.go).
	egress egressHost

	// groupSeen, when set, sees each group of calls a turn runs, before
	// they run: the tests of scheduling set it (export_test.go).
	groupSeen func(group []*call)

	closeOnce sync.Once
	// hookState runs SessionStart once and SessionEnd at Close (hooks.go).
	hookState sessionHooks
	// hookSel is the state of the hooks' if, once and async (hookselect.go).
	hookSel hookSelection

	mcp      []*mcpsource.Source
	mcpCache *mcpsource.Cache
	// mcpProcs are mcp's plugins, and mcpSeen how many of each one's
	// tools syncMCP has registered (under regMu).
	mcpProcs []*pluginProc
	mcpSeen  []int
	// search is ToolSearch and the deferral of tools, with
	// Options.ToolSearch (toolsearch.go).
	search *toolSearch
	// regMu guards tools and byName after New, which MCP servers'
	// notifications/tools/list_changed append to.
	regMu sync.RWMutex
}

// tool is one registered tool.
type tool struct {
	spec   shared.ToolSpec
	plugin *pluginProc
	// schemaChecked: spec's input schema passed its meta-schema check, in
	// this process when its plugin sent it or in the one that cached it
	// (compileValidator).
	schemaChecked bool

	once sync.Once
	val  *validator
	err  error

	// paramNames are the input schema's top-level properties (params.go).
	paramsOnce sync.Once
	paramNames []string

	// prepares counts the Prepare exchanges of the tool's calls, which
	// the tests of elision read.
	prepares atomic.Int64
	// expected is the last answer the host accepted from the tool's
	// Prepare, the guess for its next call (speculate.go).
	expected atomic.Pointer[expectation]
}

func (t *tool) validator() (*validator, error) {
	t.once.Do(func() { t.val, t.err = compileValidator(t.spec.Name, t.spec.InputSchema, t.schemaChecked) })
	return t.val, t.err
}

// New builds a host: it loads manifests, from the cache where a plugin's
// binary has not changed and by starting the plugin otherwise, and fixes
// the order of tools[] for the host's lifetime.
func New(ctx context.Context, opts Options) (_ *Host, err error) {
	if opts.Config == nil {
		return nil, errors.New("core.New: Options.Config is required")
	}
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		opts.Workspace = wd
	}
	ws, aerr := filepath.Abs(opts.Workspace)
	if aerr != nil {
		return nil, fmt.Errorf("workspace: %w", aerr)
	}
	opts.Workspace = ws
	h := &Host{opts: opts, cfg: opts.Config, now: opts.Now, byName: map[string]*tool{}, startErrs: map[string]error{}}
	if h.now == nil {
		h.now = time.Now
	}
	h.stateDir = opts.Config.ResolvedStateDir(nil)
	h.logFile = opts.Config.ResolvedLogFile(nil)
	h.log, h.fileLog, h.logCloser = opts.Logger, opts.Logger, func() error { return nil }
	if h.log == nil {
		stderr := opts.Stderr
		if stderr == nil {
			stderr = os.Stderr
		}
		h.log, h.fileLog, h.logCloser = newLogger(opts.Config.Log.Level, h.logFile, int64(opts.Config.Log.MaxSizeMB)<<20, stderr)
	}
	// A host that fails to build closes what it opened: the log file, and
	// the result store's lock.
	defer func() {
		if err != nil {
			h.results.close()
			_ = h.logCloser()
		}
	}()
	h.pluginLogLevel = "debug"
	h.startTimeout = opts.Config.Limits.StartTimeout
	if h.startTimeout <= 0 {
		h.startTimeout = defaultStartTimeout
	}
	h.tls = sync.OnceValues(shared.NewTLSMaterial)
	if opts.OneShot {
		// A one-shot host starts its call's plugin as soon as it is built:
		// the keys (two P-256 certificates, about 0.7 ms) are made on
		// another core while the session, the policy and the manifests
		// load, instead of before the plugin's exec.
		go func() { _, _ = h.tls() }()
	}
	if h.state, err = session.Open(h.stateDir, opts.SessionID); err != nil {
		return nil, err
	}
	if opts.WriteBehind {
		h.state.WriteBehind()
	}
	h.takeSessionNotices()
	key := resultsKey(h.state.ID(), opts.Workspace)
	h.resultDir = filepath.Join(h.stateDir, "results", key)
	h.results = openResultStore(h.resultsRoot(), key, opts.Config.Results, h.now, h.log)
	if err := h.buildPolicy(); err != nil {
		return nil, err
	}
	h.cache = loadManifestCache(filepath.Join(h.stateDir, "cache", manifestCacheFile))
	h.addToolSearch()
	for _, spec := range opts.Plugins {
		h.plugins = append(h.plugins, &pluginProc{h: h, spec: spec, log: h.log.Named(spec.Name), fileLog: h.fileLog.Named(spec.Name)})
	}
	for i, impl := range opts.HostTools {
		spec := PluginSpec{Name: fmt.Sprintf("host%d", i+1), impl: impl}
		h.plugins = append(h.plugins, &pluginProc{h: h, spec: spec, log: h.log.Named(spec.Name), fileLog: h.fileLog.Named(spec.Name)})
	}
	h.addMCPServers()
	h.register(ctx)
	if err := h.builtinStartError(); err != nil {
		_ = h.Close()
		return nil, err
	}
	if err := h.cache.save(); err != nil {
		h.log.Warn("cannot save the manifest cache", "error", err)
	}
	h.results.startPrune()
	h.warnRuleProblems()
	return h, nil
}

func (h *Host) buildPolicy() error {
	perms := h.cfg.Permissions
	roots := h.roots()
	classifier := h.opts.Classifier
	if classifier == nil && perms.Classifier.URL != "" {
		classifier = permission.NewHTTPClassifier(perms.Classifier.URL, perms.Classifier.Model, perms.Classifier.Timeout, nil)
	}
	p, err := permission.New(permission.Config{
		Mode: perms.Mode, Allow: perms.Allow, Ask: perms.Ask, Deny: perms.Deny,
		// Only this session's results: another session's, or another
		// workspace's, spilled output is not this call's to read.
		// The session's temporary directory, /tmp in the sandbox, is a
		// root of its own (sandboxtmp.go).
		Roots: append(roots, h.sessionTmpRoots()...), ReadOnlyRoots: []string{h.resultDir}, Classifier: classifier,
		// riot's own config and state decide what tools may do, so a tool
		// must not change them without asking.
		Protect: []string{config.UserConfigDir(os.Getenv), h.stateDir},
		// The session's /tmp by its /tmp name, never the host's.
		ShowPath: h.tmpShown,
	})
	if err != nil {
		return err
	}
	for _, g := range h.state.Grants() {
		if err := p.Grant(g); err != nil {
			h.log.Warn("dropping a session grant that no longer parses", "grant", g, "error", err)
		}
	}
	h.policy = p
	return h.compileHookConditions()
}

// resultsKey names the directory of a session's spilled results. A session
// without an id (`riot run` or `riot call` without --session) lasts one
// invocation, while its spills are read back in the next: the invocations
// without a session in one workspace share one directory, which no named
// session and no other workspace reads.
func resultsKey(session, workspace string) string {
	if !shared.Ephemeral(session) {
		return session
	}
	sum := sha256.Sum256([]byte(workspace))
	return shared.EphemeralSessionPrefix + "workspace-" + hex.EncodeToString(sum[:8])
}

// resultsRoot is the directory of every session's spilled results, which
// the result store prunes. Tools may read only this session's, resultDir,
// without asking.
func (h *Host) resultsRoot() string { return filepath.Join(h.stateDir, "results") }

// register loads every plugin's manifest and builds the ordered registry:
// plugins in order, each plugin's tools in its manifest's order; a name
// already taken keeps its first owner.
func (h *Host) register(ctx context.Context) {
	manifests := make([]*shared.Manifest, len(h.plugins))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, p := range h.plugins {
		if p.spec.impl == nil {
			if c, ok := h.cache.get(p.spec); ok && p.spec.Refused == "" {
				manifests[i] = c.m
				p.setRegistered(c.m, c.id, c.schemasChecked)
				p.mu.Lock()
				p.protocol = h.cache.protocol(p.spec, c.id)
				p.mu.Unlock()
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := h.fetchManifest(ctx, p)
			if err != nil {
				mu.Lock()
				h.startErrs[p.spec.Name] = err
				mu.Unlock()
				return
			}
			manifests[i] = m
		}()
	}
	wg.Wait()
	for i, m := range manifests {
		if m == nil {
			continue // it could not start: startErrs says why
		}
		specs, err := lockedOrder(h.plugins[i].spec, m.Tools)
		if err != nil {
			h.log.Warn("a locked plugin's tools differ from the lock; its tools are left out", "plugin", h.plugins[i].spec.Name)
			h.startErrs[h.plugins[i].spec.Name] = err
			continue
		}
		for _, spec := range specs {
			name := spec.Name
			if why := toolcall.NameProblem(name); why != "" {
				msg := fmt.Sprintf("The %s plugin's tool %q is left out, since the model APIs (Anthropic's and OpenAI's) would reject it: %s. Ask the plugin's author to rename it.", h.plugins[i].spec.Name, name, why)
				h.log.Warn(msg)
				if h.leftOut == nil {
					h.leftOut = map[string][]string{}
				}
				h.leftOut[h.plugins[i].spec.Name] = append(h.leftOut[h.plugins[i].spec.Name], msg)
				continue
			}
			if prev, dup := h.byName[name]; dup {
				h.log.Warn("two plugins serve the same tool; the first keeps it", "tool", name, "kept", prev.plugin.spec.Name, "ignored", h.plugins[i].spec.Name)
				continue
			}
			t := &tool{spec: spec, plugin: h.plugins[i], schemaChecked: h.plugins[i].schemasChecked()}
			h.tools = append(h.tools, t)
			h.byName[name] = t
		}
	}
	h.tools = orderTools(h.tools)
}

// orderTools puts the builtin plugins' tools first, in the one order of
// config.BuiltinTools whichever builtin serves each, then every other tool
// in plugin and manifest order. A builtin plugin's tool missing from that
// list keeps its place among the others.
func orderTools(tools []*tool) []*tool {
	rank := map[string]int{}
	for i, name := range config.BuiltinTools() {
		rank[name] = i
	}
	var listed, rest []*tool
	for _, t := range tools {
		if _, ok := rank[t.spec.Name]; ok && t.plugin.spec.isBuiltin() {
			listed = append(listed, t)
		} else {
			rest = append(rest, t)
		}
	}
	slices.SortStableFunc(listed, func(a, b *tool) int { return rank[a.spec.Name] - rank[b.spec.Name] })
	return append(listed, rest...)
}

func (h *Host) fetchManifest(ctx context.Context, p *pluginProc) (*shared.Manifest, error) {
	stub, gen, err := p.conn(ctx)
	if err != nil {
		return nil, err
	}
	mctx, cancel := context.WithTimeout(ctx, h.startTimeout)
	defer cancel()
	m, err := stub.Manifest(mctx)
	if err != nil {
		f, code := faultOf(err)
		how := ""
		switch {
		case mctx.Err() != nil || code == codes.DeadlineExceeded:
			// It answers no Manifest: as good as hung at start.
			p.retire(gen)
			return nil, &startError{Msg: fmt.Sprintf("The %s plugin started but did not list its tools within %s. Fix the plugin, or disable [plugins.%s] in the riot config.", p.spec.Name, secondsText(h.startTimeout), p.spec.Name)}
		case f == faultCrash:
			how = p.crashed(gen)
		default:
			h.fileLog.Error("plugin failed to list its tools", "plugin", p.spec.Name, "error", err)
			p.retire(gen)
		}
		return nil, &startError{Msg: manifestFaultMessage(p.spec.Name, f, code, how, h.logFile)}
	}
	if p.spec.impl == nil {
		p.mu.Lock()
		id, protocol := p.startID, p.protocol
		p.mu.Unlock()
		checked := h.cache.put(p.spec, id, &m)
		h.cache.setProtocol(p.spec, id, protocol)
		p.setRegistered(&m, id, checked)
	}
	return &m, nil
}

// Tools lists the tools the model sees, in their fixed order, the
// deferred ones last. A tool a bare deny rule names is left out: the model
// never sees it.
func (h *Host) Tools() []ToolInfo {
	tools, deferred := h.search.order(h.toolList())
	out := make([]ToolInfo, 0, len(tools))
	for _, t := range tools {
		if h.policy.Hidden(t.spec.Name) {
			continue
		}
		out = append(out, ToolInfo{
			Name: t.spec.Name, Description: t.spec.Prompt,
			InputSchema: t.spec.InputSchema, Plugin: t.plugin.spec.Name,
			Annotations: annotationsOf(t.spec.Annotations), OutputSchema: t.spec.OutputSchema,
			Deferred: deferred[t.plugin], Cascades: t.spec.CascadesOnFailure,
		})
	}
	return out
}

// SessionID is the host's session id.
func (h *Host) SessionID() string { return h.state.ID() }

// ResultsDir is where this session's spilled results go.
func (h *Host) ResultsDir() string { return h.resultDir }

// LogFile is the host's log file.
func (h *Host) LogFile() string { return h.logFile }

// FlushSession writes the session state a WriteBehind host holds and has
// not written yet, and waits until it is on disk.
func (h *Host) FlushSession() error {
	return h.state.Flush()
}

// Close stops every plugin and writes the session's pending state. Calls
// still running are cancelled by their contexts; Close does not wait for
// them (what they change later is written at once).
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		// The async hooks finish, each within its timeout, before the
		// session ends.
		h.hookSel.async.Wait()
		h.endSession()
		var wg sync.WaitGroup
		for _, p := range h.plugins {
			wg.Add(1)
			go func() { defer wg.Done(); p.close() }()
		}
		// Each close returned with no process of its plugin left, a start
		// under way included, so no socket is in use below.
		wg.Wait()
		// A probe started ahead of the calls leaves no bwrap behind.
		h.sbox.probing.Wait()
		h.closeSessionTmp()
		// No command is left to use the proxy.
		h.closeEgress()
		h.closeMCP()
		// After this the session writes each change before it returns.
		if err := h.state.Close(); err != nil {
			h.log.Warn("cannot save the session's state; the last changes are lost", "error", err)
		}
		h.results.close()
		// After this no plugin start can make the directory, and what one
		// made is visible here.
		h.sockOnce.Do(func() {})
		if h.sockDir != "" {
			_ = os.RemoveAll(h.sockDir)
		}
		// Plugin starts may have cached what they learned.
		if err := h.cache.save(); err != nil {
			h.log.Warn("cannot save the manifest cache", "error", err)
		}
		_ = h.logCloser()
	})
	return nil
}

// socketDir is a private directory, made on first use, where this host's
// plugins put their sockets, so that Close removes them all, even those of
// plugins that were killed and never cleaned up after themselves. It is ""
// when it cannot be made: each plugin then uses the system's temporary
// directory, as go-plugin does by default.
func (h *Host) socketDir() string {
	h.sockOnce.Do(func() {
		dir, err := os.MkdirTemp("", "riot-")
		if err != nil {
			h.log.Warn("cannot make a directory for plugin sockets", "error", err)
			return
		}
		h.sockDir = dir
	})
	return h.sockDir
}

// availableTools names the visible tools, for unknown-tool messages.
func (h *Host) availableTools() string {
	var names []string
	for _, t := range h.Tools() {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// builtinStartError is why a builtin could not start while the host was
// built. A builtin is riot's own: it fails to start when the host was
// given the wrong executable (Resolver.Exe), and a host without its
// builtins would answer every call with "no tool named Read".
func (h *Host) builtinStartError() error {
	for _, p := range h.plugins {
		if err, ok := h.startErrs[p.spec.Name]; ok && p.spec.Builtin {
			return fmt.Errorf("core.New: the builtin %s plugin, served by %s, could not start (check that Resolver.Exe is riot's own executable): %w", p.spec.Name, p.spec.Path, err)
		}
	}
	return nil
}

// unknownTool is the message for a name no tool has.
func (h *Host) unknownTool(name string) string {
	if msg := h.MissingMCPTool(name); msg != "" {
		return msg
	}
	for _, p := range h.plugins {
		err, ok := h.startErrs[p.spec.Name]
		if ok && p.spec.Lock != nil && slices.Contains(p.spec.Lock.Tools, name) {
			// The lock says whose tool it is: say why that plugin is out.
			return fmt.Sprintf("The %s tool is unavailable: %s Use another tool meanwhile; the tools available are: %s.", name, strings.TrimSpace(err.Error()), h.availableTools())
		}
	}
	msg := fmt.Sprintf("There is no tool named %q. The tools available are: %s. Call one of those instead.", name, h.availableTools())
	var failed []string
	for _, p := range h.plugins {
		if err, ok := h.startErrs[p.spec.Name]; ok {
			failed = append(failed, h.startProblem(p.spec.Name, err))
		}
	}
	slices.Sort(failed)
	if len(failed) > 0 {
		msg += " Some plugins could not start, so their tools are missing: " + strings.Join(failed, " ")
	}
	if n := h.opts.NotEnabled; len(n) > 0 {
		msg += fmt.Sprintf(" Installed but not enabled, so their tools cannot be called in this session: %s. If the tool you need is one of theirs, tell the user that its plugin must be enabled (`riot plugins` shows how); do not retry the call.", strings.Join(n, ", "))
	}
	return msg
}

// PluginInfo is one started or cached plugin, for `riot plugins`.
type PluginInfo struct {
	Name  string
	Path  string
	Args  []string
	Tools []string
	// Protocol is the protocol version the plugin negotiated; 0 if it has
	// not started.
	Protocol int
	// Unfenced are its tools that can call themselves read-only but
	// declare no permission subjects: the fence and deny rules cannot
	// see what their read-only calls read.
	Unfenced []string
	// Problem is why the plugin could not start, if it could not.
	Problem string
	// Locked are the tools its lock entry records, known even when it
	// could not start.
	Locked []string
}

// Plugins lists the host's plugins in order, with their tools.
func (h *Host) Plugins() []PluginInfo {
	var out []PluginInfo
	tools := h.toolList()
	for _, p := range h.plugins {
		if p.spec.impl != nil {
			continue
		}
		p.mu.Lock()
		info := PluginInfo{Name: p.spec.Name, Path: p.spec.Path, Args: p.spec.Args, Protocol: p.protocol}
		p.mu.Unlock()
		for _, t := range tools {
			if t.plugin == p {
				info.Tools = append(info.Tools, t.spec.Name)
				if t.spec.ReadOnlyWithoutSubjects {
					info.Unfenced = append(info.Unfenced, t.spec.Name)
				}
			}
		}
		if err, ok := h.startErrs[p.spec.Name]; ok {
			info.Problem = err.Error()
		}
		if left := h.leftOut[p.spec.Name]; len(left) > 0 {
			info.Problem = strings.TrimSpace(info.Problem + " " + strings.Join(left, " "))
		}
		if p.spec.Lock != nil {
			info.Locked = slices.Clone(p.spec.Lock.Tools)
		}
		out = append(out, info)
	}
	return out
}
