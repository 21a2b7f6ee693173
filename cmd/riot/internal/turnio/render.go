package turnio

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/riot-tools/riot/core/toolcall"
	"github.com/riot-tools/riot/internal/toolsearch"
)

// anthropicResult is a tool_result block.
type anthropicResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
	IsError   bool   `json:"is_error"`
}

// openaiResult is a tool message. OpenAI's tool messages have no error
// flag, so riot adds the result's status (ok, failed, denied, cancelled),
// the same word as `riot call --json`: a harness tells a denial from
// success without reading the text. OpenAI's API ignores the extra field.
type openaiResult struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	Status     string `json:"status"`
}

// Render is what riot run prints for results in format, whether the
// turn ran in this process or in a session host (Server.Render).
func Render(results []toolcall.ToolResult, format string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(renderResults(results, format)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// renderResults is the turn's results in the named API's shape.
func renderResults(results []toolcall.ToolResult, format string) any {
	if format == "openai" {
		out := make([]openaiResult, len(results))
		for i, r := range results {
			text := r.Text()
			for _, b := range r.Content {
				if b.Type == "image" {
					text += fmt.Sprintf("\n[An image (%s, %d bytes) was omitted: OpenAI tool messages carry text only.]", b.MediaType, len(b.Data))
				}
			}
			out[i] = openaiResult{Role: "tool", ToolCallID: r.ToolUseID, Content: text, Status: string(r.Status)}
		}
		return out
	}
	out := make([]anthropicResult, len(results))
	for i, r := range results {
		content := AnthropicContent(r)
		if refs := toolReferences(r); refs != nil {
			content = refs
		}
		out[i] = anthropicResult{Type: "tool_result", ToolUseID: r.ToolUseID, Content: content, IsError: r.IsError()}
	}
	return out
}

// toolReference is the block that loads a deferred tool in Anthropic's
// API: the API expands it into the tool's definition, which tools[] holds
// with defer_loading.
type toolReference struct {
	Type     string `json:"type"`
	ToolName string `json:"tool_name"`
}

// toolReferences is the content of ToolSearch's result as Anthropic loads
// the tools it found: a tool_reference block for each, named by its UI
// payload. Its text, the tools' definitions in OpenAI's shape, is what
// OpenAI gets. It is nil for any other result, and for a search that found
// nothing, whose text says so.
func toolReferences(r toolcall.ToolResult) []toolReference {
	if r.Name != toolsearch.ToolName || r.IsError() || len(r.UI) == 0 {
		return nil
	}
	var found toolsearch.Found
	if json.Unmarshal(r.UI, &found) != nil || len(found.ToolReferences) == 0 {
		return nil
	}
	out := make([]toolReference, len(found.ToolReferences))
	for i, name := range found.ToolReferences {
		out[i] = toolReference{Type: "tool_reference", ToolName: name}
	}
	return out
}

// AnthropicContent is a string when the result is text only, else an array
// of text and image blocks.
func AnthropicContent(r toolcall.ToolResult) any {
	hasImage := false
	for _, b := range r.Content {
		hasImage = hasImage || b.Type == "image"
	}
	if !hasImage {
		return r.Text()
	}
	blocks := make([]any, 0, len(r.Content))
	for _, b := range r.Content {
		if b.Type == "image" {
			blocks = append(blocks, map[string]any{
				"type": "image",
				"source": map[string]string{
					"type": "base64", "media_type": b.MediaType, "data": base64.StdEncoding.EncodeToString(b.Data),
				},
			})
		} else {
			blocks = append(blocks, map[string]string{"type": "text", "text": b.Text})
		}
	}
	return blocks
}

// callJSON is `riot call --json`.
type callJSON struct {
	Status   string          `json:"status"`
	Content  any             `json:"content"`
	UI       json.RawMessage `json:"ui,omitempty"`
	Describe string          `json:"describe"`
	Spill    *spillJSON      `json:"spill,omitempty"`
}

type spillJSON struct {
	Path  string `json:"path"`
	Chars int64  `json:"chars"`
	Lines int64  `json:"lines"`
}

// PrintResult is what riot call prints for r: its content, each text
// block ended by a newline, or with asJSON its {status, content, ui,
// describe}.
func PrintResult(w io.Writer, r toolcall.ToolResult, asJSON bool) error {
	if asJSON {
		out := callJSON{Status: string(r.Status), Content: AnthropicContent(r), UI: r.UI, Describe: r.Describe}
		if r.Spill != nil {
			out.Spill = &spillJSON{Path: r.Spill.Path, Chars: r.Spill.Chars, Lines: r.Spill.Lines}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, b := range r.Content {
		if b.Type == "image" {
			fmt.Fprintf(w, "[image: %s, %d bytes]\n", b.MediaType, len(b.Data))
			continue
		}
		text := b.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if _, err := io.WriteString(w, text); err != nil {
			return err
		}
	}
	return nil
}

// HostDied is the turn's results when the host went away with it: the
// calls may have run in part, so they are not run again here.
func HostDied(uses []toolcall.ToolUse) []toolcall.ToolResult {
	out := make([]toolcall.ToolResult, len(uses))
	for i, u := range uses {
		out[i] = toolcall.ToolResult{ToolUseID: u.ID, Name: u.Name, Status: toolcall.StatusFailed, Content: []toolcall.Block{{Type: "text",
			Text: "The session host exited before this call finished, so it may have run in part. Check its effects (read the files, or run a read-only command) before you run it again."}}}
	}
	return out
}

// NewCallID is a unique id for a call made from the command line, so that
// its spilled result never overwrites another's in a named session. From
// math/rand/v2, whose generator each process seeds from the system's
// randomness: it needs to be unique, not secret.
func NewCallID() string {
	return "call_" + strconv.FormatUint(rand.Uint64()&(1<<48-1)|1<<48, 16)[1:]
}
