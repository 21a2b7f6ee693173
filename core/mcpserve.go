package core

import "time"

// MCPProgressInterval is [mcp] progress_interval: how long a call through
// riot mcp runs before the client is told it is alive, and how often after.
func (h *Host) MCPProgressInterval() time.Duration { return h.cfg.MCP.ProgressInterval }
