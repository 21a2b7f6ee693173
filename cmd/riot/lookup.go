package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// checkCallInput makes input that is not a JSON object a usage error of
// `riot call`: from the command line it is the caller's mistake, and it
// would fail again however often it ran.
func checkCallInput(tool string, input []byte) error {
	if msg := turnio.InputProblem(tool, input); msg != "" {
		return usageErr("%s", msg)
	}
	return nil
}

// checkToolName makes a tool that is not enabled a usage error of
// `riot call`, naming the nearest tool, and any discovered plugin that is
// not enabled and how to enable it. A tool hidden by a bare deny rule is
// known: calling it is denied, an outcome.
func (a *app) checkToolName(h *core.Host, name string) error {
	var known, visible, broken []string
	for _, p := range h.Plugins() {
		known = append(known, p.Tools...)
		if p.Problem != "" {
			if slices.Contains(p.Locked, name) {
				// Its plugin is out: the call would fail, saying why.
				return usageErr("the %s tool is unavailable: %s", name, strings.TrimSpace(p.Problem))
			}
			broken = append(broken, p.Name)
		}
	}
	for _, t := range h.Tools() {
		visible = append(visible, t.Name)
	}
	// Tools() also holds what is not a plugin's, an MCP server's tools.
	if slices.Contains(known, name) || slices.Contains(visible, name) {
		return nil
	}
	msg := fmt.Sprintf("there is no enabled tool named %q.", name)
	if s := config.Nearest(name, visible); s != "" {
		msg = fmt.Sprintf("there is no enabled tool named %q; did you mean %q?", name, s)
	}
	list := "none"
	if len(visible) > 0 {
		list = strings.Join(visible, ", ")
	}
	msg += " The tools are: " + list + " (`riot tools` lists them)."
	if len(broken) > 0 {
		msg += fmt.Sprintf(" Enabled but unable to start, so their tools are missing: %s (`riot plugins` says why).", strings.Join(broken, ", "))
	}
	ws, _ := a.workspace()
	if hint := notEnabledHint(a.statuses, name, ws); hint != "" {
		msg += "\n" + hint
	}
	return usageErr("%s", msg)
}

// notEnabledHint says which discovered plugins are not enabled, so their
// tools cannot be called, and how to enable one. riot never starts a
// plugin that is not enabled, so it cannot know their tools: a plugin
// named like the tool is named as the likely one.
func notEnabledHint(statuses []core.PluginStatus, tool, ws string) string {
	var dormant []core.PluginStatus
	for _, st := range statuses {
		if !st.Enabled && st.Discovered != "" {
			dormant = append(dormant, st)
		}
	}
	if len(dormant) == 0 {
		return ""
	}
	for _, st := range dormant {
		if strings.EqualFold(st.Name, tool) {
			return fmt.Sprintf("%q is likely a tool of the plugin %s, which is discovered (%s, in %s) but not enabled. To enable it, %s",
				tool, st.Name, st.Path, st.Discovered, enableHint(ws, st.Name))
		}
	}
	var names []string
	for _, st := range dormant {
		names = append(names, st.Name)
	}
	return fmt.Sprintf("Discovered but not enabled, so their tools cannot be called: %s. If %q is one of theirs, enable its plugin: `riot plugins` shows how.",
		strings.Join(names, ", "), tool)
}
