package config

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/riot-tools/riot/internal/egress"
)

// Sandbox is the [sandbox] table: the kernel sandbox Bash, Diagnostics and
// every tool that starts processes through the SDK run their commands in.
type Sandbox struct {
	// Mode is whether calls run sandboxed: one of SandboxModes.
	Mode SandboxMode `toml:"mode" trust:"loosen" check:"sandbox_mode"`
	// AllowWrite are writable for calls allowed to write, besides the
	// workspace roots; AllowRead are visible read-only to every call;
	// DenyRead are hidden from every call. Each is absolute or ~/x, as
	// written; the core expands ~. The embedded defaults list toolchain
	// directories that exist only where that toolchain is installed, so
	// only a later layer's paths must exist.
	AllowWrite []SandboxPath `toml:"allow_write" trust:"loosen" check:"existing_path"`
	AllowRead  []SandboxPath `toml:"allow_read" trust:"loosen" check:"absolute_path"`
	DenyRead   []SandboxPath `toml:"deny_read" trust:"tighten" check:"existing_path"`
	// ExcludedCommands are command patterns, as in Bash(...) rules
	// ("docker *", "make:*"), whose calls run outside the sandbox when
	// every command of the call matches one: the user's decision, which
	// no tool input can make. The permission chain still decides them.
	ExcludedCommands []Item `toml:"excluded_commands" trust:"loosen" check:"command_pattern"`
	// SecretEnv are patterns of environment variable names (path.Match
	// syntax, case folded) removed from every sandboxed command's
	// environment. Every layer adds to them and none removes one, so an
	// untrusted workspace may add patterns too.
	SecretEnv []Item `toml:"secret_env" trust:"tighten" check:"env_pattern"`
	// PassEnv are exact variable names passed to sandboxed commands even
	// when a SecretEnv pattern matches them.
	PassEnv []Item `toml:"pass_env" trust:"loosen" check:"env_name"`
	// Network is [sandbox.network]. Before it was a table, [sandbox]
	// network = "host" said its mode, which is an error that says so.
	Network SandboxNetwork `toml:"network" moved:"mode"`
}

// SandboxNetwork is [sandbox.network]: the network of calls allowed to
// write. Calls allowed as read-only never have one.
type SandboxNetwork struct {
	// Mode is one of NetworkModes.
	Mode NetworkMode `toml:"mode" trust:"loosen" check:"network_mode"`
	// AllowedDomains and DeniedDomains are egress.ParseRule entries
	// ("example.com", "*.example.com", "example.com:443"); in proxy mode
	// a denied one is refused, an allowed one let through, and the rest
	// asked about. Deny wins.
	AllowedDomains []Item `toml:"allowed_domains" trust:"loosen" check:"domain"`
	DeniedDomains  []Item `toml:"denied_domains" trust:"tighten" check:"domain"`
	// AllowPrivate lets the proxy reach private, loopback and link-local
	// addresses.
	AllowPrivate bool `toml:"allow_private" trust:"loosen"`
}

// SandboxPath is one path of a [sandbox] list, with where it was written.
type SandboxPath struct {
	Path   string
	Source Source
}

func (p *SandboxPath) locate(path string, src Source) { p.Path, p.Source = path, src }

// SandboxMode is [sandbox] mode: whether calls run in the kernel sandbox.
type SandboxMode string

const (
	// SandboxAuto: sandboxed where bubblewrap works, else unconfined with
	// a warning and a note on each result.
	SandboxAuto SandboxMode = "auto"
	// SandboxRequired: calls fail where bubblewrap does not work.
	SandboxRequired SandboxMode = "required"
	// SandboxOff: never sandboxed.
	SandboxOff SandboxMode = "off"
)

// NetworkMode is [sandbox.network] mode: how calls allowed to write reach
// the network.
type NetworkMode string

const (
	// NetworkNone: a network namespace of its own, cut off.
	NetworkNone NetworkMode = "none"
	// NetworkProxy: a network namespace of its own, whose one way out is
	// riot's proxy for the session, which applies the domain lists.
	NetworkProxy NetworkMode = "proxy"
	// NetworkHost: the host's network, unfiltered.
	NetworkHost NetworkMode = "host"
)

// SandboxModes and NetworkModes are the values [sandbox] mode and
// [sandbox.network] mode take, in the order riot lists them.
var (
	SandboxModes = []SandboxMode{SandboxAuto, SandboxRequired, SandboxOff}
	NetworkModes = []NetworkMode{NetworkNone, NetworkProxy, NetworkHost}
)

// Item is one string of a list, with where it was written.
type Item struct {
	Text   string
	Source Source
}

func (i *Item) locate(text string, src Source) { i.Text, i.Source = text, src }

// Texts are the items' strings, in order.
func Texts(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Text
	}
	return out
}

// checkSandboxPath is what is wrong with a [sandbox] path, or "".
func checkSandboxPath(p string, mustExist bool) string {
	abs := ExpandHome(p)
	if !filepath.IsAbs(abs) {
		return fmt.Sprintf("%q is relative; write an absolute path or ~/x, since a sandbox path must not depend on the directory riot runs in", p)
	}
	if mustExist {
		if _, err := os.Lstat(abs); err != nil {
			return fmt.Sprintf("%q does not exist; create it or remove it from the list", p)
		}
	}
	return ""
}

// checkDomain is what is wrong with an allowed_domains or denied_domains
// entry, in egress.ParseRule's words, or "".
func checkDomain(entry string) string {
	_, err := egress.ParseRule(entry)
	if err == nil {
		return ""
	}
	msg := err.Error()
	if q := strconv.QuoteToASCII(entry); !strings.Contains(msg, q) {
		msg = q + ": " + msg
	}
	return msg
}

// checkEnvPattern is what is wrong with a secret_env pattern, or "".
func checkEnvPattern(p string) string {
	if msg := checkEnvText(p, "pattern"); msg != "" {
		return msg
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Sprintf("%q is not a valid pattern: check that [ ] are paired and that a \\ escapes a character; patterns are such as AWS_* or *_TOKEN", p)
	}
	return ""
}

// checkEnvName is what is wrong with a pass_env name, or "".
func checkEnvName(name string) string {
	if msg := checkEnvText(name, "name"); msg != "" {
		return msg
	}
	if strings.ContainsAny(name, "*?[\\") {
		return fmt.Sprintf("%q is a pattern; pass_env takes each variable's exact name, such as GITHUB_TOKEN", name)
	}
	return ""
}

// checkEnvText is what is wrong with a variable name or pattern as text.
func checkEnvText(s, what string) string {
	switch {
	case s == "":
		return fmt.Sprintf("the %s is empty; remove it or write a variable's %s", what, what)
	case strings.ContainsFunc(s, unicode.IsControl) || strings.ContainsAny(s, "= "):
		return fmt.Sprintf("%q has a character no variable's name has (=, a space or a control character); write the %s alone", s, what)
	}
	return ""
}

// ruleForm is a pattern written as a whole permission rule, Bash(...).
var ruleForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+\((.*)\)$`) })

// checkCommandPattern is what is wrong with an excluded_commands
// pattern, or "".
func checkCommandPattern(p string) string {
	s := strings.TrimSpace(p)
	switch {
	case s == "":
		return "the pattern is empty; write a command pattern such as \"docker *\""
	case strings.ContainsFunc(s, unicode.IsControl):
		return fmt.Sprintf("%q contains a control character; a pattern is one line of printable text", p)
	case ruleForm().MatchString(s):
		return fmt.Sprintf("%q is a whole rule; write the command pattern alone: %q", p, ruleForm().FindStringSubmatch(s)[1])
	case strings.Trim(s, ":*") == "":
		return fmt.Sprintf("%q would run every command outside the sandbox; to turn the sandbox off, set [sandbox] mode = \"off\"", p)
	}
	return ""
}
