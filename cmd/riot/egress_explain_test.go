package main_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// `riot explain` shows the network policy a call would get, in text and
// in JSON: riot's proxy with the domain lists for a call allowed to
// write, none for a read-only one, and the host's for one that
// [sandbox] excluded_commands takes out of the sandbox, with the reason.
func TestExplainShowsTheNetworkPolicy(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.userConfig(`[permissions]
allow = ["Bash(curl:*)"]

[sandbox]
mode = "required"
excluded_commands = ["docker *"]

[sandbox.network]
allowed_domains = ["example.com"]
denied_domains = ["evil.example"]
`)
	curl := `{"command":"curl https://example.com/"}`
	e.riot("", "explain", "Bash", curl).want(t, 0,
		"; network through riot's proxy (the profile of a call allowed by the rule Bash(curl:*))",
		`network: through riot's proxy ([sandbox.network] mode = "proxy"): 9 allowed, 1 denied, allow_private = false; other names are refused (no one to ask)`,
		"  allowed_domains: proxy.golang.org, sum.golang.org, registry.npmjs.org, pypi.org, files.pythonhosted.org, crates.io, index.crates.io, static.crates.io, example.com\n",
		"  denied_domains: evil.example\n")
	r := e.riot("", "explain", "--json", "Bash", curl)
	r.want(t, 0)
	var out struct {
		Sandbox struct {
			Network bool `json:"network"`
			Egress  bool `json:"egress"`
		} `json:"sandbox"`
		Network struct {
			Mode           string   `json:"mode"`
			Access         string   `json:"access"`
			Unsandboxed    bool     `json:"unsandboxed"`
			AllowedDomains []string `json:"allowed_domains"`
			DeniedDomains  []string `json:"denied_domains"`
			AllowPrivate   bool     `json:"allow_private"`
			Unlisted       string   `json:"unlisted"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	n := out.Network
	if !out.Sandbox.Egress || out.Sandbox.Network || n.Mode != "proxy" || n.Access != "proxy" || n.Unsandboxed || n.AllowPrivate ||
		n.Unlisted != "refuse" || len(n.AllowedDomains) != 9 || !slices.Contains(n.AllowedDomains, "example.com") || !slices.Equal(n.DeniedDomains, []string{"evil.example"}) {
		t.Errorf("explain --json: %+v\n%s", out, r.stdout)
	}

	e.riot("", "explain", "Bash", `{"command":"ls"}`).want(t, 0,
		`network: none: a read-only call never has one ([sandbox.network] mode = "proxy" for calls allowed to write)`)
	e.riot("", "explain", "Bash", `{"command":"docker ps"}`).want(t, 0,
		"sandbox: excluded by [sandbox] excluded_commands, the user's decision",
		"network: the host's, unfiltered: the call runs outside the sandbox")

	e.userConfig("[permissions]\nallow = [\"Bash(curl:*)\"]\n\n[sandbox]\nmode = \"required\"\n\n[sandbox.network]\nmode = \"host\"\n")
	e.riot("", "explain", "Bash", curl).want(t, 0, "; network on", `network: the host's, unfiltered ([sandbox.network] mode = "host")`)
	e.userConfig("[permissions]\nallow = [\"Bash(curl:*)\"]\n\n[sandbox]\nmode = \"required\"\n\n[sandbox.network]\nmode = \"none\"\n")
	e.riot("", "explain", "Bash", curl).want(t, 0, "; no network", `network: none ([sandbox.network] mode = "none")`)
}
