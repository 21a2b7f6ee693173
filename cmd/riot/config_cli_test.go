package main_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
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

// riot config prints every key of the schema, each with its source, and
// every key says whether an untrusted workspace may set it: the test walks
// config.Config itself, so that a section or key added later cannot be
// left out of either.
func TestConfigPrintsEverySection(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", `
[plugins.hello]
source = "example.com/hello"
[mcp_servers.web]
url = "http://127.0.0.1:1/mcp"
headers = { Authorization = "Bearer secret-token" }
[[hooks.PreToolUse]]
command = "true"
[[hooks.PostToolUse]]
command = "true"
[sandbox.network]
allowed_domains = ["example.org"]
`)
	e.trust()
	r := e.riot("", "config")
	r.want(t, 0)
	if strings.Contains(r.stdout, "secret-token") {
		t.Errorf("riot config shows an MCP server's header values:\n%s", r.stdout)
	}
	// Named tables are walked through the entries the file above names.
	names := map[string]string{"plugins": "hello", "mcp_servers": "web"}
	var walk func(t reflect.Type, path string, declared bool)
	var notKeys []string
	leaves := 0
	walk = func(typ reflect.Type, path string, declared bool) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, opt, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" {
				if path == "" {
					notKeys = append(notKeys, f.Name)
				}
				continue // not a key
			}
			key := strings.TrimPrefix(path+"."+name, ".")
			trust := f.Tag.Get("trust")
			if trust != "" && trust != "loosen" && trust != "tighten" {
				t.Errorf("%s: trust:%q says neither loosen nor tighten", key, trust)
			}
			elem := f.Type
			if elem.Kind() == reflect.Slice {
				elem = elem.Elem()
			}
			switch {
			case opt == "named":
				walk(elem, key+"."+names[name], declared || trust != "")
				continue
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, key, declared)
				continue
			}
			leaves++
			if trust == "" && !declared {
				t.Errorf("%s declares neither trust:\"loosen\" nor trust:\"tighten\"", key)
			}
			// key = v, key += v (a list that adds up, an array of tables),
			// or key.NAME = v (a map); each with its source.
			line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `(\.\S+)? \+?= .*# \S`)
			if !line.MatchString(r.stdout) {
				t.Errorf("riot config does not print %s with its source:\n%s", key, r.stdout)
			}
		}
	}
	walk(reflect.TypeFor[config.Config](), "", false)
	// What is not a key is riot's bookkeeping, not a section left untagged.
	if strings.Join(notKeys, ",") != "Sources,Files,Trust,trustRead" || leaves < 40 {
		t.Fatalf("config.Config: %d keys, and fields that are no key: %v", leaves, notKeys)
	}
	r.want(t, 0, `serve.idle_timeout = "30m"`, `mcp_servers.web.url = "http://127.0.0.1:1/mcp"`, `plugins.hello.source = "example.com/hello"`,
		`hooks.PostToolUse += {matcher = "", command = "true", timeout = "1m", fail_closed = false, async = false, once = false}`,
		`sandbox.network.mode = "proxy"`, `sandbox.network.allowed_domains += "example.org"`)
}

// The key [sandbox.network] replaced stops riot with what to write
// instead.
func TestConfigOldNetworkKey(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", "[sandbox]\nnetwork = \"host\"\n")
	e.riot("", "config").want(t, 2, ".riot/config.toml:2: [sandbox] network is now the table [sandbox.network]; write mode = \"host\" under [sandbox.network] instead")
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
