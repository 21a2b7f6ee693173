package main

import (
	"encoding/json"
	"fmt"
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
			out := cmd.OutOrStdout()
			if asJSON {
				// One pass into a buffer sized for it, then one write: an
				// Encoder with an indent marshals into a buffer that grows
				// by doubling and indents into a second one.
				b, err := json.MarshalIndent(toolsJSON(tools, format), "", "  ")
				if err != nil {
					return err
				}
				_, err = out.Write(append(b, '\n'))
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, t := range tools {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Plugin, firstLine(t.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tools[] array")
	cmd.Flags().StringVar(&format, "format", "anthropic", "API shape of the --json output: anthropic or openai")
	return cmd
}

func checkFormat(f string) error {
	if f != "anthropic" && f != "openai" {
		return usageErr("--format %q: use anthropic or openai", f)
	}
	return nil
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolsJSON is tools[] in the shape of the named API.
func toolsJSON(tools []core.ToolInfo, format string) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		if format == "openai" {
			out = append(out, openaiTool{Type: "function", Function: openaiFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
		} else {
			out = append(out, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
