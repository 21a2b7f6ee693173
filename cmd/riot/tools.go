package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/core"
)

func (a *app) toolsCommand() *cobra.Command {
	var asJSON bool
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the enabled tools in the order the model sees them",
		Long:  "List the enabled tools in order. With --json, print the tools[] array for the API named by --format.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if cmd.Flags().Changed("format") && !asJSON {
				// The table is the same for every API: a --format that
				// changed nothing would be silently ignored.
				return usageErr("--format shapes the tools[] array that --json prints; add --json (riot tools --json --format %s)", format)
			}
			h, err := a.host(cmd.Context(), core.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			tools := h.Tools()
			missingServers(cmd.ErrOrStderr(), h)
			var out bytes.Buffer
			if asJSON {
				err = writeToolsJSON(&out, tools, format)
			} else {
				tw := tabwriter.NewWriter(&out, 0, 4, 2, ' ', 0)
				for _, t := range tools {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Plugin, firstLine(t.Description))
				}
				err = tw.Flush()
			}
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out.Bytes())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tools[] array")
	cmd.Flags().StringVar(&format, "format", "anthropic", "API shape of the --json output: anthropic or openai")
	return cmd
}

// missingServers says on w which MCP servers did not start, and why, so
// that their missing tools are not a silent gap in the list. A server
// disabled for the session has said why in the log already.
func missingServers(w io.Writer, h *core.Host) {
	for _, srv := range h.MCPServers() {
		if srv.State == "failed to start" && len(srv.Tools) == 0 && srv.Problem != "" {
			fmt.Fprintf(w, "riot: the MCP server %s did not start, so its tools are missing: %s\n", srv.Name, serverCause(srv.Problem))
		}
	}
}

// serverCause is a server's problem for the user: what happened, without
// the advice addressed to the model that follows it.
func serverCause(problem string) string {
	for _, cut := range []string{" Tell the user", " Do not retry", " do not retry"} {
		if i := strings.Index(problem, cut); i > 0 {
			problem = problem[:i]
		}
	}
	return strings.TrimSpace(problem)
}

func checkFormat(f string) error {
	if f != "anthropic" && f != "openai" {
		return usageErr("--format %q: use anthropic or openai", f)
	}
	return nil
}

// writeToolsJSON prints tools[] in the shape of the named API, indented
// by two spaces, as json.MarshalIndent would (TestToolsJSONShape holds it
// to that). A deferred tool is marked as the API expects: Anthropic's
// "defer_loading": true; OpenAI, which defers nothing, leaves it out, and
// ToolSearch returns its definition when the model searches. Deferred
// tools come last (core.Host.Tools), so what precedes them, the prompt
// cache's prefix, is the same whether they are there or not. It works
// without reflection: each schema is indented once, as it
// is, where marshalling would compact it, indent the whole array, and
// grow two buffers by doubling on the way.
func writeToolsJSON(w io.Writer, tools []core.ToolInfo, format string) error {
	var b, schema bytes.Buffer
	depth := "    " // the schema's members are at depth 3 in an anthropic tool
	if format == "openai" {
		depth = "      "
	}
	b.WriteByte('[')
	n := 0
	for _, t := range tools {
		if t.Deferred && format == "openai" {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		if format == "openai" {
			b.WriteString("\n  {\n    \"type\": \"function\",\n    \"function\": {\n      \"name\": ")
			writeJSONString(&b, t.Name)
			b.WriteString(",\n      \"description\": ")
			writeJSONString(&b, t.Description)
			b.WriteString(",\n      \"parameters\": ")
		} else {
			b.WriteString("\n  {\n    \"name\": ")
			writeJSONString(&b, t.Name)
			b.WriteString(",\n    \"description\": ")
			writeJSONString(&b, t.Description)
			b.WriteString(",\n    \"input_schema\": ")
		}
		if len(t.InputSchema) == 0 {
			b.WriteString("null")
		} else {
			schema.Reset()
			if err := json.Indent(&schema, t.InputSchema, depth, "  "); err != nil {
				return fmt.Errorf("the input schema of %s is not JSON: %w", t.Name, err)
			}
			// Marshal escapes <, > and & in strings; so does this.
			json.HTMLEscape(&b, bytes.TrimRight(schema.Bytes(), " \t\r\n"))
		}
		if format == "openai" {
			b.WriteString("\n    }")
		} else if t.Deferred {
			b.WriteString(",\n    \"defer_loading\": true")
		}
		b.WriteString("\n  }")
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeJSONString writes s as a JSON string, escaped as Marshal escapes it.
func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
