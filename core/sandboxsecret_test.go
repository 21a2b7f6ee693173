package core_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/proctest"
)

// blindBashBin builds the Bash builtin with its analysis forced wrong
// (every command read-only, no path named), once, beside the test
// plugins: the first line of defence made to fail.
var blindBashBin = sync.OnceValues(func() (string, error) {
	return buildBash("riot-tool-bash-blind", "riot_test_blind_analyzer")
})

// When the analysis misjudges a read of the system's secrets, the sandbox
// hides them: /etc/shadow and the like read as nothing in it, even for a
// command that runs as root, which could read them otherwise.
func TestSandboxHidesSystemSecretsWhenTheAnalysisIsWrong(t *testing.T) {
	requireSandbox(t)
	const shadow = "/etc/shadow"
	if _, err := os.Lstat(shadow); err != nil {
		t.Skipf("this system has no %s: %v", shadow, err)
	}
	bash, err := blindBashBin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range processesOf(bash) {
			if !proctest.WaitExit(pid, 10*time.Second) {
				t.Errorf("a process of the blind Bash plugin outlived its host: %d", pid)
			}
		}
	})
	asks := &askRecorder{}
	h := newHost(t, withConfig(tmpConfig(t)), withPlugins(core.PluginSpec{Name: "bash", Path: bash}), func(o *core.Options) { o.Prompter = asks })
	// /etc/shadow, and the backup passwd keeps of it, where there is one.
	for i, s := range []string{shadow, shadow + "-"} {
		if _, err := os.Lstat(s); err != nil {
			continue
		}
		r := runTool(t, h, fmt.Sprintf("s%d", i), "Bash", map[string]any{"command": "cat " + s + "; test -c " + s + " && echo masked"})
		// A device node where the file was: the mask, which no read gets
		// past (on the sandbox's nodev mounts it cannot even be opened).
		if r.IsError() || !strings.HasSuffix(strings.TrimSpace(r.Text()), "masked") {
			t.Errorf("cat %s in the sandbox: %s", s, r.Text())
		}
		// Where the test may read the file, none of its lines came out.
		if b, err := os.ReadFile(s); err == nil {
			for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
				if line := strings.TrimSpace(sc.Text()); line != "" && strings.Contains(r.Text(), line) {
					t.Errorf("cat %s read its content: %s", s, r.Text())
					break
				}
			}
		}
	}
	// The analysis was blind, so the chain let every command through.
	if q := asks.questions(); len(q) != 0 {
		t.Errorf("the blind analysis asked: %q", q)
	}
	// What is not secret in /etc is still shown.
	if r := runTool(t, h, "hosts", "Bash", map[string]any{"command": "test -s /etc/passwd && echo shown"}); r.IsError() || strings.TrimSpace(r.Text()) != "shown" {
		t.Errorf("/etc/passwd in the sandbox: %s", r.Text())
	}
}
