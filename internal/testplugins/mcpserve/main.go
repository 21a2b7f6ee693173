// Command mcpserve is an MCP server over stdio, built on the Go SDK, for
// riot's MCP client tests. Its first argument picks a behaviour: ok, hang
// (calls never answer), exitinit (exits at initialize), malformed (answers
// a call with a line that is not JSON-RPC), die (exits during a call),
// classic (speaks a protocol before multi round-trip requests, and its ask
// sends elicitation/create during the call), badnames (also serves tools
// whose names the model APIs reject, and two that fit exactly), flood
// (echo of "flood" writes a line without end: see flood.go). With
// MCPSERVE_SHAPE set it also serves shape, a tool with an output schema;
// with MCPSERVE_TASKS, tasky, which requires the tasks extension.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type bigIn struct {
	Chars int `json:"chars" jsonschema:"how many characters"`
}

func main() {
	mode := "ok"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if mode == "exitinit" {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Fprintln(os.Stderr, "mcpserve: refusing to initialize")
		os.Exit(3)
	}
	var opts *mcp.ServerOptions
	if mode == "classic" {
		opts = &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpserve", Version: "1"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo text."}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		// With MCPSERVE_PROGRESS set, it reports progress first.
		if token := req.Params.GetProgressToken(); token != nil && os.Getenv("MCPSERVE_PROGRESS") != "" {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "echoing " + in.Text})
			// A client handles a response as it comes, ahead of the
			// notifications before it; it answers a ping only after them.
			// So the progress is handled before the result.
			_ = req.Session.Ping(ctx, nil)
		}
		switch mode {
		case "hang":
			say("MCPSERVE_STARTED", "started")
			<-ctx.Done()
			// The client cancelled (notifications/cancelled): say so
			// on the FIFO a test may name.
			say("MCPSERVE_CANCELLED", "cancelled")
			return nil, nil, ctx.Err()
		case "die":
			os.Exit(7)
		case "malformed":
			fmt.Fprintln(os.Stdout, "this is not json-rpc")
		case "flood":
			if in.Text == "flood" {
				flood()
			}
		}
		if in.Text == "fail" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "echo refuses to echo fail"}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "A long text."}, func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Chars)}}}, nil, nil
	})
	// grow adds a tool, named to sort first, and answers once riot has
	// asked for the new list, so that riot has it when the call returns.
	listed := make(chan struct{}, 1)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				select {
				case listed <- struct{}{}:
				default:
				}
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add the tool aaa-new."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-listed:
		default:
		}
		mcp.AddTool(s, &mcp.Tool{Name: "aaa-new", Description: "Added later."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil, nil
		})
		select {
		case <-listed:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
	})
	// ask asks the user for a color with elicitation, as a multi
	// round-trip request: the question first, the answer on the retry.
	// With MCPSERVE_PICK set, it asks for colors with a multi-select field
	// (valid since 2025-11-25), its options titled.
	field := "color"
	form := map[string]any{
		"type": "object", "required": []string{"color"},
		"properties": map[string]any{"color": map[string]any{"type": "string", "enum": []string{"red", "blue"}}},
	}
	if os.Getenv("MCPSERVE_PICK") != "" {
		field = "colors"
		form = map[string]any{
			"type": "object", "required": []string{"colors"},
			"properties": map[string]any{"colors": map[string]any{
				"type": "array", "title": "Colors", "minItems": 1,
				"items": map[string]any{"anyOf": []any{
					map[string]any{"const": "red", "title": "Red"},
					map[string]any{"const": "green", "title": "Green"},
					map[string]any{"const": "blue", "title": "Blue"},
				}},
			}},
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user for a color."}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		answered := func(res *mcp.ElicitResult) *mcp.CallToolResult {
			text := fmt.Sprintf("%s %v", res.Action, res.Content[field])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		}
		if res, ok := req.Params.InputResponses[field].(*mcp.ElicitResult); ok {
			return answered(res), nil, nil
		}
		q := &mcp.ElicitParams{Message: "Which color?", RequestedSchema: form}
		if mode == "classic" {
			res, err := req.Session.Elicit(ctx, q)
			if err != nil {
				return nil, nil, fmt.Errorf("elicitation failed: %w", err)
			}
			return answered(res), nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{field: q}}, nil, nil
	})
	if os.Getenv("MCPSERVE_SHAPE") != "" {
		addShape(s)
	}
	if os.Getenv("MCPSERVE_TASKS") != "" {
		mcp.AddTool(s, &mcp.Tool{Name: "tasky", Description: "Runs only as a task."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not as a task"}}}, nil, nil
		})
	}
	if mode == "badnames" {
		for _, name := range badNames() {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A badly named tool."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil, nil
			})
		}
	}
	var transport mcp.Transport = &mcp.StdioTransport{}
	if os.Getenv("MCPSERVE_TASKS") != "" {
		// The Go SDK's Tool has no execution field: add it on the wire.
		transport = &mcp.IOTransport{Reader: os.Stdin, Writer: &taskWriter{w: os.Stdout}}
	}
	if err := s.Run(context.Background(), transport); err != nil {
		os.Exit(1)
	}
}

// say writes a line to the FIFO the environment variable names, if any:
// how a test learns what the server saw without waiting on a clock.
func say(env, line string) {
	if fifo := os.Getenv(env); fifo != "" {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			fmt.Fprintln(f, line)
			_ = f.Close()
		}
	}
}

// badNames are the tool names badnames adds: names the model APIs reject
// (as mcp__srv__NAME), then the longest name that fits under a server
// named srv, and one with - and _.
func badNames() []string {
	return []string{"a.b", "with space", "/../", "naïve", strings.Repeat("x", 110), "", strings.Repeat("y", 55), strings.Repeat("z", 54), "ok-name_2"}
}
