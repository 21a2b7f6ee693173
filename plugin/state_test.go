package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/filestate"
	"github.com/riot-tools/riot/plugin/plugintest"
)

type stateIn struct {
	Key string `json:"key" jsonschema_description:"The key."`
}

// stateTool reports what it sees of the session state: its own keys, and
// the key of read's state.
type stateTool struct{}

func (stateTool) Name() string            { return "State" }
func (stateTool) Prompt() string          { return "Reports the state." }
func (stateTool) Describe(stateIn) string { return "State" }
func (stateTool) Call(_ context.Context, in stateIn, env *plugin.Env) plugin.Outcome {
	rec, ok := filestate.Latest(env, in.Key)
	return plugin.Ok(plugin.Text(strings.Join(env.StateKeys(), ",") + "|" + env.StateOf("read", filestate.Key(in.Key)) + "|" + env.State(filestate.Key(in.Key)) +
		"|" + jsonOf(rec, ok)))
}

func jsonOf(r filestate.Record, ok bool) string {
	if !ok {
		return "none"
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func record(at int64) string {
	b, _ := json.Marshal(filestate.Record{Size: at, At: at})
	return string(b)
}

// A tool reads its own state with State and another plugin's with
// StateOf; the newest file record of the two counts, its own at a tie.
func TestStateOfOtherPlugins(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[stateIn](stateTool{})})
	k := filestate.Key("/f")
	c.State = map[string]string{k: record(1), "b": "own"}
	c.Shared = map[string]map[string]string{"read": {k: record(2)}, "bash": {"cwd": "/x"}}
	res := c.Call("State", map[string]any{"key": "/f"})
	parts := strings.Split(res.Text, "|")
	if parts[0] != "b,"+k || parts[1] != record(2) || parts[2] != record(1) || !strings.Contains(parts[3], `"size":2`) {
		t.Errorf("sees %q; want own keys, read's record, own record, read's as the newest", res.Text)
	}
	c.State[k] = record(2)
	c.Shared["read"][k] = `{"size":3,"at_ns":2}`
	if res := c.Call("State", map[string]any{"key": "/f"}); !strings.Contains(res.Text, `"size":2,`) {
		t.Errorf("at a tie %q; want the plugin's own record", res.Text)
	}
	c.State, c.Shared = map[string]string{}, nil
	if res := c.Call("State", map[string]any{"key": "/f"}); !strings.HasSuffix(res.Text, "none") {
		t.Errorf("without records %q", res.Text)
	}
}
