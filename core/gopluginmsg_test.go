package core

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoPluginMessages: riot tells go-plugin's start failures apart by
// their text, which go-plugin v1.8 gives no type for. Each text must still
// be in the go-plugin this module builds with, word for word, or an
// upgrade has changed it and the matching in explainStartError is dead.
func TestGoPluginMessages(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hashicorp/go-plugin").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	var src strings.Builder
	for _, f := range []string{"client.go", "server.go"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		src.Write(data)
	}
	for name, msg := range map[string]string{
		"gpTimeout": gpTimeout, "gpExited": gpExited, "gpUnrecognized": gpUnrecognized,
		"gpVersion": gpVersion, "gpCoreVersion": gpCoreVersion, "gpNotForHumans": gpNotForHumans,
	} {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(src.String(), msg) {
				t.Fatalf("go-plugin no longer says %q: update %s in plugin.go to what it says now", msg, name)
			}
		})
	}
}
