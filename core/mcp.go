package core

import (
	"path/filepath"

	"github.com/riot-tools/riot/core/mcpsource"
)

// addMCPServers appends a tool source for each enabled MCP server, after
// the plugins and host tools, in config order. Each is served in-process
// through the tool contract; mcpsource supervises the server process.
func (h *Host) addMCPServers() {
	if len(h.cfg.MCPServers) == 0 {
		return
	}
	h.mcpCache = mcpsource.LoadCache(filepath.Join(h.stateDir, "cache", "mcp-tools.json"))
	for _, srv := range h.cfg.MCPServers {
		if !srv.Enabled {
			continue
		}
		log := h.log.Named("mcp." + srv.Name)
		src := mcpsource.New(mcpsource.Options{
			Server: srv, Roots: h.roots(), Cache: h.mcpCache, Now: h.now, Log: log,
			StartupTimeout: h.startTimeout, ToolTimeout: h.cfg.Limits.CallTimeout,
		})
		spec := PluginSpec{Name: mcpsource.Prefix + srv.Name, Timeout: src.CallTimeout(), impl: src}
		h.mcp = append(h.mcp, src)
		h.plugins = append(h.plugins, &pluginProc{h: h, spec: spec, log: log, fileLog: h.fileLog.Named("mcp." + srv.Name)})
	}
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
			info.Tools = append(info.Tools, t.GetName())
		}
		if err, ok := h.startErrs[mcpsource.Prefix+src.Name()]; ok && info.Problem == "" {
			info.Problem = err.Error()
		}
		out = append(out, info)
	}
	return out
}
