package main_test

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// spillOf runs a Bash call in session whose output riot spills, and
// returns the spill's path.
func (e *env) spillOf(session, marker string, extra ...string) string {
	e.t.Helper()
	args := append([]string{"call", "--session", session, "--json"}, extra...)
	args = append(args, "Bash", e.py("print('"+marker+"\\n' * 20000)"))
	r := e.riot("", args...)
	r.want(e.t, 0)
	var out struct {
		Spill struct {
			Path string `json:"path"`
		} `json:"spill"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Spill.Path == "" {
		e.t.Fatalf("no spill: %v\n%s", err, r.stdout)
	}
	return out.Spill.Path
}

// A sandboxed command sees nothing of riot's state or user config but its
// own session's spilled results, whatever roots hold them: it walks every
// file below them and finds no token, no other session's state or spill,
// no socket it can connect to, and reads its own spill back.
func TestSandboxHidesRiotStateFromCommands(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	state := filepath.Join(e.state, "riot")
	confDir := filepath.Join(e.home, ".config", "riot")
	// A token, another session's state and spill, a session host's socket
	// and a secret in the user config, as riot keeps them.
	other := e.spillOf("other", "OTHER-SESSION-SPILL")
	if err := os.WriteFile(filepath.Join(state, "mcp-token"), []byte("TOKEN-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(state, "hosts", "h1"), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(state, "hosts", "h1", "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	e.userConfig("[mcp_servers.x]\ncommand = \"x\"\nenv = { TOKEN = \"CONFIG-SECRET\" }\n\n[permissions]\nallow = [\"Bash(python3:*)\"]\n")
	mine := e.spillOf("mine", "MY-OWN-SPILL")
	// The paths are in the script, where the analysis does not see them:
	// the sandbox alone must hide what they hold.
	walk := `import os, socket, sys
tops = [` + pyQuote(state) + `, ` + pyQuote(confDir) + `, ` + pyQuote(e.home) + `, ` + pyQuote(mine) + `]
found = []
for top in tops:
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            found.append(p)
            try:
                found.append(open(p, errors="replace").read(200))
            except OSError as e:
                pass
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(p)
                found.append("SOCKET-CONNECTED " + p)
            except OSError:
                pass
print("\n".join(found))
print("OWN:", open(tops[-1]).readline().strip())
`
	// The state dir inside a root, and the whole test tree added: the
	// roots must not show what is hidden.
	top := filepath.Dir(e.home)
	r := e.riot("", "call", "--session", "mine", "--add-dir", top, "Bash", e.py(walk))
	r.want(t, 0, "OWN: MY-OWN-SPILL")
	for _, leak := range []string{"TOKEN-SECRET", "OTHER-SESSION-SPILL", "CONFIG-SECRET", "SOCKET-CONNECTED", filepath.Base(other), "other.json", "trusted.json", "mcp-token"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("a sandboxed command found %q:\n%s", leak, r.stdout)
		}
	}
	select {
	case <-accepted:
		t.Error("a sandboxed command connected to a session host's socket")
	default:
	}
	// The read-only profile (no --add-dir, a command the analysis reads
	// as read-only) hides the same.
	r = e.riot("", "call", "--session", "mine", "--mode", "bypassPermissions", "Bash", `{"command":"cat `+filepath.Join(state, "mcp-token")+` `+mine+` | head -c 12; ls `+filepath.Join(state, "results")+`"}`)
	if strings.Contains(r.stdout, "TOKEN-SECRET") || strings.Contains(r.stdout, "other") || !strings.Contains(r.stdout, "MY-OWN-SPILL") {
		t.Errorf("a read-only command: want only its own spill:\n%s\n%s", r.stdout, r.stderr)
	}
}

// With the home directory added as a root, an allowed command cannot make
// any of the protected paths that do not exist yet, in the home (rc files,
// ~/bin, autostart, systemd units, riot's plugin directory, git's config)
// or in a root (.riot/, .git/hooks), nor replace them by moving a
// directory above them; the rest of the home stays writable, and the
// user's tree holds nothing the attempt left.
func TestSandboxProtectsPathsThatDoNotExistYet(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	repo := filepath.Join(e.home, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(e.home, "proj"), filepath.Join(e.home, ".config", "app")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	targets := []string{
		".bashrc", ".profile", ".zshrc", ".gitconfig", "bin/bwrap", "bin/git", ".local/bin/git",
		".config/systemd/user/evil.service", ".config/autostart/evil.desktop", ".config/git/config",
		".local/share/riot/plugins/riot-tool-evil", ".config/riot/config.toml",
		"repo/.riot/config.local.toml", "repo/.git/hooks/pre-commit", "repo/.git/config",
	}
	script := "import os, shutil\nmade = []\n"
	for _, rel := range targets {
		script += "try:\n    p = " + pyQuote(filepath.Join(e.home, rel)) + "\n    os.makedirs(os.path.dirname(p), exist_ok=True)\n    open(p, 'w').write('evil')\n    made.append(p)\nexcept OSError as e:\n    print('REFUSED', " + pyQuote(rel) + ", e.strerror)\n"
	}
	for _, mv := range [][2]string{{".config", ".config2"}, {"repo/.git", "repo/git2"}, {".local", ".local2"}} {
		script += "try:\n    os.rename(" + pyQuote(filepath.Join(e.home, mv[0])) + ", " + pyQuote(filepath.Join(e.home, mv[1])) + ")\n    made.append('moved " + mv[0] + "')\nexcept OSError as e:\n    print('REFUSED', " + pyQuote(mv[0]) + ", e.strerror)\n"
	}
	script += "open(" + pyQuote(filepath.Join(e.home, "proj", "ok.txt")) + ", 'w').write('ok')\nprint('MADE', made)\n"
	r := e.riot("", "call", "--add-dir", e.home, "--add-dir", repo, "Bash", e.py(script))
	r.want(t, 0, "MADE []")
	// Each refused by the sandbox: a new name in a read-only directory, or
	// a mount point that cannot move.
	for _, rel := range targets {
		if !strings.Contains(r.stdout, "REFUSED "+rel+" Read-only file system") {
			t.Errorf("%s: want refused as a read-only file system:\n%s", rel, r.stdout)
		}
	}
	// Moving a directory above a protected path aside: a new name in the
	// home is refused (the home refuses new names, as .bashrc is missing);
	// .git in the repository is a mount point.
	for _, mv := range []string{"REFUSED .config Read-only file system", "REFUSED .local Read-only file system", "REFUSED repo/.git Device or resource busy"} {
		if !strings.Contains(r.stdout, mv) {
			t.Errorf("want %q:\n%s", mv, r.stdout)
		}
	}
	for _, rel := range targets {
		if _, err := os.Lstat(filepath.Join(e.home, rel)); err == nil {
			t.Errorf("%s was made", rel)
		}
	}
	for _, gone := range []string{".config2", "repo/git2", ".local2"} {
		if _, err := os.Lstat(filepath.Join(e.home, gone)); err == nil {
			t.Errorf("%s was moved aside", gone)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.home, "proj", "ok.txt")); err != nil || string(b) != "ok" {
		t.Errorf("the home's existing directories must stay writable: %q %v", b, err)
	}
	// riot made the protected directories it can make empty (.riot,
	// .git/hooks), and nothing else is left in the tree: no mount point.
	for _, dir := range []string{"repo/.riot", "repo/.git/hooks"} {
		entries, err := os.ReadDir(filepath.Join(e.home, dir))
		if err != nil || len(entries) != 0 {
			t.Errorf("%s: want an empty directory riot made: %v %v", dir, entries, err)
		}
	}
}

func pyQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// A bwrap planted on PATH (in ~/bin, which an allowed command could write
// before this fix) is never run: riot resolves bwrap from the system
// directories, and the command still runs sandboxed.
func TestSandboxIgnoresBwrapOnPath(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	fake := filepath.Join(e.home, "bin")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(e.home, "fake-bwrap-ran")
	if err := os.WriteFile(filepath.Join(fake, "bwrap"), []byte("#!/bin/sh\necho ran >> "+marker+"\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	path := "PATH=" + fake + ":" + os.Getenv("PATH")
	r := e.riotWith([]string{path}, "", "call", "Bash", e.py("open('"+filepath.Join(outside, "x")+"', 'w').write('x')"))
	r.want(t, 1, "The kernel sandbox may have blocked this command")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("riot ran the bwrap found on PATH")
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("the command ran unsandboxed")
	}
	e.riotWith([]string{path}, "", "config").want(t, 0, "# bwrap: works")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("riot config ran the bwrap found on PATH")
	}
}

// A sandboxed command gets no controlling terminal: run with riot's stdio
// on a pty that is its session's terminal, as in the user's shell, the
// command can neither open /dev/tty nor push input into it (TIOCSTI).
func TestSandboxCommandHasNoTerminal(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	input := e.py(`import fcntl, os, termios
try:
    fd = os.open("/dev/tty", os.O_RDWR)
    fcntl.ioctl(fd, termios.TIOCSTI, b"X")
    print("INJECTED")
except OSError as e:
    print("tty:", e.strerror)
for fd in (0, 1, 2):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"X")
        print("INJECTED", fd)
    except OSError as e:
        print("tiocsti:", e.strerror)`)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := e.command("", "call", "Bash", input)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx) // EIO once every end of the tty is closed
		read <- string(b)
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	_ = tty.Close()
	got := <-read
	if werr != nil || strings.Contains(got, "INJECTED") || !strings.Contains(got, "tty: No such device or address") {
		t.Fatalf("the command reached the terminal (%v):\n%s", werr, got)
	}
}
