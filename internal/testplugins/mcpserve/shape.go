package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addShape serves shape, whose output schema promises {"length": int}:
// it keeps the promise for any text but "bad" (a string length) and
// "none" (no structured content).
func addShape(s *mcp.Server) {
	out := map[string]any{
		"type": "object", "required": []string{"length"},
		"properties": map[string]any{"length": map[string]any{"type": "integer"}},
	}
	in := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&mcp.Tool{Name: "shape", Description: "Measure text.", InputSchema: in, OutputSchema: out}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		_ = unmarshal(req.Params.Arguments, &args)
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "measured"}}}
		switch args.Text {
		case "bad":
			res.StructuredContent = map[string]any{"length": "three"}
		case "none":
		default:
			res.StructuredContent = map[string]any{"length": len(args.Text)}
		}
		return res, nil
	})
}

// taskWriter marks tasky as requiring the tasks extension in every
// tools/list result the server writes, line by line.
type taskWriter struct {
	w   io.Writer
	buf []byte
}

func (t *taskWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.Replace(t.buf[:i+1], []byte(`"name":"tasky"`), []byte(`"execution":{"taskSupport":"required"},"name":"tasky"`), 1)
		if _, err := t.w.Write(line); err != nil {
			return 0, err
		}
		t.buf = t.buf[i+1:]
	}
}

func unmarshal(raw []byte, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}

func (t *taskWriter) Close() error { return nil }
