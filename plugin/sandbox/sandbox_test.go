package sandbox

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/bwrap"
)

// absPaths are the absolute paths of paths, cleaned, as the host sends a
// profile's paths (shared's conversion drops any other).
func absPaths(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// index is where the mount of path with flag starts in args, or -1.
func index(args []string, flag, path string) int {
	for i := 0; i+2 < len(args); i++ {
		if args[i] == flag && args[i+2] == path {
			return i
		}
	}
	return -1
}

func TestArgsFollowTheProfile(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{ws + "/.git/hooks", ws + "/private", dir + "/cache", dir + "/conf"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(ws+"/.env", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &Profile{
		Writable: true, Network: true,
		WritePaths:     []string{ws, dir + "/cache"},
		ReadPaths:      []string{dir + "/conf"},
		ProtectedPaths: []string{ws + "/.git/hooks", "/elsewhere/.git/hooks"},
		MaskedPaths:    []string{ws + "/.env", ws + "/private", "/not/shown/secret"},
	}
	args := Args(p, ws)
	for _, want := range []string{"--unshare-user", "--unshare-pid", "--die-with-parent"} {
		if !slices.Contains(args, want) {
			t.Errorf("missing %s: %v", want, args)
		}
	}
	if slices.Contains(args, "--unshare-net") {
		t.Error("a write profile with the network unshared it")
	}
	rw, prot := index(args, "--bind-try", ws), index(args, "--ro-bind-try", ws+"/.git/hooks")
	if rw < 0 || prot < rw {
		t.Errorf("the protected path must be re-bound read-only after the root: rw %d prot %d", rw, prot)
	}
	if index(args, "--ro-bind-try", "/elsewhere/.git/hooks") >= 0 {
		t.Error("a protected path outside the writable paths was bound")
	}
	if m := index(args, "--ro-bind", ws+"/.env"); m < rw || args[m+1] != "/dev/null" {
		t.Errorf("a masked file must be /dev/null after its root: %v", args)
	}
	if m := index(args, "--tmpfs", ws+"/private"); m >= 0 {
		t.Errorf("--tmpfs takes one argument: %v", args)
	}
	if m := slices.Index(args, ws+"/private"); m < rw || args[m-1] != "--tmpfs" {
		t.Errorf("a masked directory must be an empty tmpfs after its root: %v", args)
	}
	if slices.Contains(args, "/not/shown/secret") {
		t.Error("a masked path that is not shown needs no mount")
	}
	if args[len(args)-1] != "--" || !slices.Contains(args, "--chdir") {
		t.Errorf("args must end with --chdir and --: %v", args)
	}
	if !strings.Contains(strings.Join(args, " "), "--remount-ro / --chdir") {
		t.Error("the sandbox's own root must be read-only, after every mount")
	}

	p.Writable = false
	args = Args(p, ws)
	if index(args, "--bind-try", ws) >= 0 || index(args, "--ro-bind-try", ws) < 0 {
		t.Errorf("a read-only profile must bind the roots read-only: %v", args)
	}
	if !slices.Contains(args, "--unshare-net") {
		t.Error("a read-only profile has no network")
	}
}

func TestBindsPruneWhatChangesNothing(t *testing.T) {
	p := &Profile{
		Writable:       true,
		ReadPaths:      []string{"/h/go", "/h/go/src", "/w/docs"},
		WritePaths:     []string{"/w", "/h/go/pkg/mod"},
		ProtectedPaths: []string{"/w/.git/hooks"},
		MaskedPaths:    []string{"/h/go/secret"},
	}
	// A path the profile lists below a mask is shown (the host sends one
	// only where it means it); one only protected there stays hidden.
	p.ReadPaths = append(p.ReadPaths, "/h/go/secret/inner")
	p.WritePaths = append(p.WritePaths, "/h/go/secret/w")
	p.ProtectedPaths = append(p.ProtectedPaths, "/h/go/secret/p")
	var got []string
	for _, b := range binds(p) {
		got = append(got, b.path)
	}
	for _, must := range []string{"/h/go", "/w", "/h/go/pkg/mod", "/h/go/secret", "/w/.git/hooks", "/w/docs", "/h/go/secret/inner", "/h/go/secret/w"} {
		if !slices.Contains(got, must) {
			t.Errorf("%s was pruned: %v", must, got)
		}
	}
	for _, never := range []string{"/h/go/src", "/h/go/secret/p"} {
		if slices.Contains(got, never) {
			t.Errorf("%s should be pruned (same as its parent, or under a mask): %v", never, got)
		}
	}
	p.Writable = false
	got = got[:0]
	for _, b := range binds(p) {
		got = append(got, b.path)
	}
	if slices.Contains(got, "/w/.git/hooks") || slices.Contains(got, "/h/go/pkg/mod") || slices.Contains(got, "/w/docs") {
		t.Errorf("read-only, nothing below a read-only mount needs one: %v", got)
	}
}

func TestAllowedCallWrites(t *testing.T) {
	p := &Profile{Network: true, WritePaths: []string{"/w"}}
	if p.NetworkOn() {
		t.Fatalf("a read-only profile has no network: %+v", p)
	}
	q := p.AllowedCall()
	if !q.Writable || !q.NetworkOn() || q.Reason == "" || p.Writable {
		t.Fatalf("AllowedCall must write, with the configured network, and leave p alone: %+v %+v", p, q)
	}
	if (*Profile)(nil).AllowedCall() != nil {
		t.Fatal("no profile stays none")
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tail Tail
	_, _ = tail.Write([]byte("Read-only file system\n"))
	if !tail.Signs().ReadOnlyFS {
		t.Fatal("missed EROFS")
	}
	_, _ = tail.Write(bytes.Repeat([]byte("x"), tailSize))
	if tail.Signs().ReadOnlyFS || len(tail.buf) != tailSize {
		t.Fatalf("the tail must keep only the last %d bytes, has %d", tailSize, len(tail.buf))
	}
	for _, chunk := range []string{"cat: /home/u/.ssh/id_rsa: No such ", "file or directory\n", "curl: (6) Could not resolve host: x\n"} {
		_, _ = tail.Write([]byte(chunk))
	}
	s := tail.Signs()
	if !s.Network || !slices.Contains(s.Missing, "/home/u/.ssh/id_rsa") {
		t.Fatalf("signs %+v", s)
	}
}

func TestNoteSaysWhatToAdd(t *testing.T) {
	ro := &Profile{WritePaths: []string{"/ws"}, Reason: "a call allowed as read-only"}
	w := &Profile{Writable: true, WritePaths: []string{"/ws"}, Reason: "a call allowed by the rule Bash(make:*)"}
	for _, tc := range []struct {
		p       *Profile
		command string
		s       Signs
		want    []string
	}{
		{ro, "touch x", Signs{ReadOnlyFS: true}, []string{"a call allowed as read-only", "allow rule"}},
		{w, "make", Signs{ReadOnlyFS: true}, []string{"Bash(make:*)", "[sandbox] allow_write"}},
		{w, "make", Signs{Network: true}, []string{"[sandbox.network] mode = \"none\"", "mode = \"proxy\""}},
		{&Profile{Writable: true, Network: true, Egress: &Egress{Socket: "/s"}}, "go mod download", Signs{Network: true},
			[]string{"only through riot's proxy", "allowed_domains under [sandbox.network]"}},
		{ro, "curl x", Signs{Network: true}, []string{"gives a read-only call no network"}},
		{w, "cat x", Signs{Missing: []string{"/home/u/notes", "/ws/gone"}}, []string{"/home/u/notes is not in the sandbox", "allow_read"}},
		{w, "git push origin main", Signs{}, []string{"~/.ssh", "allow_read"}},
	} {
		note := Note(tc.p, tc.command, tc.s)
		for _, want := range tc.want {
			if !strings.Contains(note, want) {
				t.Errorf("%s %+v: note lacks %q: %s", tc.command, tc.s, want, note)
			}
		}
		if strings.Contains(note, "/ws/gone") {
			t.Errorf("a missing path the sandbox shows is not its doing: %s", note)
		}
	}
	// A path of the session's /tmp is shown: missing there is missing. One
	// the host's /tmp has keeps its host meaning, which the sandbox hides.
	host := t.TempDir() // in the host's /tmp, under a name it has
	session := *w
	session.TempDir = "/state/riot-tmp-1-s"
	fresh := fmt.Sprintf("/tmp/riot-note-%x", rand.Uint64())
	note := Note(&session, "cat x", Signs{Missing: []string{fresh + "/log", host + "/log"}})
	if strings.Contains(note, fresh) || !strings.Contains(note, host+"/log is not in the sandbox") {
		t.Errorf("the session's /tmp in the note: %s", note)
	}
	online := *w
	online.Network = true
	if note := Note(&online, "make", Signs{Network: true, Missing: []string{"/ws/x"}}); note != "" {
		t.Errorf("with the network on and the path shown, nothing points at the sandbox: %s", note)
	}
}

// A real bwrap run of the arguments: what the profile hides is not there,
// what it shows read-only refuses writes.
func TestArgsUnderBwrap(t *testing.T) {
	bwrap, err := bwrap.Find()
	if err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{ws + "/.env": "SECRET", dir + "/outside": "OUT", ws + "/.git/hooks/h": "hook"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := &Profile{Writable: true, WritePaths: []string{ws}, ProtectedPaths: []string{ws + "/.git/hooks"}, MaskedPaths: []string{ws + "/.env"}}
	cmd := exec.Command("/bin/sh", "-c", "cat .env; cat "+dir+"/outside; echo x > .git/hooks/h; echo ok > made; cat made")
	cmd.Dir = ws
	Wrap(p, bwrap, cmd)
	out, _ := cmd.CombinedOutput()
	got := string(out)
	if strings.Contains(got, "SECRET") || strings.Contains(got, "OUT\n") || strings.HasPrefix(got, "OUT") {
		t.Errorf("the sandbox showed a hidden file: %s", got)
	}
	if !strings.Contains(got, "Read-only file system") || !strings.HasSuffix(got, "ok\n") {
		t.Errorf("want the hook refused and the root writable: %s", got)
	}
	if b, _ := os.ReadFile(ws + "/.git/hooks/h"); string(b) != "hook" {
		t.Errorf("the protected hook was written: %q", b)
	}
}

// Whatever the paths, the command line keeps the profile's promises: a
// read-only profile binds nothing writable and has no network, every
// masked or protected path is mounted after the writable path holding it,
// and the command comes after the last option.
func FuzzArgs(f *testing.F) {
	f.Add("/w", "/w/.git/hooks", "/w/.env", "/r", true, false)
	f.Add("/", "/a", "/a/b", "/a", false, true)
	f.Fuzz(func(t *testing.T, write, protected, masked, read string, writeMode, network bool) {
		p := &Profile{Writable: writeMode, WritePaths: absPaths(write), ProtectedPaths: absPaths(protected), MaskedPaths: absPaths(masked), ReadPaths: absPaths(read), Network: network}
		args := Args(p, "/w")
		if args[len(args)-1] != "--" {
			t.Fatalf("args do not end with --: %v", args)
		}
		if !p.Writable && (slices.Contains(args, "--bind-try") || !slices.Contains(args, "--unshare-net")) {
			t.Fatalf("a read-only profile binds writable or has network: %v", args)
		}
		if !p.NetworkOn() && !slices.Contains(args, "--unshare-net") {
			t.Fatalf("no network, yet the net namespace is shared: %v", args)
		}
		if !slices.Contains(args, "--new-session") {
			t.Fatalf("a profile leaves the command the user's terminal: %v", args)
		}
		// A hidden directory's remount comes after every mount below it,
		// which bwrap would make its mount point in.
		at := func(flag, path string) int {
			for i := 0; i+1 < len(args); i++ {
				if args[i] == flag && args[i+1] == path {
					return i
				}
			}
			return -1
		}
		if m := filepath.Clean(masked); at("--tmpfs", m) >= 0 {
			ro := at("--remount-ro", m)
			if ro < 0 {
				t.Fatalf("the hidden directory %s is never made read-only: %v", m, args)
			}
			for i := ro + 2; i < len(args); i++ {
				if args[i-1] != "--remount-ro" && args[i-1] != "--chdir" && filepath.IsAbs(args[i]) && args[i] != m && within(args[i], m) {
					t.Fatalf("%s is mounted after %s was made read-only: %v", args[i], m, args)
				}
			}
		}
		rw := index(args, "--bind-try", filepath.Clean(write))
		for _, later := range []string{filepath.Clean(protected), filepath.Clean(masked)} {
			if rw < 0 || later == filepath.Clean(write) || !within(later, filepath.Clean(write)) {
				continue
			}
			for i := range args {
				if args[i] == later && i < rw {
					t.Fatalf("%s is mounted before %s, which would cover it: %v", later, write, args)
				}
			}
		}
	})
}

func TestTailBoundedBySmallWrites(t *testing.T) {
	var tail Tail
	chunk := bytes.Repeat([]byte("y"), 1000)
	for range 40 {
		_, _ = tail.Write(chunk)
	}
	_, _ = tail.Write([]byte("END"))
	if len(tail.buf) != tailSize || !bytes.HasSuffix(tail.buf, []byte("yEND")) {
		t.Fatalf("the tail holds %d bytes ending %q", len(tail.buf), tail.buf[len(tail.buf)-4:])
	}
	var many Tail
	_, _ = many.Write([]byte(strings.Repeat("cat: /a/b: No such file or directory\n", 20)))
	if got := len(many.Signs().Missing); got != 8 {
		t.Fatalf("missing paths are capped at 8, got %d", got)
	}
}

func TestBindOrder(t *testing.T) {
	p := &Profile{
		Writable:    true,
		ReadPaths:   []string{"/b/x", "/a"},
		WritePaths:  []string{"/c", "/b"},
		MaskedPaths: []string{"/c/m", "/a/z/deep"},
	}
	var got []string
	for _, b := range binds(p) {
		got = append(got, b.path+":"+strconv.Itoa(int(b.kind)))
	}

	// Depth first, then path; /a/z/deep is deeper than /b/x but sorted by
	// depth: 3 slashes after 2.
	want := []string{"/a:1", "/b:0", "/c:0", "/b/x:1", "/c/m:3", "/a/z/deep:3"}
	if !slices.Equal(got, want) {
		t.Fatalf("binds %v, want %v", got, want)
	}
	same := &Profile{Writable: true, WritePaths: []string{"/w"}, ReadPaths: []string{"/w"}}
	got = got[:0]
	for _, b := range binds(same) {
		got = append(got, b.path+":"+strconv.Itoa(int(b.kind)))
	}
	if !slices.Equal(got, []string{"/w:1"}) {
		t.Fatalf("a path both read-only and writable is read-only (the narrower), once: %v", got)
	}
}

func TestSummaryAndReason(t *testing.T) {
	for _, tc := range []struct {
		p    Profile
		want string
	}{
		{Profile{Writable: true, WritePaths: []string{"/a", "/b"}, Network: true}, "writable only in /a, /b; network on"},
		{Profile{Writable: true}, "writable only in none; no network"},
		{Profile{Network: true}, "read-only, nothing writable; no network"},
		{Profile{Writable: true, WritePaths: []string{"/a"}, Network: true, Egress: &Egress{Socket: "/s"}}, "writable only in /a; network through riot's proxy"},
		{Profile{Network: true, Egress: &Egress{Socket: "/s"}}, "read-only, nothing writable; no network"},
	} {
		if got := tc.p.Summary(); got != tc.want {
			t.Errorf("Summary = %q, want %q", got, tc.want)
		}
	}
	note := Note(&Profile{Writable: true}, "make", Signs{ReadOnlyFS: true})
	if !strings.Contains(note, "the profile of the call's permission decision") {
		t.Errorf("a profile without a reason: %s", note)
	}
	for cmd, want := range map[string]bool{"git push": true, "git": false, "ssh host": true, "sshd": false, "echo aws": true, "git status": false} {
		if got := mentionsSecretCommand(cmd); got != want {
			t.Errorf("mentionsSecretCommand(%q) = %v", cmd, got)
		}
	}
}

func TestWrapKeepsTheCommand(t *testing.T) {
	cmd := exec.Command("/bin/echo", "a", "b")
	cmd.Dir = "/w"
	Wrap(&Profile{}, "/usr/bin/bwrap", cmd)
	n := len(cmd.Args)
	if cmd.Path != "/usr/bin/bwrap" || cmd.Args[0] != "/usr/bin/bwrap" || !slices.Equal(cmd.Args[n-4:], []string{"--", "/bin/echo", "a", "b"}) {
		t.Fatalf("wrapped: %s %v", cmd.Path, cmd.Args)
	}
	i := slices.Index(cmd.Args, "--chdir")
	if i < 0 || cmd.Args[i+1] != "/w" {
		t.Fatalf("no --chdir /w: %v", cmd.Args)
	}
	bare := &exec.Cmd{Path: "/bin/true"}
	Wrap(&Profile{}, "/usr/bin/bwrap", bare)
	if bare.Args[len(bare.Args)-1] != "/bin/true" || slices.Contains(bare.Args, "--chdir") {
		t.Fatalf("a command without Args or Dir: %v", bare.Args)
	}
}

func TestUnavailableErrorSaysWhy(t *testing.T) {
	if !strings.Contains((&UnavailableError{Why: "because"}).Error(), "(because)") {
		t.Fatal("the reason is not in the message")
	}
}

func TestReadOnlyResolvConfOnlyWithNetwork(t *testing.T) {
	target, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || covers(systemDirs, target) {
		t.Skip("/etc/resolv.conf is not a link out of the system directories here")
	}
	if args := Args(&Profile{Writable: true}, "/"); slices.Contains(args, target) {
		t.Error("no network, no resolver")
	}
	if args := Args(&Profile{Writable: true, Network: true}, "/"); !slices.Contains(args, target) {
		t.Error("the network needs the resolver's file")
	}
}

func TestSystemAndMaskArgs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	link := filepath.Join(dir, "l")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	if got := systemArg(filepath.Join(dir, "none")); got != nil {
		t.Errorf("a missing system directory: %v", got)
	}
	if got := systemArg(link); !slices.Equal(got, []string{"--symlink", "f", link}) {
		t.Errorf("a symlink is recreated: %v", got)
	}
	if got := systemArg(dir); !slices.Equal(got, []string{"--ro-bind", dir, dir}) {
		t.Errorf("a directory is bound read-only: %v", got)
	}
	if got, remount := maskArg(filepath.Join(dir, "none")); got != nil || remount {
		t.Errorf("a missing path needs no mask: %v", got)
	}
	if got, remount := maskArg(file); !slices.Equal(got, []string{"--ro-bind", "/dev/null", file}) || remount {
		t.Errorf("a file is masked by /dev/null: %v", got)
	}
	if got, remount := maskArg(dir); !slices.Equal(got, []string{"--tmpfs", dir}) || !remount {
		t.Errorf("a directory is masked by an empty tmpfs, made read-only after what it shows: %v", got)
	}
}

// Depth is counted in components, not characters: a short deep path is
// mounted after a long shallow one.
func TestBindsByComponents(t *testing.T) {
	p := &Profile{Writable: true, WritePaths: []string{"/a/b", "/verylongname"}}
	var got []string
	for _, b := range binds(p) {
		got = append(got, b.path)
	}
	if !slices.Equal(got, []string{"/verylongname", "/a/b"}) {
		t.Fatalf("order %v", got)
	}
}

// A start directory the profile does not show is shown read-only, so
// bwrap can start there; one under a mask is not.
func TestStartDirectoryIsShown(t *testing.T) {
	p := &Profile{Writable: true, WritePaths: []string{"/w"}, MaskedPaths: []string{"/w/secret"}}
	if args := Args(p, "/elsewhere"); index(args, "--ro-bind-try", "/elsewhere") < 0 {
		t.Errorf("the start directory is not shown: %v", args)
	}
	if args := Args(p, "/w/sub"); index(args, "--ro-bind-try", "/w/sub") >= 0 {
		t.Errorf("a start directory already shown needs no mount: %v", args)
	}
	if args := Args(p, "/w/secret/x"); index(args, "--ro-bind-try", "/w/secret/x") >= 0 {
		t.Errorf("a start directory under a mask must stay hidden: %v", args)
	}
}
