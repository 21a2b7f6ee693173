package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

// MCPServer is one [mcp_servers.NAME] table, or one entry of a trusted
// workspace's .mcp.json: an MCP server whose tools riot serves as
// mcp__NAME__TOOL.
type MCPServer struct {
	Name string
	// Command, Args, Env and Cwd start a stdio server.
	// Cwd is relative to the file that says it.
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd" check:"relative_to_file"`
	// URL and Headers reach a Streamable HTTP server instead.
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers" secret:"true"`
	Enabled bool              `toml:"enabled"`
	// StartupTimeout bounds the start and the initialize handshake;
	// ToolTimeout one call. Zero means the host's defaults.
	StartupTimeout time.Duration `toml:"startup_timeout" unset:"limits.start_timeout"`
	ToolTimeout    time.Duration `toml:"tool_timeout" unset:"limits.call_timeout"`
	// IdleTimeout ends a call during which the server sent nothing (no
	// progress, no result) for this long. Zero means no idle limit.
	IdleTimeout time.Duration `toml:"idle_timeout" unset:"no idle limit"`
	// EnabledTools, if set, are the only tools served; DisabledTools are
	// never served.
	EnabledTools  []string `toml:"enabled_tools" unset:"every tool"`
	DisabledTools []string `toml:"disabled_tools"`
	// ReadOnlyTools are the tools the user declares read-only: the one way
	// an MCP tool is treated as read-only, since a server's annotations are
	// untrusted.
	ReadOnlyTools []string `toml:"read_only_tools"`
	// DeferLoading says whether the server's tools are deferred: kept out
	// of the model's first view of tools[] until ToolSearch finds them.
	// Unset (nil) defers a server that serves more than [mcp]
	// defer_threshold tools.
	DeferLoading *bool `toml:"defer_loading" unset:"deferred above mcp.defer_threshold tools"`
	Source       Source
}

// Deferred reports whether the server's tools are deferred, given how many
// it serves and the [mcp] defer_threshold.
func (s MCPServer) Deferred(tools, threshold int) bool {
	if s.DeferLoading != nil {
		return *s.DeferLoading
	}
	return tools > threshold
}

// Serves reports whether the server's tool is served at all.
func (s MCPServer) Serves(tool string) bool {
	if slices.Contains(s.DisabledTools, tool) {
		return false
	}
	return s.EnabledTools == nil || slices.Contains(s.EnabledTools, tool)
}

// mcpName keeps mcp__NAME__TOOL unambiguous: no double underscore.
// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var mcpName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]+([-_]?[A-Za-z0-9]+)*$`) })

// MaxMCPServerName is the longest server name: the model APIs take tool
// names of at most 64 characters, and mcp__NAME__TOOL must leave at least
// one for the tool.
const MaxMCPServerName = 64 - len("mcp__") - len("__") - 1

// badMCPName says why name cannot name an MCP server, or "".
func badMCPName(name string) string {
	switch {
	case !mcpName().MatchString(name):
		return fmt.Sprintf("MCP server name %q must be letters, digits, and single - or _ between them, as in mcp__NAME__TOOL", name)
	case len(name) > MaxMCPServerName:
		return fmt.Sprintf("MCP server name %q is %d characters; riot names its tools mcp__NAME__TOOL, which the model APIs cap at 64 characters, so use a name of at most %d", name, len(name), MaxMCPServerName)
	}
	return ""
}

func (s *MCPServer) begin(name string, src Source) { s.Name, s.Enabled, s.Source = name, true, src }

// finish checks a server once a layer's [mcp_servers.NAME] is merged: it
// is then where that layer wrote it.
func (s *MCPServer) finish(_ []string, src Source) error {
	s.Source = src
	if msg := badMCPName(s.Name); msg != "" {
		return &Error{Source: src, Msg: msg}
	}
	return s.check()
}

func (s MCPServer) check() error {
	switch {
	case s.Command == "" && s.URL == "":
		return &Error{Source: s.Source, Msg: fmt.Sprintf("[mcp_servers.%s] needs a command (a stdio server) or a url (a Streamable HTTP server)", s.Name)}
	case s.Command != "" && s.URL != "":
		return &Error{Source: s.Source, Msg: fmt.Sprintf("[mcp_servers.%s] sets both command and url; keep the one the server speaks", s.Name)}
	}
	return nil
}

// MCPJSONFile is a project's MCP server list in Claude Code's format.
const MCPJSONFile = ".mcp.json"

// LoadMCPJSON adds the servers of the workspace's .mcp.json after those of
// the config, which keep their entries where both name a server. It is read
// outside Load's layers, so it checks the trust itself: unless the trust
// record vouches for its content (the workspace is trusted with the file as
// it is now), the file starts nothing, and is recorded as ignored.
func (c *Config) LoadMCPJSON(workspace string) error {
	if workspace == "" {
		return nil
	}
	path := filepath.Join(workspace, MCPJSONFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	src := Source{Layer: "workspace", File: path}
	if err != nil {
		return &Error{Source: src, Msg: "cannot read the file: " + err.Error()}
	}
	if c.Trust.Workspace == "" {
		c.Trust.Workspace = workspace
	}
	if err := c.lookupTrust(); err != nil {
		return err
	}
	if !c.Trust.gateFile(MCPJSONFile, path, trust.Sum(data)) {
		c.Trust.Ignored = append(c.Trust.Ignored, Ignored{Key: "mcpServers", Source: src})
		return nil
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return &Error{Source: src, Msg: "this is not JSON in Claude Code's .mcp.json format ({\"mcpServers\": {...}})"}
	}
	names := orderedKeys(data)
	for _, name := range names {
		if slices.ContainsFunc(c.MCPServers, func(s MCPServer) bool { return s.Name == name }) {
			continue
		}
		var e struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			// DeferLoading is riot's own key: Claude Code ignores what
			// it does not know.
			DeferLoading *bool `json:"defer_loading"`
		}
		if err := json.Unmarshal(doc.MCPServers[name], &e); err != nil {
			return &Error{Source: src, Msg: fmt.Sprintf("mcpServers.%s: each server is an object with command, args and env, or type \"http\", url and headers (and, for riot, defer_loading true or false)", name)}
		}
		if msg := badMCPName(name); msg != "" {
			return &Error{Source: src, Msg: "mcpServers: " + msg}
		}
		s := MCPServer{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers, DeferLoading: e.DeferLoading, Enabled: true, Source: src}
		if e.Type != "" && e.Type != "stdio" && e.Type != "http" {
			return &Error{Source: src, Msg: fmt.Sprintf("mcpServers.%s: type %q is not one riot speaks; use \"stdio\" or \"http\" (Streamable HTTP)", name, e.Type)}
		}
		if err := s.check(); err != nil {
			return err
		}
		c.MCPServers = append(c.MCPServers, s)
	}
	return nil
}

// orderedKeys are the keys of data's mcpServers object in file order (a Go
// map has none).
func orderedKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !enterObject(dec, "mcpServers") {
		return nil
	}
	var names []string
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return names
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
		if s, ok := name.(string); ok && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	return names
}
