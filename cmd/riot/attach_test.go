package main

import "testing"

// configInputs tells apart every flag and environment a config is read
// with, including lists that hold the same strings split differently,
// and ignores the variables riot sets for itself.
func TestConfigInputsTellFlagsAndEnvironmentApart(t *testing.T) {
	t.Setenv("RIOT_STATE_DIR", "/s")
	base := func() *app { return &app{mode: "default", allow: []string{"Read"}, configFile: "/c.toml"} }
	want := base().configInputs()
	if got := base().configInputs(); got != want {
		t.Fatalf("the same inputs digest differently: %s, %s", want, got)
	}
	seen := map[string]string{want: "base"}
	for name, change := range map[string]func(*app){
		"mode":             func(a *app) { a.mode = "plan" },
		"allow":            func(a *app) { a.allow = append(a.allow, "Grep") },
		"allow split":      func(a *app) { a.allow = []string{"Rea", "d"} },
		"allow to deny":    func(a *app) { a.allow, a.deny = nil, []string{"Read"} },
		"ask":              func(a *app) { a.ask = []string{"Read"} },
		"add-dir":          func(a *app) { a.addDirs = []string{"/x"} },
		"config":           func(a *app) { a.configFile = "/d.toml" },
		"config into mode": func(a *app) { a.mode, a.configFile = "default/c.toml", "" },
	} {
		a := base()
		change(a)
		got := a.configInputs()
		if prev, dup := seen[got]; dup {
			t.Errorf("%s digests as %s does", name, prev)
		}
		seen[got] = name
	}
	t.Setenv("RIOT_STATE_DIR", "/t")
	if base().configInputs() == want {
		t.Error("a RIOT_ variable is not in the digest")
	}
	t.Setenv("RIOT_STATE_DIR", "/s")
	t.Setenv("RIOT_HOST_LIFETIME", "x")
	if got := base().configInputs(); got != want {
		t.Error("riot's own RIOT_HOST_LIFETIME changes the digest")
	}
	t.Setenv("XDG_CONFIG_HOME", "/elsewhere")
	if base().configInputs() == want {
		t.Error("XDG_CONFIG_HOME is not in the digest")
	}
}
