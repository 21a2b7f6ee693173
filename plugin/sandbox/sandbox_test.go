package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

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
		Mode: Write, Network: true,
		WritePaths:     []string{ws, dir + "/cache"},
		ReadPaths:      []string{dir + "/conf"},
		ProtectedPaths: []string{ws + "/.git/hooks", "/elsewhere/.git/hooks"},
		MaskedPaths:    []string{ws + "/.env", ws + "/private", "/not/shown/secret"},
	}
	args := p.Args(ws)
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

	p.Mode = ReadOnly
	args = p.Args(ws)
	if index(args, "--bind-try", ws) >= 0 || index(args, "--ro-bind-try", ws) < 0 {
		t.Errorf("a read-only profile must bind the roots read-only: %v", args)
	}
	if !slices.Contains(args, "--unshare-net") {
		t.Error("a read-only profile has no network")
	}
}

func TestFromProtoFailsClosed(t *testing.T) {
	if FromProto(nil) != nil {
		t.Fatal("no profile is no sandbox")
	}
	p := FromProto(&toolv1.Sandbox{Mode: toolv1.SandboxMode(42), Network: true, WritePaths: []string{"/w", "relative"}})
	if p.Mode != ReadOnly || p.NetworkOn() {
		t.Fatalf("an unknown mode must read as read-only without network: %+v", p)
	}
	if !slices.Equal(p.WritePaths, []string{"/w"}) {
		t.Fatalf("a relative path must be dropped: %v", p.WritePaths)
	}
	q := FromProto(p.AllowedCall().Proto())
	if q.Mode != Write || !q.NetworkOn() || q.Reason == "" {
		t.Fatalf("AllowedCall must write, with the configured network: %+v", q)
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
	ro := &Profile{Mode: ReadOnly, WritePaths: []string{"/ws"}, Reason: "a call allowed as read-only"}
	w := &Profile{Mode: Write, WritePaths: []string{"/ws"}, Reason: "a call allowed by the rule Bash(make:*)"}
	for _, tc := range []struct {
		p       *Profile
		command string
		s       Signs
		want    []string
	}{
		{ro, "touch x", Signs{ReadOnlyFS: true}, []string{"a call allowed as read-only", "allow rule"}},
		{w, "make", Signs{ReadOnlyFS: true}, []string{"Bash(make:*)", "[sandbox] allow_write"}},
		{w, "make", Signs{Network: true}, []string{"network = \"none\""}},
		{ro, "curl x", Signs{Network: true}, []string{"no network"}},
		{w, "cat x", Signs{Missing: []string{"/home/u/notes", "/ws/gone"}}, []string{"/home/u/notes is not in the sandbox", "allow_read"}},
		{w, "git push origin main", Signs{}, []string{"~/.ssh", "allow_read"}},
	} {
		note := tc.p.Note(tc.command, tc.s)
		for _, want := range tc.want {
			if !strings.Contains(note, want) {
				t.Errorf("%s %+v: note lacks %q: %s", tc.command, tc.s, want, note)
			}
		}
		if strings.Contains(note, "/ws/gone") {
			t.Errorf("a missing path the sandbox shows is not its doing: %s", note)
		}
	}
	online := *w
	online.Network = true
	if note := online.Note("make", Signs{Network: true, Missing: []string{"/ws/x"}}); note != "" {
		t.Errorf("with the network on and the path shown, nothing points at the sandbox: %s", note)
	}
}

// A real bwrap run of the arguments: what the profile hides is not there,
// what it shows read-only refuses writes.
func TestArgsUnderBwrap(t *testing.T) {
	bwrap, err := (&Probe{}).Check(t.Context())
	if err != nil {
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
	p := &Profile{Mode: Write, WritePaths: []string{ws}, ProtectedPaths: []string{ws + "/.git/hooks"}, MaskedPaths: []string{ws + "/.env"}}
	cmd := exec.Command("/bin/sh", "-c", "cat .env; cat "+dir+"/outside; echo x > .git/hooks/h; echo ok > made; cat made")
	cmd.Dir = ws
	p.Wrap(bwrap, cmd)
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
		p := FromProto((&Profile{WritePaths: []string{write}, ProtectedPaths: []string{protected}, MaskedPaths: []string{masked}, ReadPaths: []string{read}, Network: network}).Proto())
		if writeMode {
			p.Mode = Write
		}
		args := p.Args("/w")
		if args[len(args)-1] != "--" {
			t.Fatalf("args do not end with --: %v", args)
		}
		if p.Mode == ReadOnly && (slices.Contains(args, "--bind-try") || !slices.Contains(args, "--unshare-net")) {
			t.Fatalf("a read-only profile binds writable or has network: %v", args)
		}
		if !p.NetworkOn() && !slices.Contains(args, "--unshare-net") {
			t.Fatalf("no network, yet the net namespace is shared: %v", args)
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
