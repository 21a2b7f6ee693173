package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/riot-tools/riot/config"
)

// Config is what a Policy is built from.
type Config struct {
	// Mode is one of config.Modes; "" means default.
	Mode config.Mode
	// Allow, Ask and Deny are the rules of every layer, merged.
	Allow, Ask, Deny []config.Rule
	// Roots are the workspace roots; Roots[0] is the working directory,
	// which relative paths and ./ rules resolve against.
	Roots []string
	// ReadOnlyRoots may be read but not written, such as riot's results
	// directory.
	ReadOnlyRoots []string
	// Home is the home directory; "" means config.HomeDir. Without one,
	// a rule with a ~ path is an error and a ~ path in a call cannot be
	// resolved, so it asks.
	Home string
	// lookupHome replaces config.HomeDir in tests.
	lookupHome func() (string, error)
	// Protect adds protected paths to the built-in list, such as the user
	// config directory when $XDG_CONFIG_HOME moves it.
	Protect []string
	// Classifier judges calls in auto mode; nil means auto mode asks.
	Classifier Classifier
	// ShowPath names a path in the reasons the model reads as the model
	// knows it (a file of the session's /tmp by its /tmp name); nil
	// leaves paths as they are.
	ShowPath func(string) string
}

// Policy is the permission chain for one session. It is safe for
// concurrent use.
type Policy struct {
	mode       config.Mode
	deny, ask  []*compiled
	allow      []*compiled
	roots      []resolved // writable; roots[0] is the working directory
	readOnly   []resolved
	home       string
	homes      []string // home, and home resolved if it differs
	rootForms  []string // roots[0], and resolved if it differs
	protect    []string // absolute protected paths, both forms
	classifier Classifier
	showPath   func(string) string
	fs         fileSystem
	denyRead   []string // DenyReadGlobs

	mu     sync.RWMutex
	grants []*compiled
}

// compiled is a rule ready to match.
type compiled struct {
	Rule
	src   config.Rule
	cmd   cmdPattern
	globs []string // nil when the spec is not a path pattern
	// param is the parameter reading of a NAME:VALUE specifier, nil for
	// other specifiers (see paramSpec).
	param *paramPattern
	// cond: a hook's if (Condition), named so in messages.
	cond bool
}

// New builds a policy. A malformed rule or an unknown mode is a
// *config.Error naming where it was written.
func New(cfg Config) (*Policy, error) {
	return newPolicy(cfg, osFS{})
}

func newPolicy(cfg Config, fsys fileSystem) (*Policy, error) {
	p := &Policy{mode: cfg.Mode, classifier: cfg.Classifier, showPath: cfg.ShowPath, fs: fsys}
	if p.mode == "" {
		p.mode = config.ModeDefault
	}
	if !slices.Contains(config.Modes, p.mode) {
		return nil, &config.Error{Msg: fmt.Sprintf("unknown permission mode %q; use one of %v", cfg.Mode, config.Modes)}
	}
	if len(cfg.Roots) == 0 {
		return nil, errors.New("permission: no workspace root")
	}
	p.home = cfg.Home
	if p.home == "" {
		lookup := cfg.lookupHome
		if lookup == nil {
			lookup = config.HomeDir
		}
		p.home, _ = lookup() // no home: only ~ paths need one, and they say so
	}
	if p.home != "" {
		home, err := p.resolveRoot(p.home)
		if err != nil {
			return nil, err
		}
		p.home = home.lexical
		p.homes = forms(home)
	}
	for _, r := range cfg.Roots {
		rr, err := p.resolveRoot(r)
		if err != nil {
			return nil, err
		}
		p.roots = append(p.roots, rr)
	}
	p.rootForms = forms(p.roots[0])
	for _, r := range cfg.ReadOnlyRoots {
		rr, err := p.resolveRoot(r)
		if err != nil {
			return nil, err
		}
		p.readOnly = append(p.readOnly, rr)
	}
	for _, h := range homeProtected {
		for _, base := range p.homes {
			p.protect = append(p.protect, filepath.Join(base, h))
		}
	}
	for _, x := range cfg.Protect {
		if x == "" {
			continue // a default that is not known, such as the user config dir without a home
		}
		rr, err := p.resolveRoot(x)
		if err != nil {
			return nil, err
		}
		p.protect = append(p.protect, forms(rr)...)
	}
	for _, list := range []struct {
		in  []config.Rule
		out *[]*compiled
	}{{cfg.Deny, &p.deny}, {cfg.Ask, &p.ask}, {cfg.Allow, &p.allow}} {
		for _, r := range list.in {
			c, err := p.compile(r)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, c)
		}
	}
	p.denyRead = p.denyReadGlobs()
	return p, nil
}

// resolveRoot resolves a configured directory; one that cannot be
// resolved is an error, since the fence would be wrong.
func (p *Policy) resolveRoot(dir string) (resolved, error) {
	// Never cleaned before it is resolved: `lnk/..` is the parent of the
	// link's target.
	abs := dir
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return resolved{}, err
		}
		abs = wd + "/" + abs
	}
	phys, err := resolvePath(p.fs, abs)
	if err != nil {
		return resolved{}, fmt.Errorf("permission: cannot resolve the directory %s: %w", dir, err)
	}
	return resolved{lexical: lexicalForm(p.fs, abs), physical: phys}, nil
}

func forms(r resolved) []string {
	if r.lexical == r.physical {
		return []string{r.lexical}
	}
	return []string{r.lexical, r.physical}
}

// compile parses and prepares one rule.
func (p *Policy) compile(r config.Rule) (*compiled, error) {
	rule, err := ParseRule(r.Text)
	if err != nil {
		return nil, &config.Error{Source: r.Source, Msg: err.Error()}
	}
	c := &compiled{Rule: rule, src: r}
	if rule.Spec == "" {
		return c, nil
	}
	c.cmd = compileCommand(rule.Spec)
	c.param, _ = compileParam(rule) // ParseRule has refused a bad one
	if ps, bad := rule.pathSpec(); bad == "" {
		if ps.anchor == anchorHome && len(p.homes) == 0 {
			// Without a home the rule would match nothing: a deny rule
			// that silently denies nothing.
			return nil, &config.Error{Source: r.Source, Msg: fmt.Sprintf("the rule %s names a path under ~, but %v", r.Text, config.ErrNoHome)}
		}
		c.globs = ps.globs(p.rootForms, p.homes)
	}
	return c, nil
}

// DenyReadGlobs are the globs of the Read(...) deny rules, absolute, for
// tools that walk a tree to skip what the user denied (a bare Read deny
// rule covers everything: "/**"). The chain sees only the paths a call
// names; these reach the files a walk finds.
func (p *Policy) DenyReadGlobs() []string { return p.denyRead }

func (p *Policy) denyReadGlobs() []string {
	var out []string
	for _, r := range p.deny {
		if !readRuleTools[r.Tool] {
			continue
		}
		switch {
		case r.Spec == "":
			out = append(out, "/**")
		case r.globs != nil:
			out = append(out, r.globs...)
		}
	}
	return out
}

// Mode is the policy's permission mode.
func (p *Policy) Mode() config.Mode { return p.mode }

// Hidden reports whether a bare deny rule names the tool: it is left out
// of tools[], so the model never sees it.
func (p *Policy) Hidden(tool string) bool {
	for _, r := range p.deny {
		if r.Spec == "" && namesTool(r.Tool, tool) {
			return true
		}
	}
	return false
}

// Grant adds an allow rule for the rest of the session, as "allow for
// this session" does. It is parsed like any rule.
func (p *Policy) Grant(rule string) error {
	c, err := p.compile(config.Rule{Text: rule, Source: config.Source{Layer: "session"}})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.grants {
		if g.String() == c.String() {
			return nil
		}
	}
	p.grants = append(p.grants, c)
	return nil
}

// Grants are the session's grants in canonical form, for persisting with
// the session.
func (p *Policy) Grants() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]string, len(p.grants))
	for i, g := range p.grants {
		out[i] = g.String()
	}
	return out
}

// allowRules are the configured allow rules followed by the grants.
func (p *Policy) allowRules() []*compiled {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return append(slices.Clip(p.allow), p.grants...)
}
