// Package hello is a minimal third-party riot tool: it builds against the
// plugin SDK alone. Copy it to start a tool of your own.
package hello

import (
	"context"
	"fmt"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// Input is what the model sends. The schema the model sees is reflected
// from it: a field without omitempty is required.
type Input struct {
	Name string `json:"name" jsonschema_description:"Who to greet."`
	// Shout is optional, so it has omitempty.
	Shout bool `json:"shout,omitempty" jsonschema_description:"Greet in capitals."`
}

// Hello greets someone. It changes nothing, so it says it is read-only and
// safe to run in parallel; every other property keeps its fail-closed
// default.
type Hello struct{}

// Tool is the handler to serve.
func Tool() plugin.Handler { return plugin.New[Input](Hello{}) }

func (Hello) Name() string { return "Hello" }

func (Hello) Prompt() string {
	return `Greets someone by name. Use it to check that riot's plugins work.

NEVER use Hello to send a message to a person; it only returns text to you.`
}

func (Hello) Describe(in Input) string { return "Greet " + in.Name }

func (Hello) ValidateInput(_ context.Context, in Input, _ *plugin.Env) plugin.Validation {
	if strings.TrimSpace(in.Name) == "" {
		return plugin.Rejected("`name` must not be empty; pass the name of who to greet.")
	}
	return plugin.Accepted()
}

func (Hello) Call(_ context.Context, in Input, _ *plugin.Env) plugin.Outcome {
	msg := fmt.Sprintf("Hello, %s!", in.Name)
	if in.Shout {
		msg = strings.ToUpper(msg)
	}
	return plugin.Ok(plugin.Text(msg)).WithUI(map[string]string{"greeted": in.Name})
}

func (Hello) IsReadOnly(Input) bool        { return true }
func (Hello) IsConcurrencySafe(Input) bool { return true }
func (Hello) ClassifierInput(in Input) string {
	return "Greet " + in.Name
}
