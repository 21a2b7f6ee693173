package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// [plugins.NAME] source and version are read as written, with where.
func TestPluginSourceAndVersion(t *testing.T) {
	ws := workspace(t, map[string]string{".riot/config.toml": "[plugins.greet]\nenabled = true\nsource = \"example.com/x/cmd/riot-tool-greet\"\nversion = \"~> 1.2\"\n"})
	c, err := load(t, ws, nil, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Plugin("greet")
	if !ok || p.Source != "example.com/x/cmd/riot-tool-greet" || p.Version != "~> 1.2" {
		t.Fatalf("greet = %+v", p)
	}
	if got := c.Sources["plugins.greet.version"].String(); got != filepath.Join(ws, ".riot/config.toml")+":4" {
		t.Fatalf("version source = %s", got)
	}
	ce := configErr(t, "[plugins.greet]\nsourc = \"x\"\n")
	if !strings.Contains(ce.Msg, `did you mean "source"?`) {
		t.Fatalf("msg = %s", ce.Msg)
	}
	if !config.ValidPluginName("greet") || config.ValidPluginName("Greet") || config.ValidPluginName("") {
		t.Fatal("ValidPluginName")
	}
}
