package main_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// riot config prints durations as a config file says them, and every
// effective value, empty lists and unset plugin keys included.
func TestConfigPrintsEveryValue(t *testing.T) {
	e := newEnv(t)
	p := e.write(".riot/config.toml", "plugin_dirs = [\"plugins\"]\n\n[permissions]\nadditional_dirs = [\"../other\"]\n\n[permissions.classifier]\ntimeout = \"90s\"\n\n[plugins.bash]\ntimeout = \"1h\"\n")
	e.trust() // the workspace file sets what only a trusted workspace may
	r := e.riot("", "config")
	r.want(t, 0)
	for _, want := range []string{
		`permissions.classifier.timeout = "1m30s"`, `limits.call_timeout = "10m"`, `plugins.bash.timeout = "1h"`,
		`plugins.diagnostics.timeout = "6m"`, `plugins.grep.timeout = "10m"`,
		`plugin_dirs += "plugins"`, `permissions.additional_dirs += "../other"`,
		`permissions.ask = []`, `permissions.deny = []`, `plugins.read.args = []`, `plugins.read.env = {}`, `plugins.read.path = ""`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("riot config lacks %s:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`plugin_dirs \+= "plugins" +# ` + regexp.QuoteMeta(p) + `:1`).MatchString(r.stdout) {
		t.Errorf("plugin_dirs without its source:\n%s", r.stdout)
	}
	if !regexp.MustCompile(`additional_dirs \+= "../other" +# ` + regexp.QuoteMeta(p) + `:4`).MatchString(r.stdout) {
		t.Errorf("additional_dirs without its source:\n%s", r.stdout)
	}
	// Without a workspace file the lists are empty, and say so.
	r = newEnv(t).riot("", "config", "--add-dir", "/tmp")
	r.want(t, 0, `plugin_dirs = []`, `permissions.additional_dirs += "/tmp"`, "flag --add-dir", `limits.call_timeout = "10m"`, `permissions.classifier.timeout = "10s"`)
}

// --format shapes only --json output: alone it is a usage error, never
// silently ignored.
func TestToolsFormatNeedsJSON(t *testing.T) {
	e := newEnv(t)
	e.riot("", "tools", "--format", "openai").want(t, 2, "--format shapes the tools[] array that --json prints; add --json")
	e.riot("", "tools", "--json", "--format", "openai").want(t, 0, `"type": "function"`)
	e.riot("", "tools", "--format", "nope", "--json").want(t, 2, `--format "nope": use anthropic or openai`)
}

// OpenAI tool messages carry the status, so that a denial is told from
// success without reading the text.
func TestRunOpenAIResultsCarryStatus(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	r := e.riot(`[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}},
	  {"id":"c2","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"touch x\"}"}},
	  {"id":"c3","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a.txt\"}"}}]`, "run", "--format", "openai")
	r.want(t, 0)
	var out []struct {
		ToolCallID string `json:"tool_call_id"`
		Status     string `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[0].Status != "ok" || out[1].Status != "denied" || out[2].Status != "failed" {
		t.Fatalf("statuses: %+v", out)
	}
}
