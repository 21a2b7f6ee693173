package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/egress"
)

// The defaults proxy the network and let through the package registries
// of the toolchains riot knows, by exact name, each an entry egress reads.
func TestNetworkDefaults(t *testing.T) {
	c := newTrustCase(t, nil).load(t, Options{})
	n := c.Sandbox.Network
	if n.Mode != NetworkProxy || n.AllowPrivate || len(n.DeniedDomains) != 0 {
		t.Fatalf("[sandbox.network] = %+v", n)
	}
	want := []string{"proxy.golang.org", "sum.golang.org", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "crates.io", "index.crates.io", "static.crates.io"}
	if got := Texts(n.AllowedDomains); !slices.Equal(got, want) {
		t.Fatalf("allowed_domains = %q, want %q", got, want)
	}
	for _, d := range n.AllowedDomains {
		r, err := egress.ParseRule(d.Text)
		if err != nil || r.Wildcard || r.Port != 0 || r.Host != d.Text || d.Source.Layer != "default" {
			t.Errorf("%q: %+v, %v, from %v", d.Text, r, err, d.Source)
		}
	}
	secrets := Texts(c.Sandbox.SecretEnv)
	for _, p := range []string{"AWS_*", "*_TOKEN", "*_API_KEY", "*SECRET*", "*PASSWORD*", "SSH_AUTH_SOCK"} {
		if !slices.Contains(secrets, p) {
			t.Errorf("secret_env %q lacks %q", secrets, p)
		}
	}
	if len(c.Sandbox.PassEnv) != 0 || len(c.Sandbox.ExcludedCommands) != 0 {
		t.Errorf("pass_env %v, excluded_commands %v", c.Sandbox.PassEnv, c.Sandbox.ExcludedCommands)
	}
}

// [sandbox] network = "..." was the mode before [sandbox.network] was a
// table: it fails, saying what to write instead, in any layer, trusted or
// not.
func TestOldNetworkKeyNamesTheTable(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{".riot/config.toml", "[sandbox]\nmode = \"auto\"\nnetwork = \"host\"\n", `:3: [sandbox] network is now the table [sandbox.network]; write mode = "host" under [sandbox.network] instead`},
		{".riot/config.local.toml", "[sandbox]\nnetwork = \"none\"\n", `:2: [sandbox] network is now the table [sandbox.network]; write mode = "none" under [sandbox.network] instead`},
		{"user.toml", "sandbox = { network = true }\n", `:1: [sandbox] network is now the table [sandbox.network]; write mode = true under [sandbox.network] instead`},
	} {
		w := newTrustCase(t, map[string]string{tc.file: tc.body})
		file := filepath.Join(w.ws, tc.file)
		if tc.file == "user.toml" {
			file = w.user
		}
		_, err := w.tryLoad(Options{})
		if err == nil || err.Error() != file+tc.want {
			t.Errorf("%s %q: err = %v, want %s", tc.file, tc.body, err, file+tc.want)
		}
	}
	// The table itself reads, and a mode it lacks is refused.
	w := newTrustCase(t, map[string]string{"user.toml": "[sandbox]\nmode = \"auto\"\n\n[sandbox.network]\nmode = \"host\"\n"})
	if c := w.load(t, Options{}); c.Sandbox.Network.Mode != NetworkHost || c.Sources["sandbox.network.mode"].String() != w.user+":5" {
		t.Fatalf("mode %q from %v", c.Sandbox.Network.Mode, c.Sources["sandbox.network.mode"])
	}
	w = newTrustCase(t, map[string]string{"user.toml": "[sandbox.network]\nmode = \"filtered\"\n"})
	if _, err := w.tryLoad(Options{}); err == nil || err.Error() != w.user+`:2: unknown network mode "filtered"; use one of none, proxy, host` {
		t.Fatalf("err = %v", err)
	}
}

// An allowed_domains or denied_domains entry egress cannot read is a
// config error naming the file and line, the key and the entry, with
// egress's reason.
func TestBadDomainEntry(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"[sandbox.network]\nallowed_domains = [\"https://example.com/x\"]\n",
			`:2: [sandbox.network] allowed_domains: "https://example.com/x" has a scheme (https://); write the host alone: "example.com"`},
		{"[sandbox.network]\ndenied_domains = [\n  \"ok.example\",\n  \"exa*mple.com\",\n]\n",
			`:4: [sandbox.network] denied_domains: "exa*mple.com" has a * that is not the whole first label`},
		{"[sandbox.network]\nallowed_domains = [\"example.com:99999\"]\n",
			`:2: [sandbox.network] allowed_domains: "example.com:99999" has the port "99999"`},
		{"[sandbox.network]\nallowed_domains = [\"\"]\n",
			`:2: [sandbox.network] allowed_domains: "": the entry is empty`},
		{"[sandbox.network]\ndenied_domains = [\"bad.example.\"]\n",
			`:2: [sandbox.network] denied_domains: `},
	} {
		// Untrusted, where allowed_domains would be ignored: the file is
		// wrong either way.
		w := newTrustCase(t, map[string]string{".riot/config.toml": tc.body})
		_, err := w.tryLoad(Options{})
		var ce *Error
		want := filepath.Join(w.ws, ".riot/config.toml") + tc.want
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want it to start %s", tc.body, err, want)
		}
	}
}

// secret_env adds up across layers: no layer, trusted or not, removes a
// pattern a layer below it listed, and an untrusted workspace may add
// patterns but may not pass a variable through with pass_env.
func TestSecretEnvOnlyGrows(t *testing.T) {
	def := newTrustCase(t, nil).load(t, Options{})
	defaults := Texts(def.Sandbox.SecretEnv)
	w := newTrustCase(t, map[string]string{
		"user.toml":               "[sandbox]\nsecret_env = []\n",
		".riot/config.toml":       "[sandbox]\nsecret_env = [\"MY_*\"]\npass_env = [\"GITHUB_TOKEN\"]\n",
		".riot/config.local.toml": "[sandbox]\nsecret_env = []\n",
		"extra.toml":              "[sandbox]\nsecret_env = [\"LAST\"]\n",
	})
	c := w.load(t, Options{ExtraFile: filepath.Join(w.ws, "extra.toml")})
	if got, want := Texts(c.Sandbox.SecretEnv), append(slices.Clone(defaults), "MY_*", "LAST"); !slices.Equal(got, want) {
		t.Fatalf("secret_env = %q, want %q", got, want)
	}
	if got := c.Sandbox.SecretEnv[len(defaults)].Source.String(); got != filepath.Join(w.ws, ".riot/config.toml")+":2" {
		t.Errorf("MY_* from %s", got)
	}
	if len(c.Sandbox.PassEnv) != 0 {
		t.Errorf("the untrusted workspace passed %v through", c.Sandbox.PassEnv)
	}
	cfgFile := filepath.Join(w.ws, ".riot/config.toml")
	if got := strings.Join(ignoredKeys(c), " "); got != "sandbox.pass_env@"+cfgFile+":3" {
		t.Errorf("ignored %s", got)
	}
	// Trusted, pass_env applies, and the defaults are still all there.
	w.trust(t)
	c = w.load(t, Options{})
	if !slices.Equal(Texts(c.Sandbox.PassEnv), []string{"GITHUB_TOKEN"}) || !slices.Equal(Texts(c.Sandbox.SecretEnv)[:len(defaults)], defaults) {
		t.Fatalf("trusted: pass_env %v, secret_env %v", c.Sandbox.PassEnv, c.Sandbox.SecretEnv)
	}
}

// An untrusted workspace may deny domains but not allow them, open the
// network or exclude commands from the sandbox; riot says what it
// ignored, and the defaults stay.
func TestUntrustedNetworkKeys(t *testing.T) {
	body := "[sandbox]\nexcluded_commands = [\"docker *\"]\n\n[sandbox.network]\nmode = \"host\"\nallowed_domains = [\"evil.example\"]\ndenied_domains = [\"*.tracker.example\"]\nallow_private = true\n"
	w := newTrustCase(t, map[string]string{".riot/config.toml": body})
	c := w.load(t, Options{})
	cfgFile := filepath.Join(w.ws, ".riot/config.toml")
	want := []string{"sandbox.excluded_commands@" + cfgFile + ":2", "sandbox.network.mode@" + cfgFile + ":5", "sandbox.network.allowed_domains@" + cfgFile + ":6", "sandbox.network.allow_private@" + cfgFile + ":8"}
	if got := ignoredKeys(c); !slices.Equal(got, want) {
		t.Fatalf("ignored %q, want %q", got, want)
	}
	n := c.Sandbox.Network
	if n.Mode != NetworkProxy || n.AllowPrivate || slices.Contains(Texts(n.AllowedDomains), "evil.example") || len(c.Sandbox.ExcludedCommands) != 0 {
		t.Fatalf("an untrusted value applied: %+v, excluded %v", n, c.Sandbox.ExcludedCommands)
	}
	if len(n.DeniedDomains) != 1 || n.DeniedDomains[0].Text != "*.tracker.example" || n.DeniedDomains[0].Source.String() != cfgFile+":7" {
		t.Fatalf("denied_domains = %+v", n.DeniedDomains)
	}
	w.trust(t)
	c = w.load(t, Options{})
	n = c.Sandbox.Network
	if len(c.Trust.Ignored) != 0 || n.Mode != NetworkHost || !n.AllowPrivate || Texts(n.AllowedDomains)[len(n.AllowedDomains)-1] != "evil.example" || Texts(c.Sandbox.ExcludedCommands)[0] != "docker *" {
		t.Fatalf("trusted: %+v, excluded %v, ignored %v", n, c.Sandbox.ExcludedCommands, ignoredKeys(c))
	}
}

// Each list of [sandbox] and [sandbox.network] checks its entries, in the
// words of what to write instead.
func TestSandboxListEntriesAreChecked(t *testing.T) {
	for body, want := range map[string]string{
		"[sandbox]\nsecret_env = [\"\"]\n":                      `[sandbox] secret_env: the pattern is empty`,
		"[sandbox]\nsecret_env = [\"AWS_[\"]\n":                 `[sandbox] secret_env: "AWS_[" is not a valid pattern`,
		"[sandbox]\nsecret_env = [\"A=B\"]\n":                   `[sandbox] secret_env: "A=B" has a character no variable's name has`,
		"[sandbox]\npass_env = [\"GITHUB_*\"]\n":                `[sandbox] pass_env: "GITHUB_*" is a pattern; pass_env takes each variable's exact name`,
		"[sandbox]\npass_env = [\"\"]\n":                        `[sandbox] pass_env: the name is empty`,
		"[sandbox]\nexcluded_commands = [\"Bash(docker *)\"]\n": `[sandbox] excluded_commands: "Bash(docker *)" is a whole rule; write the command pattern alone: "docker *"`,
		"[sandbox]\nexcluded_commands = [\":*\"]\n":             `[sandbox] excluded_commands: ":*" would run every command outside the sandbox; to turn the sandbox off, set [sandbox] mode = "off"`,
		"[sandbox]\nexcluded_commands = [\" \"]\n":              `[sandbox] excluded_commands: the pattern is empty`,
		"[sandbox.network]\nallowed_domain = []\n":              `unknown key "allowed_domain" in [sandbox.network]; did you mean "allowed_domains"?`,
		"[sandbox.network]\nallow_private = \"yes\"\n":          `allow_private must be true or false, not a string`,
		"[sandbox.network]\nallowed_domains = \"a.example\"\n":  `allowed_domains must be an array of strings`,
	} {
		w := newTrustCase(t, map[string]string{"user.toml": body})
		_, err := w.tryLoad(Options{})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), w.user+":2: ") {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	w := newTrustCase(t, map[string]string{"user.toml": "[sandbox]\nexcluded_commands = [\"docker *\", \"make:*\"]\nsecret_env = [\"*_KEY\"]\npass_env = [\"HF_TOKEN\"]\n"})
	c := w.load(t, Options{})
	if !slices.Equal(Texts(c.Sandbox.ExcludedCommands), []string{"docker *", "make:*"}) || Texts(c.Sandbox.PassEnv)[0] != "HF_TOKEN" || !slices.Contains(Texts(c.Sandbox.SecretEnv), "*_KEY") {
		t.Fatalf("%+v", c.Sandbox)
	}
}

// riot config lists every key of [sandbox.network], each list element
// with the file and line it came from.
func TestNetworkEntries(t *testing.T) {
	w := newTrustCase(t, map[string]string{"user.toml": "[sandbox.network]\nallowed_domains = [\n  \"github.com\",\n]\n"})
	var got []string
	for _, e := range w.load(t, Options{}).Entries() {
		if strings.HasPrefix(e.Key, "sandbox.network.") || e.Key == "sandbox.pass_env" || e.Key == "sandbox.excluded_commands" {
			got = append(got, e.Key+" "+e.Op+" "+e.Value+" # "+e.Source.String())
		}
	}
	want := []string{
		"sandbox.excluded_commands = [] # default",
		"sandbox.pass_env = [] # default",
		`sandbox.network.mode = "proxy" # default`,
		`sandbox.network.allowed_domains += "proxy.golang.org" # default`,
		`sandbox.network.allowed_domains += "sum.golang.org" # default`,
		`sandbox.network.allowed_domains += "registry.npmjs.org" # default`,
		`sandbox.network.allowed_domains += "pypi.org" # default`,
		`sandbox.network.allowed_domains += "files.pythonhosted.org" # default`,
		`sandbox.network.allowed_domains += "crates.io" # default`,
		`sandbox.network.allowed_domains += "index.crates.io" # default`,
		`sandbox.network.allowed_domains += "static.crates.io" # default`,
		`sandbox.network.allowed_domains += "github.com" # ` + w.user + ":3",
		"sandbox.network.denied_domains = [] # default",
		"sandbox.network.allow_private = false # default",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
