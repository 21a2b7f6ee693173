package plugin_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

// streamer writes n bytes of output and then waits, before it returns,
// until the host has them: streamed output must reach the host while the
// tool runs, not with its Final.
type streamerIn struct {
	N int `json:"n"`
}

type streamer struct{ seen chan struct{} }

func (streamer) Name() string               { return "Streamer" }
func (streamer) Prompt() string             { return "Streams." }
func (streamer) Describe(streamerIn) string { return "Stream" }
func (streamer) IsReadOnly(streamerIn) bool { return true }
func (s streamer) Call(ctx context.Context, in streamerIn, env *plugin.Env) plugin.Outcome {
	if _, err := io.WriteString(env.Output(), strings.Repeat("s", in.N)); err != nil {
		return plugin.Failed("The host went away.")
	}
	select {
	case <-s.seen:
		return plugin.Ok(plugin.Text("after"))
	case <-ctx.Done():
		return plugin.Failed("The streamed output never reached the host.")
	}
}

// A tool's streamed output reaches the host while the tool
// runs, both a write that fills the buffer (sent at once) and a trickle
// (sent by the flusher); the outcome's block follows it, then the Final.
func TestStreamedOutputReachesTheHostWhileTheToolRuns(t *testing.T) {
	for _, n := range []int{64 << 10, 5} {
		s := streamer{seen: make(chan struct{})}
		c := plugintest.Serve(t, []plugin.Handler{plugin.New[streamerIn](s)})
		// A bound for a failure, not a wait: the flusher sends a trickle
		// within 50 ms.
		c.Timeout = 30 * time.Second
		var once sync.Once
		var order []string
		c.OnEvent = func(ev shared.CallEvent) {
			switch {
			case ev.Chunk != nil:
				order = append(order, string(ev.Chunk.Data[:1]))
				once.Do(func() { close(s.seen) })
			case ev.Final != nil:
				order = append(order, "final")
			}
		}
		res := c.Call("Streamer", map[string]any{"n": n})
		if !res.Ok || res.Text != strings.Repeat("s", n)+"after" {
			t.Fatalf("%d bytes: ok %v, %q, text of %d bytes", n, res.Ok, res.Message, len(res.Text))
		}
		if strings.Join(order, ",") != "s,a,final" {
			t.Fatalf("%d bytes: the host saw %v, want the stream, the block, the Final", n, order)
		}
	}
}
