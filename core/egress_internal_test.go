package core

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// Each mode's profile: proxy gives a writable call its own credentials on
// the session's one proxy, and no network of its own; host gives the
// host's network; none gives nothing; a read-only call never has any.
// Every profile hides the secret variables.
func TestProfileNetworkByMode(t *testing.T) {
	allowedCall := permission.Decision{Behavior: permission.Allow}
	for _, mode := range []config.NetworkMode{"", config.NetworkProxy, config.NetworkHost, config.NetworkNone} {
		t.Run(string(mode), func(t *testing.T) {
			h, _ := sandboxHostFor(t, nil, config.Sandbox{
				Network:   config.SandboxNetwork{Mode: mode},
				SecretEnv: []config.Item{{Text: "*_TOKEN"}},
				PassEnv:   []config.Item{{Text: "CI_JOB_TOKEN"}},
			})
			t.Cleanup(h.closeEgress)
			ro, _ := h.withEgress(context.Background(), &call{use: ToolUse{ID: "ro"}}, h.startProfile(true, permission.Request{}, allowedCall))
			if ro.NetworkOn() || ro.EgressOn() || ro.Egress != nil {
				t.Errorf("a read-only call has a network: %+v %+v", ro.Network, ro.Egress)
			}
			if !slices.Equal(ro.HideEnv, []string{"*_TOKEN"}) || !slices.Equal(ro.PassEnv, []string{"CI_JOB_TOKEN"}) {
				t.Errorf("env: hide %v pass %v", ro.HideEnv, ro.PassEnv)
			}
			c1, c2 := &call{use: ToolUse{ID: "same"}}, &call{use: ToolUse{ID: "same"}}
			w1, key1 := h.withEgress(context.Background(), c1, h.startProfile(false, permission.Request{}, allowedCall))
			w2, key2 := h.withEgress(context.Background(), c2, h.startProfile(false, permission.Request{}, allowedCall))
			if !slices.Equal(w1.HideEnv, []string{"*_TOKEN"}) || !slices.Equal(w1.PassEnv, []string{"CI_JOB_TOKEN"}) {
				t.Errorf("env: hide %v pass %v", w1.HideEnv, w1.PassEnv)
			}
			switch mode {
			case "", config.NetworkProxy:
				if w1.Network || w1.Egress == nil || !w1.EgressOn() || w1.NetworkOn() {
					t.Fatalf("proxy mode: network %v egress %+v", w1.Network, w1.Egress)
				}
				e1, e2 := w1.Egress, w2.Egress
				if e1.Socket != e2.Socket || !strings.HasPrefix(e1.Socket, filepath.Join(h.stateDir, "egress")+"/") {
					t.Errorf("the sockets: %s %s", e1.Socket, e2.Socket)
				}
				// Two calls with one tool use id still get their own.
				if key1 == key2 || e1.User == e2.User || e1.Password == e2.Password || e1.User == "" || e1.Password == "" {
					t.Errorf("the credentials: %q %q, %+v %+v", key1, key2, e1, e2)
				}
				if fi, err := os.Stat(filepath.Dir(e1.Socket)); err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("the socket's directory: %v %v", fi, err)
				}
				if note := h.finishEgress(key1); note != "" {
					t.Errorf("a call refused nothing, yet: %s", note)
				}
				h.closeEgress()
				if _, err := os.Stat(filepath.Dir(e1.Socket)); !os.IsNotExist(err) {
					t.Errorf("the socket's directory outlived the host: %v", err)
				}
			case config.NetworkHost:
				if !w1.Network || w1.Egress != nil || !w1.NetworkOn() || key1 != "" {
					t.Errorf("host mode: network %v egress %+v", w1.Network, w1.Egress)
				}
			case config.NetworkNone:
				if w1.Network || w1.Egress != nil || key1 != "" {
					t.Errorf("none mode: network %v egress %+v", w1.Network, w1.Egress)
				}
			}
			if mode != config.NetworkProxy && mode != "" {
				if _, err := os.Stat(filepath.Join(h.stateDir, "egress")); !os.IsNotExist(err) {
					t.Errorf("a proxy started in mode %q: %v", mode, err)
				}
			}
		})
	}
}

// A rule that no longer parses fails the proxy's start, so no call in
// proxy mode gets a network, and its result says so.
func TestEgressBadRuleMeansNoNetwork(t *testing.T) {
	h, _ := sandboxHostFor(t, nil, config.Sandbox{Network: config.SandboxNetwork{
		Mode: config.NetworkProxy, DeniedDomains: []config.Item{{Text: "http://x/"}},
	}})
	t.Cleanup(h.closeEgress)
	c := &call{use: ToolUse{ID: "x"}}
	p, key := h.withEgress(context.Background(), c, h.startProfile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow}))
	if p.Egress != nil || p.Network || key != "" || !strings.Contains(c.note, "This command had no network: riot's network proxy could not start") {
		t.Errorf("egress %+v network %v key %q note %q", p.Egress, p.Network, key, c.note)
	}
}

// excluded_commands matches the command subjects the tool reported, every
// one, as an allow rule would: a wildcard covers no chained command, and a
// call with no command subjects is never excluded.
func TestExcluded(t *testing.T) {
	h, _ := sandboxHostFor(t, nil, config.Sandbox{ExcludedCommands: []config.Item{{Text: "docker *"}, {Text: "make:*"}}})
	cmd := func(vs ...string) permission.Request {
		var r permission.Request
		for _, v := range vs {
			r.Subjects = append(r.Subjects, permission.Subject{Kind: permission.CommandSubject, Value: v})
		}
		return r
	}
	for _, tc := range []struct {
		req  permission.Request
		want bool
	}{
		{cmd("docker build ."), true},
		{cmd("docker build .", "make test"), true},
		{cmd("docker"), true},
		{cmd("docker build .", "rm -rf x"), false},
		{cmd("docker ps; rm -rf ~"), false},
		{cmd("docker ps > ~/.bashrc"), false},
		{cmd("dockerd"), false},
		{cmd(), false},
		{permission.Request{Subjects: []permission.Subject{{Kind: permission.PathSubject, Value: "/x"}}}, false},
	} {
		if got := h.excluded(tc.req); got != tc.want {
			t.Errorf("%v: excluded = %v, want %v", tc.req.Subjects, got, tc.want)
		}
	}
	h2, _ := sandboxHostFor(t, nil, config.Sandbox{})
	if h2.excluded(cmd("docker build .")) {
		t.Error("excluded without excluded_commands")
	}
}
