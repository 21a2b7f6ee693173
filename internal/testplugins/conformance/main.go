// Command conformance is a riot plugin serving the tools the MCP
// conformance suite's server scenarios call by name (test_simple_text and
// the like), so that the suite checks riot's own path for them: a plugin's
// text, image, failure and progress through riot mcp.
package main

import (
	"context"
	"fmt"

	"github.com/riot-tools/riot/plugin"
)

func main() {
	plugin.Serve(
		plugin.New[none](simpleText{}),
		plugin.New[none](imageContent{}),
		plugin.New[none](errorHandling{}),
		plugin.New[none](withProgress{}),
	)
}

type none struct{}

// readOnly makes a tool read-only and concurrency-safe, so that riot runs
// it without asking in the default mode.
type readOnly struct{}

func (readOnly) IsReadOnly(none) bool        { return true }
func (readOnly) IsConcurrencySafe(none) bool { return true }

type simpleText struct{ readOnly }

func (simpleText) Name() string         { return "test_simple_text" }
func (simpleText) Prompt() string       { return "Returns a simple text." }
func (simpleText) Describe(none) string { return "Return a simple text" }
func (simpleText) Call(context.Context, none, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("This is a simple text response for testing."))
}

type imageContent struct{ readOnly }

// png is a 1x1 image.
const png = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82"

func (imageContent) Name() string         { return "test_image_content" }
func (imageContent) Prompt() string       { return "Returns an image." }
func (imageContent) Describe(none) string { return "Return an image" }
func (imageContent) Call(context.Context, none, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Image("image/png", []byte(png)))
}

type errorHandling struct{ readOnly }

func (errorHandling) Name() string         { return "test_error_handling" }
func (errorHandling) Prompt() string       { return "Always fails." }
func (errorHandling) Describe(none) string { return "Fail" }
func (errorHandling) Call(context.Context, none, *plugin.Env) plugin.Outcome {
	return plugin.Failed("This tool intentionally returns an error for testing")
}

type withProgress struct{ readOnly }

func (withProgress) Name() string         { return "test_tool_with_progress" }
func (withProgress) Prompt() string       { return "Reports progress three times." }
func (withProgress) Describe(none) string { return "Report progress" }
func (withProgress) Call(_ context.Context, _ none, env *plugin.Env) plugin.Outcome {
	for i := range 3 {
		env.Progress(fmt.Sprintf("step %d of 3", i+1))
	}
	return plugin.Ok(plugin.Text("Done in 3 steps."))
}
