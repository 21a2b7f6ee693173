package tmpview_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/riot-tools/riot/internal/tmpview"
)

func TestViewMapsWhatTheSandboxShows(t *testing.T) {
	hostDir, err := os.MkdirTemp(tmpview.Dir, "riot-tmpview-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(hostDir) })
	fresh := fmt.Sprintf("/tmp/riot-tmpview-%x", rand.Uint64())
	if _, err := os.Lstat(fresh); err == nil {
		t.Fatalf("%s exists", fresh)
	}
	v := &tmpview.View{Host: "/state/riot-tmp-1-s", Own: []string{"/tmp/ws"}}
	for _, tc := range []struct {
		path  string
		host  string
		shows bool
	}{
		{"/tmp", "/state/riot-tmp-1-s", true},
		{fresh + "/x", "/state/riot-tmp-1-s" + fresh[4:] + "/x", true},
		{fresh + "/a/../x", "/state/riot-tmp-1-s" + fresh[4:] + "/a/../x", true},
		{"//tmp" + fresh[4:], "/state/riot-tmp-1-s" + fresh[4:], true},
		{hostDir + "/x", hostDir + "/x", false},             // the host's /tmp has the name
		{"/tmp/ws/x", "/tmp/ws/x", false},                   // shown at its own name
		{"/tmpx/y", "/tmpx/y", false},                       // not in /tmp
		{"/tmp/../etc/passwd", "/tmp/../etc/passwd", false}, // out of /tmp
		{"/etc/passwd", "/etc/passwd", false},
	} {
		if got := v.HostPath(tc.path); got != tc.host {
			t.Errorf("HostPath(%q) = %q, want %q", tc.path, got, tc.host)
		}
	}
	for p, want := range map[string]string{
		"/state/riot-tmp-1-s":     "/tmp",
		"/state/riot-tmp-1-s/a/b": "/tmp/a/b",
		"/state/riot-tmp-1-sx/a":  "/state/riot-tmp-1-sx/a",
		"/elsewhere/riot-tmp-1-s": "/elsewhere/riot-tmp-1-s",
	} {
		if got := v.Shown(p); got != want {
			t.Errorf("Shown(%q) = %q, want %q", p, got, want)
		}
	}
	var none *tmpview.View
	if none.HostPath(fresh) != fresh || none.Shown("/x") != "/x" || none.Shows(fresh) {
		t.Error("no view maps a path")
	}
}
