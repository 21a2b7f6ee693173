package kubernetes_test

import (
	"slices"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/mcpserver"
)

// The pod spec (pod.yaml; the template's is the same, TestPodSpecIsShared)
// probes the paths riot mcp serves without the token, keeps a fixed
// session's state on the state volume, and gives riot's graceful shutdown
// more time than it takes.
func TestPodSpecProbesStateAndShutdown(t *testing.T) {
	pod := only(t, readObjects(t, "pod.yaml"), "Pod")
	c := at(t, pod, "spec", "containers").([]any)[0]
	for probe, path := range map[string]string{"readinessProbe": mcpserver.ReadyPath, "livenessProbe": mcpserver.HealthPath} {
		if got := at(t, c, probe, "httpGet", "path"); got != path {
			t.Errorf("%s probes %v, want %s", probe, got, path)
		}
		if got := at(t, c, probe, "httpGet", "port"); got != "mcp" {
			t.Errorf("%s probes port %v, want mcp", probe, got)
		}
	}

	var args []string
	for _, a := range at(t, c, "args").([]any) {
		args = append(args, a.(string))
	}
	if i := slices.Index(args, "--session"); i < 0 || i+1 == len(args) || args[i+1] == "" {
		t.Errorf("args %v give no fixed --session: a replacement pod would not resume the session", args)
	}
	if slices.Contains(args, "--shutdown-timeout") {
		t.Errorf("args %v set --shutdown-timeout: check it against terminationGracePeriodSeconds here", args)
	}
	var stateMount string
	for _, m := range at(t, c, "volumeMounts").([]any) {
		if at(t, m, "name") == "state" {
			stateMount = at(t, m, "mountPath").(string)
		}
	}
	var stateDir any
	for _, e := range at(t, c, "env").([]any) {
		if at(t, e, "name") == "RIOT_STATE_DIR" {
			stateDir = at(t, e, "value")
		}
	}
	if stateMount == "" || stateDir != stateMount {
		t.Errorf("RIOT_STATE_DIR is %v, the state volume is mounted at %q: the session's state must be on it", stateDir, stateMount)
	}

	secs, ok := at(t, pod, "spec", "terminationGracePeriodSeconds").(float64)
	if !ok {
		t.Fatalf("terminationGracePeriodSeconds is %T", at(t, pod, "spec", "terminationGracePeriodSeconds"))
	}
	grace := time.Duration(secs) * time.Second
	// The host still stops its plugins after the bound.
	if mcpserver.DefaultShutdownTimeout+5*time.Second > grace {
		t.Errorf("riot's shutdown bound %v leaves too little of terminationGracePeriodSeconds %v", mcpserver.DefaultShutdownTimeout, grace)
	}
}
