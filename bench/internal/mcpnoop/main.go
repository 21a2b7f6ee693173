// Command mcpnoop serves one no-op tool over MCP on stdio with the official
// Go SDK: the baseline riot's per-call overhead is compared with.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noopIn struct{}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpnoop", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "Noop", Description: "Does nothing."},
		func(context.Context, *mcp.CallToolRequest, noopIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
