package hello_test

import (
	"encoding/json"
	"testing"

	hello "github.com/riot-tools/riot/examples/hello-tool"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

func TestHello(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{hello.Tool()})

	res := c.Call("Hello", map[string]any{"name": "riot", "shout": true})
	if !res.Ok || res.Text != "HELLO, RIOT!" {
		t.Fatalf("got %+v", res)
	}
	var ui map[string]string
	if err := json.Unmarshal(res.UI, &ui); err != nil || ui["greeted"] != "riot" {
		t.Fatalf("ui = %s", res.UI)
	}
}

func TestHelloRejectsEmptyName(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{hello.Tool()})
	p := c.Prepare("Hello", `{"name":"  "}`)
	if p.Rejected != "`name` must not be empty; pass the name of who to greet." {
		t.Fatalf("rejected = %q", p.Rejected)
	}
}

func TestHelloProperties(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{hello.Tool()})
	p := c.Prepare("Hello", `{"name":"Ada"}`)
	if !p.ReadOnly || !p.ConcurrencySafe || p.Describe != "Greet Ada" {
		t.Fatalf("prepared = %+v", p)
	}
}
