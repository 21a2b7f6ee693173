package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost/attach"
	"github.com/riot-tools/riot/internal/egress"
	"github.com/riot-tools/riot/shared"
)

// egressHost is a Host's side of [sandbox.network] mode = "proxy": the
// session's egress.Proxy, started by the first call that would get the
// network, on a Unix socket in a private directory under riot's state dir
// (which every profile masks; the SDK binds the socket itself into the
// sandbox), and closed with the host. Each such call registers with it for
// credentials of its own, and its result tells what the proxy refused it.
type egressHost struct {
	mu      sync.Mutex
	started bool
	closed  bool
	proxy   *egress.Proxy
	policy  egress.Policy
	// asks: the proxy puts names no rule covers to the host's prompter.
	asks    bool
	dir     string
	socket  string
	err     error // why the proxy could not start
	serving sync.WaitGroup
	seq     uint64
	// calls are the registered calls by caller key, for the questions
	// their commands' connections raise.
	calls map[string]egressCall
	// unasked are the questions refused because nobody could be asked;
	// refused those the user refused. Both are keyed by the question's
	// Rule, as the proxy keys its questions (egressRuleKey).
	unasked, refused map[string]bool
	// resolver, when set (by tests), is the proxy's resolver.
	resolver egress.Resolver
}

// egressCall is a registered call: the question about a host its command
// raises is asked in its context (the terminal, the session host's client
// or the MCP request of that call).
type egressCall struct {
	ctx            context.Context
	tool, describe string
}

// egressSocketName is the proxy's socket in its private directory.
const egressSocketName = "proxy.sock"

// networkMode is [sandbox.network] mode; unset is the default, proxy.
func (h *Host) networkMode() config.NetworkMode {
	if m := h.cfg.Sandbox.Network.Mode; m != "" {
		return m
	}
	return config.NetworkProxy
}

// egressPolicy is [sandbox.network] as the proxy reads it. The config
// checked each entry with egress.ParseRule; one that fails here fails the
// policy, so that a deny rule is never dropped.
func egressPolicy(n config.SandboxNetwork) (egress.Policy, error) {
	pol := egress.Policy{AllowPrivate: n.AllowPrivate}
	for _, list := range []struct {
		items []config.Item
		out   *[]egress.Rule
	}{{n.AllowedDomains, &pol.Allowed}, {n.DeniedDomains, &pol.Denied}} {
		for _, it := range list.items {
			r, err := egress.ParseRule(it.Text)
			if err != nil {
				return egress.Policy{}, fmt.Errorf("%s: %w", it.Source, err)
			}
			*list.out = append(*list.out, r)
		}
	}
	return pol, nil
}

// startEgress starts the session's proxy once; later calls get the same
// one, or the same error.
func (h *Host) startEgress() (*egress.Proxy, string, error) {
	e := &h.egress
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, "", errHostClosed
	}
	if e.started {
		return e.proxy, e.socket, e.err
	}
	e.started = true
	e.err = h.openEgress()
	return e.proxy, e.socket, e.err
}

// openEgress makes the proxy and serves it; e.mu is held.
func (h *Host) openEgress() error {
	e := &h.egress
	pol, err := egressPolicy(h.cfg.Sandbox.Network)
	if err != nil {
		return err
	}
	parent := filepath.Join(h.stateDir, "egress")
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(parent, "s-") // 0700
	if err != nil {
		return err
	}
	socket := filepath.Join(dir, egressSocketName)
	addr, done, err := attach.ShortAddr(socket)
	if err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	l, err := net.Listen("unix", addr)
	done()
	if err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	if ul, ok := l.(*net.UnixListener); ok {
		// The directory goes whole at Close; the listener must not unlink
		// a name that was only valid through the descriptor.
		ul.SetUnlinkOnClose(false)
	}
	opts := egress.Options{
		Policy:   pol,
		Persist:  h.persistDomain,
		Resolver: e.resolver,
		Logger:   h.log.Named("egress"),
	}
	// Without a prompter nobody can ask: the proxy refuses names no rule
	// covers, saying which line would allow them.
	if _, ok := h.opts.Prompter.(permission.NetworkPrompter); ok {
		opts.Ask = h.askEgress
		e.asks = true
	}
	e.policy, e.dir, e.socket = pol, dir, socket
	e.calls, e.unasked, e.refused = map[string]egressCall{}, map[string]bool{}, map[string]bool{}
	e.proxy = egress.New(opts)
	e.serving.Add(1)
	go func() {
		defer e.serving.Done()
		if err := e.proxy.Serve(l); err != nil {
			h.log.Error("riot's network proxy stopped serving; sandboxed commands have no network for the rest of the session", "error", err)
		}
	}()
	return nil
}

// closeEgress stops the proxy, ending every connection through it, and
// removes its socket.
func (h *Host) closeEgress() {
	e := &h.egress
	e.mu.Lock()
	e.closed = true
	p, dir := e.proxy, e.dir
	e.mu.Unlock()
	if p != nil {
		_ = p.Close()
	}
	e.serving.Wait()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// withEgress gives the profile of a writable call in proxy mode its way
// out: the session's proxy, with credentials of the call's own. It
// returns the caller key to finish the call with, or "" for none. When
// the proxy cannot start the call has no network, and its result says so.
func (h *Host) withEgress(ctx context.Context, c *call, p *shared.SandboxProfile) (*shared.SandboxProfile, string) {
	if p == nil || !p.Writable || !proxyNetwork(h.networkMode()) {
		return p, ""
	}
	eg, key, err := h.registerEgress(ctx, c)
	if err != nil {
		if !errors.Is(err, errHostClosed) {
			h.log.Error("riot's network proxy cannot start; sandboxed commands have no network", "error", err)
		}
		c.note = fmt.Sprintf("(This command had no network: riot's network proxy could not start (%v). Tell the user if the task needs the network; do not try to reach it another way.)", err)
		return p, ""
	}
	p.Egress = eg
	return p, key
}

// registerEgress gives a writable call in proxy mode its way out: its own
// credentials with the session's proxy. It returns the caller key to
// finish with, or the proxy's start error, in which case the call gets no
// network at all.
func (h *Host) registerEgress(ctx context.Context, c *call) (*shared.Egress, string, error) {
	p, socket, err := h.startEgress()
	if err != nil {
		return nil, "", err
	}
	e := &h.egress
	e.mu.Lock()
	e.seq++
	// Tool use ids come from the model and need not be unique; the key is.
	key := c.use.ID + "#" + strconv.FormatUint(e.seq, 10)
	e.calls[key] = egressCall{ctx: ctx, tool: c.use.Name, describe: describeOf(c)}
	e.mu.Unlock()
	user, pass := p.Register(key)
	return &shared.Egress{Socket: socket, User: user, Password: pass}, key, nil
}

// finishEgress returns the note a call's result carries of what the proxy
// refused it, or "". The call's credentials stay valid for the session:
// a job the command left running in the background keeps its way out
// (a name it meets then cannot be asked about: no call waits for it).
func (h *Host) finishEgress(key string) string {
	e := &h.egress
	e.mu.Lock()
	p := e.proxy
	delete(e.calls, key)
	e.mu.Unlock()
	if p == nil {
		return ""
	}
	return h.denialNote(p.Denials(key))
}

// askEgress puts a name no rule covers to the user, in the context of the
// call whose command connects. The proxy asks once per session per
// host:port and remembers the answer in memory; "always" is persisted by
// persistDomain.
func (h *Host) askEgress(ctx context.Context, q egress.Question) egress.Answer {
	e := &h.egress
	key := q.Rule
	e.mu.Lock()
	c, ok := e.calls[q.Caller]
	e.mu.Unlock()
	np, can := h.opts.Prompter.(permission.NetworkPrompter)
	if !ok || !can {
		e.mark(e.unasked, key)
		return egress.AnswerUnasked
	}
	// The question lasts while the call does, and no longer than the proxy.
	actx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	actx = h.asking(actx, "permission_prompt", fmt.Sprintf("riot needs your permission for %s to reach %s", c.tool, q.Rule))
	a, err := np.PromptNetwork(actx, permission.NetworkQuestion{Host: q.Host, Port: q.Port, Rule: q.Rule, Tool: c.tool, Describe: c.describe})
	switch {
	case errors.Is(err, permission.ErrCannotAsk):
		e.mark(e.unasked, key)
		return egress.AnswerUnasked
	case err != nil:
		// Cancelled with its call: the next call may ask again.
		h.log.Debug("a network question was not answered", "host", q.Host, "port", q.Port, "error", err)
		e.mark(e.unasked, key)
		return egress.AnswerUnasked
	}
	switch permission.NetworkAnswer(a) {
	case permission.AnswerAllowSession:
		return egress.AnswerSession
	case permission.AnswerAllowAlways:
		return egress.AnswerAlways
	case permission.AnswerDeny, permission.AnswerAllowOnce:
	}
	e.mark(e.refused, key)
	return egress.AnswerDeny
}

func (e *egressHost) mark(set map[string]bool, key string) {
	e.mu.Lock()
	set[key] = true
	e.mu.Unlock()
}

// persistDomain writes an "always" answer where "always allow" writes
// permission rules: the workspace's .riot/config.local.toml.
func (h *Host) persistDomain(rule string) error {
	_, err := config.AppendAllowedDomain(h.opts.Workspace, rule)
	return err
}

func hostPortKey(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// egressRuleKey is the key of the proxy's question about a refused
// host:port: the allowed_domains entry naming exactly it, in the form
// the proxy gives Question.Rule (the entry parsed and printed again). A
// host that does not parse was never asked about, and keeps its
// host:port form, which no question's key equals.
func egressRuleKey(host string, port int) string {
	target := hostPortKey(host, port)
	r, err := egress.ParseRule(target)
	if err != nil {
		return target
	}
	return r.String()
}

// denialNote is what a call's result says of the connections the proxy
// refused its command: each host:port, why, and for a name no rule
// covers that nobody could be asked about, the line that would allow it.
// It is for the model to tell the user, never to work around.
func (h *Host) denialNote(denied []egress.Denial) string {
	if len(denied) == 0 {
		return ""
	}
	e := &h.egress
	var b strings.Builder
	b.WriteString("(riot's network proxy refused connections this command tried to make:")
	for _, d := range denied {
		target := hostPortKey(d.Host, d.Port)
		key := egressRuleKey(d.Host, d.Port)
		e.mu.Lock()
		unasked := e.unasked[key] || !e.asks
		refused := e.refused[key]
		e.mu.Unlock()
		verdict := e.policy.Check(d.Host, d.Port).Verdict
		switch {
		case verdict == egress.Ask && refused:
			fmt.Fprintf(&b, "\n- %s: the user refused it for this session.", target)
		case verdict == egress.Ask && unasked:
			fmt.Fprintf(&b, "\n- %s: %s is not an allowed domain, and nobody could be asked. The line that would allow it is allowed_domains = [%s] under [sandbox.network] in .riot/config.toml.", target, d.Host, strconv.Quote(d.Host))
		default:
			fmt.Fprintf(&b, "\n- %s: %s", target, strings.TrimSuffix(d.Reason, "."))
		}
	}
	b.WriteString("\nDo not retry these connections or try to reach these hosts another way. If the task needs one, tell the user what it needs and why; only the user can allow it.)")
	return b.String()
}

// NetworkPolicy is the network a call's commands would get, for `riot
// explain`.
type NetworkPolicy struct {
	// Mode is [sandbox.network] mode.
	Mode config.NetworkMode
	// Access is what the call's commands get: NetworkNone (read-only
	// calls, mode "none", or no sandbox to start a proxy in reach),
	// NetworkProxy or NetworkHost (mode "host", or the call runs outside
	// the sandbox).
	Access config.NetworkMode
	// Unsandboxed: the commands run outside the sandbox, on the host's
	// network whatever the mode.
	Unsandboxed bool
	// Allowed and Denied are the domain lists; AllowPrivate lifts the
	// refusal of private addresses.
	Allowed, Denied []string
	AllowPrivate    bool
	// Asks: a name no rule covers is asked about; otherwise it is refused.
	Asks bool
}

// explainNetwork is the network policy of a call that would run in p (nil
// for none).
func (h *Host) explainNetwork(p *shared.SandboxProfile) NetworkPolicy {
	n := h.cfg.Sandbox.Network
	np := NetworkPolicy{
		Mode: h.networkMode(), Allowed: config.Texts(n.AllowedDomains), Denied: config.Texts(n.DeniedDomains),
		AllowPrivate: n.AllowPrivate, Access: config.NetworkNone,
	}
	_, np.Asks = h.opts.Prompter.(permission.NetworkPrompter)
	switch {
	case p == nil:
		np.Access, np.Unsandboxed = config.NetworkHost, true
	case p.EgressOn():
		np.Access = config.NetworkProxy
	case p.NetworkOn():
		np.Access = config.NetworkHost
	}
	return np
}
