package core

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/riot-tools/riot/core/mcpsource"
)

// addMCPServers appends a tool source for each enabled MCP server, after
// the plugins and host tools, in config order. Each is served in-process
// through the tool contract; mcpsource supervises the server process.
func (h *Host) addMCPServers() {
	if len(h.cfg.MCPServers) == 0 {
		return
	}
	h.mcpCache = mcpsource.LoadCache(filepath.Join(h.stateDir, "cache", "mcp-tools.gob"))
	for _, srv := range h.cfg.MCPServers {
		if !srv.Enabled {
			continue
		}
		log := h.log.Named("mcp." + srv.Name)
		var elicitor mcpsource.Elicitor
		if e, ok := h.opts.Prompter.(mcpsource.Elicitor); ok {
			elicitor = notifyingElicitor{h: h, server: srv.Name, inner: e}
		}
		src := mcpsource.New(mcpsource.Options{
			Server: srv, Roots: h.roots(), Cache: h.mcpCache, Now: h.now, Log: log,
			StartupTimeout: h.startTimeout, ToolTimeout: h.cfg.Limits.CallTimeout, Elicitor: elicitor,
			OnToolsChanged: h.opts.OnToolsChanged,
		})
		spec := PluginSpec{Name: mcpsource.Prefix + srv.Name, Timeout: src.CallTimeout(), impl: src}
		p := &pluginProc{h: h, spec: spec, log: log, fileLog: h.fileLog.Named("mcp." + srv.Name)}
		h.mcp = append(h.mcp, src)
		h.mcpProcs = append(h.mcpProcs, p)
		h.plugins = append(h.plugins, p)
	}
	h.mcpSeen = make([]int, len(h.mcp))
}

// notifyingElicitor runs the Notification hooks (elicitation_dialog)
// when an MCP server's question is put to the user.
type notifyingElicitor struct {
	h      *Host
	server string
	inner  mcpsource.Elicitor
}

func (e notifyingElicitor) Elicit(ctx context.Context, from, message string, schema json.RawMessage) (string, map[string]any, error) {
	ctx = e.h.asking(ctx, "elicitation_dialog", fmt.Sprintf("the MCP server %s asks: %s", e.server, clip(message, 500)))
	return e.inner.Elicit(ctx, from, message, schema)
}

// closeMCP stops every MCP server and saves their tool lists.
func (h *Host) closeMCP() {
	for _, src := range h.mcp {
		_ = src.Close()
	}
	if h.mcpCache != nil {
		if err := h.mcpCache.Save(); err != nil {
			h.log.Warn("cannot save the MCP tool cache", "error", err)
		}
	}
}

// MCPServerInfo is one MCP server, for `riot plugins`.
type MCPServerInfo struct {
	Name    string
	State   string
	Tools   []string
	Problem string
}

// MCPServers lists the enabled MCP servers in order.
func (h *Host) MCPServers() []MCPServerInfo {
	var out []MCPServerInfo
	for _, src := range h.mcp {
		info := MCPServerInfo{Name: src.Name(), State: src.State(), Problem: src.Problem()}
		for _, t := range src.Tools() {
			info.Tools = append(info.Tools, t.Name)
		}
		if err, ok := h.startErrs[mcpsource.Prefix+src.Name()]; ok && info.Problem == "" {
			info.Problem = err.Error()
		}
		out = append(out, info)
	}
	return out
}

// MissingMCPTool says why name cannot be called when it is a tool of an
// MCP server that never started, so never listed its tools: the server
// and its cause (the timeout, the HTTP status), for the model. It is ""
// for any other name.
func (h *Host) MissingMCPTool(name string) string {
	if !strings.HasPrefix(name, mcpsource.Prefix) {
		return ""
	}
	// The longest server name that prefixes the tool's is its server.
	var owner *MCPServerInfo
	servers := h.MCPServers()
	for i, srv := range servers {
		if strings.HasPrefix(name, mcpsource.ToolName(srv.Name, "")) && (owner == nil || len(srv.Name) > len(owner.Name)) {
			owner = &servers[i]
		}
	}
	if owner == nil || owner.Problem == "" || len(owner.Tools) > 0 {
		return ""
	}
	return fmt.Sprintf("The %s MCP server did not start, so its tool %s cannot be called: %s", owner.Name, name, owner.Problem)
}

// startProblem is why the plugin named could not start: an MCP server's
// own cause rather than how its source stopped.
func (h *Host) startProblem(plugin string, err error) string {
	for _, src := range h.mcp {
		if mcpsource.Prefix+src.Name() == plugin && src.Problem() != "" {
			return src.Problem()
		}
	}
	return err.Error()
}

// lookup returns the named tool. A name with the MCP prefix that is not
// registered may be a tool a server added since: the registry is brought up
// to date first.
func (h *Host) lookup(name string) (*tool, bool) {
	h.regMu.RLock()
	t, ok := h.byName[name]
	h.regMu.RUnlock()
	if ok || !strings.HasPrefix(name, mcpsource.Prefix) {
		return t, ok
	}
	h.syncMCP()
	h.regMu.RLock()
	defer h.regMu.RUnlock()
	t, ok = h.byName[name]
	return t, ok
}

// toolList is tools[] in order, with the tools MCP servers added since at
// the end.
func (h *Host) toolList() []*tool {
	h.syncMCP()
	h.regMu.RLock()
	defer h.regMu.RUnlock()
	return slices.Clone(h.tools)
}

// syncMCP appends the tools MCP servers listed after the host was built
// (notifications/tools/list_changed), in server order: tools are never
// reordered or removed, so what the model saw stays valid.
// Each server's tools are looked at once: mcpSeen counts those seen.
func (h *Host) syncMCP() {
	h.regMu.Lock()
	defer h.regMu.Unlock()
	for i, src := range h.mcp {
		p := h.mcpProcs[i]
		added := src.ToolsFrom(h.mcpSeen[i])
		h.mcpSeen[i] += len(added)
		for _, spec := range added {
			if _, dup := h.byName[spec.Name]; dup {
				continue
			}
			t := &tool{spec: spec, plugin: p}
			h.tools = append(h.tools, t)
			h.byName[spec.Name] = t
		}
	}
}
