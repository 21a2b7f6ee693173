package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// formats are the API shapes --format takes.
var formats = []string{"anthropic", "openai"}

// completions teaches cobra's shell completion (`riot completion bash`)
// riot's values: tool names for call and explain, the modes, the formats
// and directories for the flags that take them.
func (a *app) completions(root *cobra.Command) {
	fixed := func(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	dirs := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	_ = root.RegisterFlagCompletionFunc("mode", fixed(asStrings(config.Modes)...))
	_ = root.RegisterFlagCompletionFunc("cwd", dirs)
	_ = root.RegisterFlagCompletionFunc("add-dir", dirs)
	_ = root.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"toml"}, cobra.ShellCompDirectiveFilterFileExt
	})
	for _, c := range root.Commands() {
		if c.Flags().Lookup("format") != nil {
			_ = c.RegisterFlagCompletionFunc("format", fixed(formats...))
		}
		switch c.Name() {
		case "call", "explain":
			c.ValidArgsFunction = a.completeTool
		}
	}
}

// completeTool completes a call's first argument with the enabled tools,
// each with the first line of its prompt.
func (a *app) completeTool(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	a.noPluginWarnings = true
	h, err := a.host(cmd.Context(), core.Options{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	defer h.Close()
	var names []string
	for _, t := range h.Tools() {
		names = append(names, t.Name+"\t"+firstLine(t.Description))
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// asStrings are a string type's values as strings, for cobra.
func asStrings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// orList writes values as a sentence does: "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
