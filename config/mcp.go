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
)

// MCPServer is one [mcp_servers.NAME] table, or one entry of a trusted
// workspace's .mcp.json: an MCP server whose tools riot serves as
// mcp__NAME__TOOL.
type MCPServer struct {
	Name string
	// Command, Args, Env and Cwd start a stdio server.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers reach a Streamable HTTP server instead.
	URL     string
	Headers map[string]string
	Enabled bool
	// StartupTimeout bounds the start and the initialize handshake;
	// ToolTimeout one call. Zero means the host's defaults.
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
	// EnabledTools, if set, are the only tools served; DisabledTools are
	// never served.
	EnabledTools  []string
	DisabledTools []string
	// ReadOnlyTools are the tools the user declares read-only: the one way
	// an MCP tool is treated as read-only, since a server's annotations are
	// untrusted.
	ReadOnlyTools []string
	Source        Source
}

// Serves reports whether the server's tool is served at all.
func (s MCPServer) Serves(tool string) bool {
	if slices.Contains(s.DisabledTools, tool) {
		return false
	}
	return s.EnabledTools == nil || slices.Contains(s.EnabledTools, tool)
}

type mcpServerLayer struct {
	Command        *string           `toml:"command"`
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	Cwd            *string           `toml:"cwd"`
	URL            *string           `toml:"url"`
	Headers        map[string]string `toml:"headers"`
	Enabled        *bool             `toml:"enabled"`
	StartupTimeout *duration         `toml:"startup_timeout"`
	ToolTimeout    *duration         `toml:"tool_timeout"`
	EnabledTools   []string          `toml:"enabled_tools"`
	DisabledTools  []string          `toml:"disabled_tools"`
	ReadOnlyTools  []string          `toml:"read_only_tools"`
}

var mcpServerKeys = []string{"command", "args", "env", "cwd", "url", "headers", "enabled", "startup_timeout", "tool_timeout", "enabled_tools", "disabled_tools", "read_only_tools"}

// mcpName keeps mcp__NAME__TOOL unambiguous: no double underscore.
// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var mcpName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]+([-_]?[A-Za-z0-9]+)*$`) })

// applyMCPServer merges one layer's [mcp_servers.NAME] into c.
func (c *Config) applyMCPServer(l *parsedLayer, name string, ml *mcpServerLayer) error {
	if !mcpName().MatchString(name) {
		return &Error{Source: l.at("mcp_servers", name), Msg: fmt.Sprintf("MCP server name %q must be letters, digits, and single - or _ between them, as in mcp__NAME__TOOL", name)}
	}
	if ml == nil {
		// Nothing of it applies, as in an untrusted workspace's file.
		return nil
	}
	i := slices.IndexFunc(c.MCPServers, func(s MCPServer) bool { return s.Name == name })
	if i < 0 {
		c.MCPServers = append(c.MCPServers, MCPServer{Name: name, Enabled: true, Source: l.at("mcp_servers", name)})
		i = len(c.MCPServers) - 1
	}
	s := &c.MCPServers[i]
	str := func(p *string, out *string) {
		if p != nil {
			*out = *p
		}
	}
	str(ml.Command, &s.Command)
	str(ml.URL, &s.URL)
	if ml.Cwd != nil {
		s.Cwd = *ml.Cwd
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) && l.src.File != "" {
			s.Cwd = filepath.Join(filepath.Dir(l.src.File), s.Cwd)
		}
	}
	if ml.Args != nil {
		s.Args = ml.Args
	}
	if ml.Env != nil {
		s.Env = mergeMap(s.Env, ml.Env)
	}
	if ml.Headers != nil {
		s.Headers = mergeMap(s.Headers, ml.Headers)
	}
	if ml.Enabled != nil {
		s.Enabled = *ml.Enabled
	}
	if ml.StartupTimeout != nil {
		s.StartupTimeout = ml.StartupTimeout.Duration
	}
	if ml.ToolTimeout != nil {
		s.ToolTimeout = ml.ToolTimeout.Duration
	}
	if ml.EnabledTools != nil {
		s.EnabledTools = ml.EnabledTools
	}
	if ml.DisabledTools != nil {
		s.DisabledTools = ml.DisabledTools
	}
	if ml.ReadOnlyTools != nil {
		s.ReadOnlyTools = ml.ReadOnlyTools
	}
	s.Source = l.at("mcp_servers", name)
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

func mergeMap(dst, src map[string]string) map[string]string {
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// MCPJSONFile is a project's MCP server list in Claude Code's format.
const MCPJSONFile = ".mcp.json"

// LoadMCPJSON adds the servers of the workspace's .mcp.json after those of
// the config, which keep their entries where both name a server. It is read
// outside Load's layers, so it checks the trust itself: in a workspace that
// is not trusted the file starts nothing, and is recorded as ignored.
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
	if !c.Trust.Trusted() {
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
		}
		if err := json.Unmarshal(doc.MCPServers[name], &e); err != nil {
			return &Error{Source: src, Msg: fmt.Sprintf("mcpServers.%s: each server is an object with command, args and env, or type \"http\", url and headers", name)}
		}
		if !mcpName().MatchString(name) {
			return &Error{Source: src, Msg: fmt.Sprintf("MCP server name %q must be letters, digits, and single - or _ between them", name)}
		}
		s := MCPServer{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers, Enabled: true, Source: src}
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
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "mcpServers" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
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
	return nil
}
