//go:build linux

package bwrap

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The probe passes where bwrap starts a sandbox, with the namespaces every
// call's command line starts from.
func TestProbe(t *testing.T) {
	path, err := Find()
	if err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	if err := Probe(t.Context(), path); err != nil {
		t.Fatalf("bwrap %s is usable here, but the probe says %v", path, err)
	}
}

// A bwrap that fails makes an error that names the cause: the first line
// bwrap wrote, or its exit status when it wrote nothing. What it ran with
// is Namespaces.
func TestProbeSaysWhyItFailed(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	for name, script := range map[string]string{
		"says": "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + args + "\necho 'bwrap: No permissions to create new namespace' >&2\necho 'second line' >&2\nexit 1\n",
		"mute": "#!/bin/sh\nexit 3\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err := Probe(t.Context(), filepath.Join(dir, "says"))
	if err == nil || !strings.Contains(err.Error(), "(bwrap: No permissions to create new namespace;") || strings.Contains(err.Error(), "second line") {
		t.Errorf("want bwrap's first line as the cause: %v", err)
	}
	got, _ := os.ReadFile(args)
	if want := Namespaces(false); !slices.Equal(strings.Split(string(got), "\n")[:len(want)], want) {
		t.Errorf("the probe ran with\n%s\nwant it to start with %v", got, want)
	}
	if err := Probe(t.Context(), filepath.Join(dir, "mute")); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("want the exit status as the cause: %v", err)
	}
}

// In a container whose runtime masks parts of /proc, bwrap cannot mount a
// new one: the error names that cause rather than user namespaces, and Fix
// says to unmask /proc, not to install bubblewrap.
func TestProbeNamesMaskedProc(t *testing.T) {
	dir := t.TempDir()
	masked := filepath.Join(dir, "masked")
	script := "#!/bin/sh\necho 'bwrap: Can'\\''t mount proc on /newroot/proc: Operation not permitted' >&2\nexit 1\n"
	if err := os.WriteFile(masked, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Probe(t.Context(), masked)
	if err == nil || !strings.Contains(err.Error(), "Can't mount proc") || !strings.Contains(err.Error(), "/proc is partly masked") || strings.Contains(err.Error(), "user namespaces") {
		t.Errorf("want the masked /proc named as the cause: %v", err)
	}
	if fix := Fix(err); !strings.Contains(fix, "procMount: Unmasked") || !strings.Contains(fix, "unmask=/proc/*") || strings.Contains(fix, "install bubblewrap") {
		t.Errorf("Fix for a masked /proc: %s", fix)
	}
	if fix := Fix(errors.New("bwrap is not installed")); !strings.Contains(fix, "install bubblewrap") {
		t.Errorf("Fix for a missing bwrap: %s", fix)
	}
}

func TestNamespacesNetwork(t *testing.T) {
	if slices.Contains(Namespaces(true), "--unshare-net") || !slices.Contains(Namespaces(false), "--unshare-net") {
		t.Fatalf("with network %v, without %v", Namespaces(true), Namespaces(false))
	}
}
