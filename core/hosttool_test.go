package core_test

import (
	"context"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

type taskIn struct {
	Prompt string `json:"prompt"`
}

type task struct{}

func (task) Name() string              { return "Task" }
func (task) Prompt() string            { return "Runs a subtask." }
func (task) Describe(in taskIn) string { return "Task: " + in.Prompt }
func (task) IsReadOnly(taskIn) bool    { return true }
func (task) Call(_ context.Context, in taskIn, _ *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("task: " + in.Prompt))
}

// newEchoHostTool is an in-process host tool built with the SDK.
func newEchoHostTool(t *testing.T) *plugin.Server {
	t.Helper()
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[taskIn](task{}))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
