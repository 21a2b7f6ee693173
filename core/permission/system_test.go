package permission

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// modeFS is the real filesystem with the modes of some paths replaced, or
// their Lstat failing: root reads every file, so the modes are what is
// tested, not the process's access.
type modeFS struct {
	modes map[string]fs.FileMode
	fail  map[string]bool
}

func (f modeFS) Lstat(name string) (fs.FileInfo, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.EACCES}
	}
	fi, err := os.Lstat(name)
	if m, ok := f.modes[name]; ok && err == nil {
		return modeInfo{fi, m}, nil
	}
	return fi, err
}

func (modeFS) Readlink(name string) (string, error) { return os.Readlink(name) }

type modeInfo struct {
	fs.FileInfo
	mode fs.FileMode
}

func (m modeInfo) Mode() fs.FileMode { return m.mode }
func (m modeInfo) IsDir() bool       { return m.mode.IsDir() }

// need skips a case whose system file this machine lacks.
func need(t *testing.T, path string) bool {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Logf("left out %s: %v", path, err)
		return false
	}
	return true
}

// TestSystemReads: a read-only call reads the system's own files outside
// the roots without asking (issue 34), and what only some users may read,
// the home directory and protected paths are still asked, each with the
// fence's reason.
func TestSystemReads(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default")
	for _, c := range []struct {
		path  string
		allow bool
		why   string
	}{
		{"/etc/hostname", true, "a file in /etc every user may read"},
		{"/usr/bin/env", true, "a program"},
		{"/usr/lib", true, "a directory of /usr, listed"},
		{"/usr", true, "/usr itself"},
		{"/proc/cpuinfo", true, "a fixed /proc file"},
		{"/proc/meminfo", true, "a fixed /proc file"},
		{"/var/lib/dpkg/status", true, "a file in /var/lib"},
		{"/etc/os-release", true, "a link in /etc to /usr/lib"},
		{"/etc/shadow", false, "not world-readable, and a known secret"},
		{"/etc/gshadow", false, "a known secret"},
		{"/etc", false, "/etc itself holds the secrets, and a recursive read reaches them"},
		{"/etc/ssl", false, "a directory that holds the private keys"},
		{"/etc/ssl/certs", false, "a directory of /etc: a recursive read of /etc may reach keys"},
		{"/var/lib", false, "nor /var/lib"},
		{"/etc/ssl/private/ssl-cert-snakeoil.key", false, "under a directory not every user may search"},
		{"/etc/nothing-here", false, "a missing file"},
		{"/proc/mounts", false, "a link into /proc/self"},
		{"/proc/self/status", false, "a process's own view"},
		{"/proc/1/cmdline", false, "another process"},
		{"/proc/cmdline", false, "not a listed /proc file"},
		{"/dev/null", false, "not a system directory"},
		{"/tmp", false, "not a system directory"},
		{"~/.bashrc", false, "the home directory"},
	} {
		if !need(t, strings.Replace(c.path, "~", e.home, 1)) && c.allow {
			continue
		}
		d := decide(p, readReq(c.path))
		switch {
		case c.allow && (d.Behavior != Allow || d.Step != StepMode):
			t.Errorf("%s (%s): %v at %v (%s), want allowed at the mode", c.path, c.why, d.Behavior, d.Step, d.Reason)
		case !c.allow && (d.Behavior != Ask || d.Step != StepSafety):
			t.Errorf("%s (%s): %v at %v (%s), want asked at the safety checks", c.path, c.why, d.Behavior, d.Step, d.Reason)
		}
	}
	// Only a read-only call: one that may run code is asked, as is a write.
	if d := decide(p, Request{Tool: "X", Subjects: []Subject{{Kind: PathSubject, Value: "/etc/hostname", Access: Read}}}); d.Step != StepSafety || !strings.HasPrefix(d.Check, "outside the workspace: /etc/hostname") {
		t.Errorf("a call that is not read-only: %v at %v (%s)", d.Behavior, d.Step, d.Check)
	}
	w := Request{Tool: "X", ReadOnly: true, Subjects: []Subject{{Kind: PathSubject, Value: "/etc/hostname", Access: Write}}}
	if d := decide(p, w); d.Step != StepSafety || !strings.HasPrefix(d.Check, "outside the workspace: /etc/hostname") {
		t.Errorf("a write: %v at %v (%s)", d.Behavior, d.Step, d.Check)
	}
	// Deny and ask rules come first.
	if d := decide(e.policy(t, "default", "deny:Read(//etc/hostname)"), readReq("/etc/hostname")); d.Behavior != Deny || d.Step != StepDenyRule {
		t.Errorf("a deny rule: %v at %v", d.Behavior, d.Step)
	}
	if d := decide(e.policy(t, "default", "ask:Read(//usr/**)"), readReq("/usr/bin/env")); d.Behavior != Ask || d.Step != StepAskRule {
		t.Errorf("an ask rule: %v at %v", d.Behavior, d.Step)
	}
	// A path in the home directory or protected is asked wherever it is.
	c := e.cfg("default")
	c.Home = "/usr/lib"
	if d := decide(mustPolicy(t, c), readReq("/usr/lib/os-release")); d.Step != StepSafety {
		t.Errorf("a home under /usr: %v at %v", d.Behavior, d.Step)
	}
	c = e.cfg("default")
	c.Protect = []string{"/usr/share"}
	if d := decide(mustPolicy(t, c), readReq("/usr/share/dict")); d.Step != StepSafety {
		t.Errorf("a protected path under /usr: %v at %v", d.Behavior, d.Step)
	}
	// A link into the home directory is judged where it leads.
	symlink(t, e.home+"/.bashrc", e.out+"/rc")
	write(t, e.home+"/.bashrc")
	if d := decide(p, readReq(e.out+"/rc")); d.Step != StepSafety || !strings.Contains(d.Check, e.home+"/.bashrc") {
		t.Errorf("a link to ~/.bashrc: %v at %v (%s)", d.Behavior, d.Step, d.Check)
	}
}

// TestSystemReadModes: the mode of the file and of every directory above
// it decides, not the process's access; an error reading one asks.
func TestSystemReadModes(t *testing.T) {
	if !need(t, "/etc/hostname") || !need(t, "/usr/lib") {
		return
	}
	e := newEnv(t)
	for _, c := range []struct {
		name  string
		fs    modeFS
		path  string
		allow bool
	}{
		{"as it is", modeFS{}, "/etc/hostname", true},
		{"not world-readable", modeFS{modes: map[string]fs.FileMode{"/etc/hostname": 0o640}}, "/etc/hostname", false},
		{"world-writable only", modeFS{modes: map[string]fs.FileMode{"/etc/hostname": 0o602}}, "/etc/hostname", false},
		{"world-readable only", modeFS{modes: map[string]fs.FileMode{"/etc/hostname": 0o004}}, "/etc/hostname", true},
		{"a directory above not searchable", modeFS{modes: map[string]fs.FileMode{"/etc": fs.ModeDir | 0o754}}, "/etc/hostname", false},
		{"the root not searchable", modeFS{modes: map[string]fs.FileMode{"/": fs.ModeDir | 0o754}}, "/etc/hostname", false},
		{"a directory above searchable only", modeFS{modes: map[string]fs.FileMode{"/etc": fs.ModeDir | 0o711}}, "/etc/hostname", true},
		{"a directory above is a file", modeFS{modes: map[string]fs.FileMode{"/etc": 0o755}}, "/etc/hostname", false},
		{"a device", modeFS{modes: map[string]fs.FileMode{"/etc/hostname": fs.ModeDevice | 0o644}}, "/etc/hostname", false},
		{"a symlink left", modeFS{modes: map[string]fs.FileMode{"/etc/hostname": fs.ModeSymlink | 0o777}}, "/etc/hostname", false},
		{"an error on the file", modeFS{fail: map[string]bool{"/etc/hostname": true}}, "/etc/hostname", false},
		{"an error above", modeFS{fail: map[string]bool{"/etc": true}}, "/etc/hostname", false},
		{"a directory not world-readable", modeFS{modes: map[string]fs.FileMode{"/usr/lib": fs.ModeDir | 0o751}}, "/usr/lib", false},
		{"a directory not searchable", modeFS{modes: map[string]fs.FileMode{"/usr/lib": fs.ModeDir | 0o754}}, "/usr/lib", false},
		{"a directory readable and searchable only", modeFS{modes: map[string]fs.FileMode{"/usr/lib": fs.ModeDir | 0o705}}, "/usr/lib", true},
	} {
		p, err := newPolicy(e.cfg("default"), c.fs)
		if err != nil {
			t.Fatal(err)
		}
		d := decide(p, readReq(c.path))
		if got := d.Behavior == Allow; got != c.allow {
			t.Errorf("%s: %v at %v (%s), want allowed %v", c.name, d.Behavior, d.Step, d.Check, c.allow)
		}
	}
}

func TestIsSystemSecret(t *testing.T) {
	for path, want := range map[string]bool{
		"/etc/shadow": true, "/etc/shadow-": true, "/etc/gshadow": true, "/etc/sudoers": true, "/etc/sudoers.d/x": true,
		"/etc/ssl/private": true, "/etc/ssl/private/k.key": true, "/etc/ssh/ssh_host_ed25519_key": true,
		"/etc/ssl": true, "/etc": true, "/": true, "/etc/ssh": true,
		"/etc/ssl/certs": false, "/etc/hostname": false, "/etc/ssh/ssh_config": false, "/usr": false, "/etc/passwd": false,
	} {
		if got := isSystemSecret(path); got != want {
			t.Errorf("isSystemSecret(%s) = %v, want %v", path, got, want)
		}
	}
}
