package sandbox

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/internal/tmpview"
)

// Signs are what a command's output showed of the sandbox refusing it.
type Signs struct {
	// ReadOnlyFS: a write hit a read-only mount (EROFS).
	ReadOnlyFS bool
	// Denied: an access was refused (EACCES, EPERM).
	Denied bool
	// Network: a name lookup or a connection failed.
	Network bool
	// Missing are absolute paths the output said do not exist (ENOENT):
	// the sandbox's doing when it does not show them.
	Missing []string
}

// enoent is the text of ENOENT, after which tools print the path.
const enoent = "No such file or directory"

// signWords are matched in the output as it streams.
var signWords = []struct {
	word string
	set  func(*Signs)
}{
	{"Read-only file system", func(s *Signs) { s.ReadOnlyFS = true }},
	{"Permission denied", func(s *Signs) { s.Denied = true }},
	{"Operation not permitted", func(s *Signs) { s.Denied = true }},
	{"Network is unreachable", func(s *Signs) { s.Network = true }},
	{"Could not resolve host", func(s *Signs) { s.Network = true }},
	{"Temporary failure in name resolution", func(s *Signs) { s.Network = true }},
	{"Name or service not known", func(s *Signs) { s.Network = true }},
	{"Connection refused", func(s *Signs) { s.Network = true }},
	{"no such host", func(s *Signs) { s.Network = true }},
}

// tailSize is how much of the end of the output is searched for signs: a
// failed command's error is at its end, and searching all of a large
// output would cost its throughput.
const tailSize = 16 << 10

// Tail is an io.Writer that keeps the last bytes of what passes through it,
// whatever the size of the output.
type Tail struct {
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	if len(p) >= tailSize {
		t.buf = append(t.buf[:0], p[len(p)-tailSize:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Signs are the signs of the sandbox refusing something in the tail.
func (t *Tail) Signs() Signs {
	var s Signs
	for _, sw := range signWords {
		if bytes.Contains(t.buf, []byte(sw.word)) {
			sw.set(&s)
		}
	}
	for _, line := range strings.Split(string(t.buf), "\n") {
		if !strings.Contains(line, enoent) {
			continue
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t'\"`:,()[]", r) }) {
			if strings.HasPrefix(f, "/") && len(s.Missing) < 8 {
				s.Missing = append(s.Missing, filepath.Clean(f))
			}
		}
	}
	return s
}

// hidden are the paths of missing that the profile does not show.
func hidden(p *Profile, missing []string) []string {
	var out []string
	for _, m := range missing {
		if covers(p.MaskedPaths, m) || !shows(p, m) {
			out = append(out, m)
		}
	}
	return out
}

// shows reports whether path lies in something the sandbox shows: a path
// of the session's /tmp (tmpview's rule) is shown, so one missing there is
// missing, not hidden.
func shows(p *Profile, path string) bool {
	tmp := tmpview.View{Host: p.TempDir, Own: append(append([]string(nil), p.ReadPaths...), p.WritePaths...)}
	return covers(p.ReadPaths, path) || covers(p.WritePaths, path) || covers(systemDirs, path) ||
		within(path, "/dev") || within(path, "/proc") || tmp.Shows(filepath.Clean(path))
}

// secretCommands fail without the credentials the sandbox hides.
var secretCommands = []string{"ssh", "scp", "sftp", "rsync", "git push", "git pull", "git fetch", "git clone", "aws", "gcloud", "gsutil", "az", "kubectl", "gpg", "docker"}

// Note is what to tell the model about a failed command that ran in
// profile p, given the signs its output showed: that the sandbox may have
// blocked it, which profile applied, and what the user can add. It is ""
// when nothing points at the sandbox.
func Note(p *Profile, command string, s Signs) string {
	var why []string
	switch {
	case (s.ReadOnlyFS || s.Denied) && !p.Writable:
		why = append(why, "This call was allowed as read-only, so the sandbox let it write nothing. If the command must write, the user adds an allow rule for it (such as a Bash(...) rule in [permissions] allow); an allowed call may write inside the workspace roots and [sandbox] allow_write.")
	case s.ReadOnlyFS || s.Denied:
		why = append(why, "Writes outside the workspace roots and [sandbox] allow_write are refused, as are reads of paths not shown (the home directory, deny rules' paths, secrets). So are writes, inside them too, to what runs code later or holds riot's configuration (.git/hooks, .git/config, .riot/, .mcp.json, shell startup files, ~/bin, ~/.local/bin, autostart and systemd user units, riot's plugin directories), made yet or not, and where one is missing a new name beside it. If the command must reach such a path, the user adds it to [sandbox] allow_write or allow_read, or runs the command themselves; do not work around the sandbox.")
	}
	if hidden := hidden(p, s.Missing); len(hidden) > 0 {
		why = append(why, fmt.Sprintf("%s is not in the sandbox: only the workspace roots, the system directories and [sandbox] allow_read are shown, and deny rules' paths and secrets are hidden. If the command needs it, the user adds it to [sandbox] allow_read (or allow_write); do not work around the sandbox.", strings.Join(hidden, ", ")))
	}
	if s.Network && !p.NetworkOn() {
		switch {
		case !p.Writable:
			why = append(why, "The sandbox gives a read-only call no network. If the command needs it, the user adds an allow rule for it; an allowed call reaches the network unless [sandbox.network] mode = \"none\".")
		case p.EgressOn():
			why = append(why, "The command reaches the network only through riot's proxy, which its http_proxy, https_proxy and ALL_PROXY variables name: a program that ignores them finds no network, and a domain the policy does not allow is refused. If the command needs a domain, the user adds it to allowed_domains under [sandbox.network]; do not work around the proxy.")
		default:
			why = append(why, "The sandbox has no network ([sandbox.network] mode = \"none\"); the user can set mode = \"proxy\", which lets through the domains allowed_domains lists, or mode = \"host\".")
		}
	}
	if mentionsSecretCommand(command) {
		why = append(why, "Credentials (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud and the like) are not in the sandbox unless [sandbox] allow_read lists them: a user who lets this command authenticate adds, for example, \"~/.ssh\" there.")
	}
	if len(why) == 0 {
		return ""
	}
	reason := p.Reason
	if reason == "" {
		reason = "the call's permission decision"
	}
	return fmt.Sprintf("The kernel sandbox may have blocked this command. It ran with the profile of %s (%s). %s", reason, p.Summary(), strings.Join(why, " "))
}

func mentionsSecretCommand(command string) bool {
	fields := strings.Fields(command)
	for i := range fields {
		for _, c := range secretCommands {
			words := strings.Fields(c)
			if i+len(words) <= len(fields) && strings.Join(fields[i:i+len(words)], " ") == c {
				return true
			}
		}
	}
	return false
}
