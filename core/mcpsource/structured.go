package mcpsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/jsonschema"
)

// taskMeta marks, in a tool's _meta as riot keeps it (and caches it), a
// tool the server runs only as a task (execution.taskSupport "required",
// 2025-11-25): riot does not speak the tasks extension, so it can never
// call the tool, and leaves it out rather than list what fails.
const taskMeta = "riot/taskSupport"

// scanTools reads a raw tools/list result for what the SDK's Tool drops:
// which tools require the tasks extension. It runs on the read path,
// before the SDK decodes the message, so list sees what it recorded.
func (s *Source) scanTools(msg []byte) {
	if !bytes.Contains(msg, []byte(`"taskSupport"`)) {
		return
	}
	var m struct {
		Result struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range m.Result.Tools {
		if t.Execution.TaskSupport == "required" {
			if s.taskOnly == nil {
				s.taskOnly = map[string]bool{}
			}
			s.taskOnly[t.Name] = true
		} else {
			delete(s.taskOnly, t.Name)
		}
	}
}

// markTaskOnly notes in each listed tool's _meta whether it requires tasks.
func (s *Source) markTaskOnly(tools []*mcp.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tools {
		if t == nil || !s.taskOnly[t.Name] {
			continue
		}
		if t.Meta == nil {
			t.Meta = mcp.Meta{}
		}
		t.Meta[taskMeta] = "required"
	}
}

func taskOnly(t *mcp.Tool) bool { return t.Meta != nil && t.Meta[taskMeta] == "required" }

// capture is the copy of one HTTP response kept for scanTools: a whole
// JSON body, or a server-sent event's data lines.
type capture struct {
	scan func([]byte)
	sse  bool
	buf  []byte
	line []byte
}

func (c *capture) add(p []byte) {
	if !c.sse {
		c.buf = append(c.buf, p...)
		return
	}
	for _, b := range p {
		if b != '\n' {
			c.line = append(c.line, b)
			continue
		}
		line := bytes.TrimSuffix(c.line, []byte("\r"))
		c.line = c.line[:0]
		switch {
		case len(line) == 0:
			// A blank line ends the event.
			if len(c.buf) > 0 {
				c.scan(c.buf)
			}
			c.buf = c.buf[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			c.buf = append(c.buf, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
			c.buf = append(c.buf, '\n')
		}
	}
}

func (c *capture) end() {
	if !c.sse && len(c.buf) > 0 {
		c.scan(c.buf)
	}
	c.buf = nil
}

// listsTools reports whether a request to a remote server is tools/list,
// whose response is worth a copy.
func listsTools(r *http.Request) bool {
	if r.Method != http.MethodPost || r.GetBody == nil {
		return false
	}
	body, err := r.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, 64<<10))
	return err == nil && bytes.Contains(b, []byte(`"tools/list"`))
}

// outputSchema is a tool's outputSchema, compiled, if it declares one MCP
// allows (an object schema) that compiles with no loader; nil otherwise,
// and the tool is then served as if it declared none.
func outputSchema(t *mcp.Tool) (json.RawMessage, *jsonschema.Schema) {
	if t.OutputSchema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(t.OutputSchema)
	if err != nil {
		return nil, nil
	}
	var shape struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &shape) != nil || shape.Type != "object" {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "riot:///output.json"
	if c.AddResource(url, doc) != nil {
		return nil, nil
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, nil
	}
	return raw, sch
}

// structured checks a result's structured content against the tool's
// output schema: it says why the result breaks the promise, or "". Only
// an ok result must carry it (MCP: a tool with an output schema MUST).
func structured(res *mcp.CallToolResult, out *jsonschema.Schema) (json.RawMessage, string) {
	var raw json.RawMessage
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil || !json.Valid(b) {
			return nil, "its structured content is not JSON"
		}
		raw = b
	}
	if out == nil || res.IsError {
		return raw, ""
	}
	if raw == nil {
		return nil, "it has no structured content, which its output schema promises"
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, "its structured content is not JSON"
	}
	if err := out.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Sprintf("its structured content does not match its output schema (%s)", firstLine(ve.Error()))
		}
		return nil, "its structured content does not match its output schema"
	}
	return raw, ""
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
