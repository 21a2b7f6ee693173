package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/riot-tools/riot/internal/paths"
)

func TestResolvePath(t *testing.T) {
	e := newEnv(t)
	ws, out := e.ws, e.out
	write(t, ws+"/src/a.go")
	write(t, out+"/secret")
	write(t, ws+"/file")
	symlink(t, out, ws+"/out")                // a link inside pointing out
	symlink(t, "src", ws+"/rel")              // relative
	symlink(t, "../outside/secret", ws+"/up") // relative, pointing out
	symlink(t, ws+"/nowhere", ws+"/broken")   // broken
	symlink(t, "loop2", ws+"/loop1")          // a loop
	symlink(t, "loop1", ws+"/loop2")
	symlink(t, ws+"/rel", ws+"/chain") // a link to a link
	symlink(t, "/", ws+"/root")

	for _, c := range []struct{ in, want, err string }{
		{ws + "/src/a.go", ws + "/src/a.go", ""},
		{ws + "/src/../src/./a.go", ws + "/src/a.go", ""},
		{ws + "//src///a.go", ws + "/src/a.go", ""},
		{ws + "/out/secret", out + "/secret", ""},
		{ws + "/out", out, ""},
		{ws + "/rel/a.go", ws + "/src/a.go", ""},
		{ws + "/chain/a.go", ws + "/src/a.go", ""},
		{ws + "/up", out + "/secret", ""},
		{ws + "/root/etc", "/etc", ""},
		// .. after a link is the parent of its target, as the kernel has it.
		{ws + "/out/../ws/src", ws + "/src", ""},
		{ws + "/rel/..", ws, ""},
		// A tail that does not exist yet is appended as written.
		{ws + "/new/dir/f.txt", ws + "/new/dir/f.txt", ""},
		{ws + "/out/new.txt", out + "/new.txt", ""},
		{ws + "/new/../../outside/x", out + "/x", ""},
		{ws + "/new/../out/x", out + "/x", ""},
		{"/..", "/", ""},
		{ws + "/broken", "", "is broken"},
		{ws + "/broken/x", "", "is broken"},
		{ws + "/loop1", "", "too many levels of symbolic links"},
		{ws + "/file/x", "", "not a directory"},
	} {
		got, err := resolvePath(osFS{}, c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("resolve(%s) = %q, %v; want an error with %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("resolve(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// fakeFS fails Lstat or Readlink on one path; root cannot provoke a real
// permission error.
type fakeFS struct {
	path       string
	lstatErr   error
	readErr    error
	lstatCalls int
}

func (f *fakeFS) Lstat(name string) (fs.FileInfo, error) {
	f.lstatCalls++
	if name == f.path && f.lstatErr != nil {
		return nil, f.lstatErr
	}
	return os.Lstat(name)
}

func (f *fakeFS) Readlink(name string) (string, error) {
	if name == f.path && f.readErr != nil {
		return "", f.readErr
	}
	return os.Readlink(name)
}

func TestResolvePathErrors(t *testing.T) {
	e := newEnv(t)
	symlink(t, "src", e.ws+"/link")
	perm := &fs.PathError{Op: "lstat", Path: e.ws + "/src", Err: syscall.EACCES}
	f := &fakeFS{path: e.ws + "/src", lstatErr: perm}
	if _, err := resolvePath(f, e.ws+"/src/a.go"); !errors.Is(err, syscall.EACCES) {
		t.Errorf("a permission error gives %v", err)
	}
	f = &fakeFS{path: e.ws + "/link", readErr: syscall.EIO}
	if _, err := resolvePath(f, e.ws+"/link/a"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a readlink error gives %v", err)
	}
	// The link limit counts every link of one resolution.
	prev := e.ws + "/src"
	for i := range paths.MaxLinks + 1 {
		l := filepath.Join(e.ws, "l", strings.Repeat("x", i%3)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		symlink(t, prev, l)
		prev = l
	}
	if _, err := resolvePath(osFS{}, prev); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("%d chained links resolve: %v", paths.MaxLinks+1, err)
	}
	target, err := os.Readlink(prev)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := resolvePath(osFS{}, target); err != nil || got != e.ws+"/src" {
		t.Errorf("%d chained links do not resolve: %q %v", paths.MaxLinks, got, err)
	}
}

func TestResolveSubject(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default")
	for in, want := range map[string]string{
		"src/a.go":        e.ws + "/src/a.go",
		"./src/../x":      e.ws + "/x",
		"~":               e.home,
		"~/.bashrc":       e.home + "/.bashrc",
		"~user/x":         e.ws + "/~user/x",
		e.out + "/a":      e.out + "/a",
		e.out + "/../out": e.base + "/out",
	} {
		r, err := p.resolveSubject(in)
		if err != nil || r.lexical != want || r.physical != want {
			t.Errorf("resolveSubject(%q) = %+v, %v; want %q", in, r, err, want)
		}
	}
	if _, err := p.resolveSubject(""); err == nil || err.Error() != "the path is empty" {
		t.Errorf("an empty path resolves: %v", err)
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		p, root string
		want    bool
	}{
		{"/ws", "/ws", true},
		{"/ws/a", "/ws", true},
		{"/wsx", "/ws", false},
		{"/w", "/ws", false},
		{"/anything", "/", true},
		{"/", "/", true},
	} {
		if got := within(c.p, c.root); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.p, c.root, got)
		}
	}
}

func TestProtectedBy(t *testing.T) {
	e := newEnv(t)
	c := e.cfg("default")
	c.Protect = []string{e.base + "/xdg/riot"}
	p := mustPolicy(t, c)
	for path, want := range map[string]string{
		e.ws + "/.git":                   e.ws + "/.git",
		e.ws + "/.git/config":            e.ws + "/.git",
		e.ws + "/sub/.git/hooks/x":       e.ws + "/sub/.git",
		e.ws + "/.riot/config.toml":      e.ws + "/.riot",
		e.home + "/.ssh/id_ed25519":      e.home + "/.ssh",
		e.ws + "/.gnupg/x":               e.ws + "/.gnupg",
		e.ws + "/.vscode/tasks.json":     e.ws + "/.vscode",
		e.ws + "/.idea/workspace.xml":    e.ws + "/.idea",
		e.ws + "/.claude/settings.json":  e.ws + "/.claude",
		e.ws + "/.env":                   e.ws + "/.env",
		e.ws + "/app/.env":               e.ws + "/app/.env",
		e.ws + "/.env.local":             e.ws + "/.env.local",
		e.ws + "/.env.production":        e.ws + "/.env.production",
		e.ws + "/.envrc":                 e.ws + "/.envrc",
		e.ws + "/.gitconfig":             e.ws + "/.gitconfig",
		e.ws + "/.gitmodules":            e.ws + "/.gitmodules",
		e.ws + "/.npmrc":                 e.ws + "/.npmrc",
		e.home + "/.netrc":               e.home + "/.netrc",
		e.home + "/.bashrc":              e.home + "/.bashrc",
		e.home + "/.bash_profile":        e.home + "/.bash_profile",
		e.home + "/.zshrc":               e.home + "/.zshrc",
		e.home + "/.zshenv":              e.home + "/.zshenv",
		e.home + "/.profile":             e.home + "/.profile",
		e.home + "/.config/fish/conf.fi": e.home + "/.config/fish",
		e.home + "/.config/git/config":   e.home + "/.config/git",
		e.home + "/.config/riot/c.toml":  e.home + "/.config/riot",
		e.base + "/xdg/riot/config.toml": e.base + "/xdg/riot",
		// Any case: on a case-insensitive filesystem these are the same files.
		e.ws + "/.GIT/config":                   e.ws + "/.GIT",
		e.ws + "/sub/.Git/hooks/x":              e.ws + "/sub/.Git",
		e.ws + "/.Env":                          e.ws + "/.Env",
		e.ws + "/.ENV.Local":                    e.ws + "/.ENV.Local",
		e.ws + "/.RIOT/config.local.toml":       e.ws + "/.RIOT",
		e.ws + "/.SSH/authorized_keys":          e.ws + "/.SSH",
		e.ws + "/.NpmRC":                        e.ws + "/.NpmRC",
		e.home + "/.BashRC":                     e.home + "/.bashrc",
		e.home + "/.Config/Riot/c.toml":         e.home + "/.config/riot",
		strings.ToUpper(e.base) + "/XDG/riot/x": e.base + "/xdg/riot",
		// Not protected:
		e.ws + "/.ENV.Example":       "",
		e.ws + "/.gitignore":         "",
		e.ws + "/.github/x.yml":      "",
		e.ws + "/.env.example":       "",
		e.ws + "/.env.sample":        "",
		e.ws + "/.env.template":      "",
		e.ws + "/.env.dist":          "",
		e.ws + "/.environment":       "",
		e.ws + "/.env/x":             "", // a directory named .env holds no secrets of its own
		e.ws + "/src/.bashrc":        "", // shell files only in the home
		e.ws + "/.profile":           "",
		e.home + "/.config/other":    "",
		e.home + "/x/.bashrc":        "",
		e.ws + "/git/config":         "",
		e.ws + "/src/main.go":        "",
		"/":                          "",
		e.ws + "/.gitx/y":            "",
		e.base + "/xdg/riotx/c.toml": "",
	} {
		if got := p.protectedBy(path); got != want {
			t.Errorf("protectedBy(%s) = %q, want %q", path, got, want)
		}
	}
	if got := p.protectedBy("."); got != "" {
		t.Errorf("protectedBy(.) = %q", got)
	}
}

func TestCommandMentionsProtected(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default")
	for cmd, want := range map[string]string{
		"echo x >> ~/.bashrc":                 e.home + "/.bashrc",
		"echo x >>~/.zshrc":                   e.home + "/.zshrc",
		`echo x > "$HOME/x" ~/.profile`:       e.home + "/.profile",
		"rm -rf .git":                         e.ws + "/.git",
		"cp key .ssh/authorized_keys":         e.ws + "/.ssh",
		"echo KEY=1 >> .env":                  e.ws + "/.env",
		"docker run --env-file=.env img":      e.ws + "/.env",
		"sed -i s/a/b/ '.riot/config.toml'":   e.ws + "/.riot",
		`tee ".env.local"`:                    e.ws + "/.env.local",
		"cat x 2>.git/y":                      e.ws + "/.git",
		"cmd =.env":                           e.ws + "/.env",
		"cp x .GIT/hooks/pre-commit":          e.ws + "/.GIT",
		"echo x >> ~/.ZshRC":                  e.home + "/.zshrc",
		"tee .Env":                            e.ws + "/.Env",
		"git add .gitignore":                  "",
		"git commit -m 'update .env.example'": "",
		"git push origin main":                "",
		"curl https://example.com/.git/x":     "",
		"make":                                "",
		"":                                    "",
		"echo ''":                             "",
	} {
		if got := p.commandMentionsProtected(cmd); got != want {
			t.Errorf("commandMentionsProtected(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestRootsAreNotCleanedBeforeResolution: a root, the home or a protected
// directory written with `..` after a symlink is the directory the kernel
// reaches, not the one cleaning the text gives.
func TestRootsAreNotCleanedBeforeResolution(t *testing.T) {
	e := newEnv(t)
	symlink(t, e.out+"/sub", e.ws+"/lnk")
	if err := os.MkdirAll(e.out+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	c := e.cfg("default")
	c.Roots = append(c.Roots, e.ws+"/lnk/..") // the outside directory
	c.Protect = []string{e.ws + "/lnk/../guarded"}
	p := mustPolicy(t, c)
	if d := decide(p, readReq(e.out+"/x")); d.Step == StepSafety {
		t.Errorf("the root lnk/.. does not cover %s/x: %s", e.out, d.Check)
	}
	if d := decide(p, editReq(e.out+"/guarded/x")); d.Check != "protected path: "+e.out+"/guarded/x" {
		t.Errorf("the protected lnk/../guarded does not cover %s/guarded: %q", e.out, d.Check)
	}
	if d := decide(p, editReq(e.ws+"/guarded")); d.Step == StepSafety {
		t.Errorf("cleaning lnk/../guarded as text protected %s/guarded: %q", e.ws, d.Check)
	}
}

// TestDecisionReads: a decision carries the call's read paths as it
// resolved them, for the tool to check what it opens against; writes,
// commands and paths that could not be resolved are not among them.
func TestDecisionReads(t *testing.T) {
	e := newEnv(t)
	write(t, e.out+"/secret")
	symlink(t, e.out+"/secret", e.ws+"/link")
	p := e.policy(t, "bypassPermissions")
	req := Request{Tool: "X", Subjects: []Subject{
		{Kind: PathSubject, Value: e.ws + "/link", Access: Read},
		{Kind: PathSubject, Value: "src/a.go", Access: Read},
		{Kind: PathSubject, Value: e.ws + "/w", Access: Write},
		{Kind: PathSubject, Value: "", Access: Read},
		{Kind: CommandSubject, Value: "cat x"},
	}}
	d := decide(p, req)
	if want := []string{e.out + "/secret", e.ws + "/src/a.go"}; strings.Join(d.Reads, " ") != strings.Join(want, " ") {
		t.Errorf("Reads = %q, want %q", d.Reads, want)
	}
	if d := decide(p, editReq(e.ws+"/x")); len(d.Reads) != 0 {
		t.Errorf("an edit's Reads = %q", d.Reads)
	}
}
