package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// layer is one config file as written: a nil field was not set there.
//
// A key that only tightens (it can make riot ask or deny, never allow, run
// or reach more) says so with the tag trust:"tighten"; an untrusted
// workspace file keeps only those (gate.go). Any other key, including one
// added later without the tag, is ignored there.
type layer struct {
	StateDir    *string                    `toml:"state_dir"`
	PluginDirs  []string                   `toml:"plugin_dirs"`
	Permissions *permLayer                 `toml:"permissions"`
	Limits      *limitsLayer               `toml:"limits"`
	Results     *resultsLayer              `toml:"results"`
	Log         *logLayer                  `toml:"log"`
	Plugins     map[string]*pluginLayer    `toml:"plugins"`
	Sandbox     *sandboxLayer              `toml:"sandbox"`
	Hooks       *hooksLayer                `toml:"hooks"`
	MCPServers  map[string]*mcpServerLayer `toml:"mcp_servers"`
	Serve       *serveLayer                `toml:"serve"`
}

type permLayer struct {
	Mode           *string          `toml:"mode"`
	Allow          []string         `toml:"allow"`
	Ask            []string         `toml:"ask" trust:"tighten"`
	Deny           []string         `toml:"deny" trust:"tighten"`
	AdditionalDirs []string         `toml:"additional_dirs"`
	Classifier     *classifierLayer `toml:"classifier"`
}

type classifierLayer struct {
	URL     *string   `toml:"url"`
	Model   *string   `toml:"model"`
	Timeout *duration `toml:"timeout"`
}

type limitsLayer struct {
	MaxParallel     *int      `toml:"max_parallel"`
	TurnBudgetChars *int      `toml:"turn_budget_chars"`
	CallTimeout     *duration `toml:"call_timeout"`
	StartTimeout    *duration `toml:"start_timeout"`
}

type resultsLayer struct {
	MaxAge     *duration `toml:"max_age"`
	MaxTotalMB *int      `toml:"max_total_mb"`
}

type logLayer struct {
	Level     *string `toml:"level"`
	File      *string `toml:"file"`
	MaxSizeMB *int    `toml:"max_size_mb"`
}

type pluginLayer struct {
	Enabled *bool             `toml:"enabled"`
	Source  *string           `toml:"source"`
	Version *string           `toml:"version"`
	Path    *string           `toml:"path"`
	SHA256  *string           `toml:"sha256"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Timeout *duration         `toml:"timeout"`
}

// validKeys lists the keys of each table, for unknown-key suggestions.
var validKeys = map[string][]string{
	"":                       {"state_dir", "plugin_dirs", "permissions", "limits", "results", "log", "plugins", "hooks", "sandbox", "serve", "mcp_servers"},
	"sandbox":                sandboxKeys,
	"serve":                  serveKeys,
	"mcp_servers.*":          mcpServerKeys,
	"hooks":                  HookEvents,
	"hooks.PreToolUse":       hookKeys,
	"hooks.PostToolUse":      hookKeys,
	"permissions":            {"mode", "allow", "ask", "deny", "additional_dirs", "classifier"},
	"permissions.classifier": {"url", "model", "timeout"},
	"limits":                 {"max_parallel", "turn_budget_chars", "call_timeout", "start_timeout"},
	"results":                {"max_age", "max_total_mb"},
	"log":                    {"level", "file", "max_size_mb"},
	"plugins.*":              {"enabled", "source", "version", "path", "sha256", "args", "env", "timeout"},
}

// parsedLayer is a decoded file with what is needed to locate its keys.
type parsedLayer struct {
	layer
	sum      string // the file's SHA-256, in hex
	src      Source
	loc      locator
	order    []string // plugin names in file order
	mcpOrder []string // MCP server names in file order
	defined  func(key ...string) bool
}

// readLayer reads one config file; a file that does not exist is no layer.
func readLayer(path, layerName string) (*parsedLayer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Source: Source{Layer: layerName, File: path}, Msg: "cannot read the config file: " + err.Error()}
	}
	p, err := parseLayer(data, Source{Layer: layerName, File: path})
	if p != nil {
		p.sum = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	return p, err
}

func parseLayer(data []byte, src Source) (*parsedLayer, error) {
	p := &parsedLayer{src: src, loc: newLocator(string(data))}
	// A generic decode first: its only error is the syntax, a typed
	// toml.ParseError with the position; the types are riot's to check.
	var values map[string]any
	if _, err := toml.Decode(string(data), &values); err != nil {
		return nil, syntaxError(err, src)
	}
	if err := checkTypes(values, reflect.TypeFor[layer](), nil, p.at); err != nil {
		return nil, err
	}
	if err := p.decode(data); err != nil {
		return nil, err
	}
	return p, nil
}

// parseDefaults is parseLayer for the embedded defaults, without the
// generic decode that only finds the position of a wrong type: the
// defaults are riot's own, TestDefaultsParse checks them the whole way, and
// every start reads them.
func parseDefaults(data []byte) (*parsedLayer, error) {
	p := &parsedLayer{src: Source{Layer: "default"}}
	if err := p.decode(data); err != nil {
		return nil, err
	}
	return p, nil
}

// decode reads the layer into p's typed fields.
func (p *parsedLayer) decode(data []byte) error {
	src := p.src
	md, err := toml.Decode(string(data), &p.layer)
	if err != nil {
		// checkTypes accepts only what decodes; this is riot's bug.
		return &Error{Source: src, Msg: "riot cannot read this file, though its types are right; please report it with the file: " + err.Error()}
	}
	p.defined = md.IsDefined
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return p.unknownKey(undecoded[0])
	}
	for _, k := range md.Keys() {
		if len(k) == 2 && k[0] == "plugins" && !slices.Contains(p.order, k[1]) {
			p.order = append(p.order, k[1])
		}
		if len(k) == 2 && k[0] == "mcp_servers" && !slices.Contains(p.mcpOrder, k[1]) {
			p.mcpOrder = append(p.mcpOrder, k[1])
		}
	}
	return nil
}

func (p *parsedLayer) at(key ...string) Source {
	s := p.src
	s.Line = p.loc.line(key)
	return s
}

func (p *parsedLayer) unknownKey(k toml.Key) error {
	key := []string(k)
	table := strings.Join(key[:len(key)-1], ".")
	if len(key) == 3 && (key[0] == "plugins" || key[0] == "mcp_servers") {
		table = key[0] + ".*"
	}
	name := key[len(key)-1]
	msg := fmt.Sprintf("unknown key %q", name)
	if table != "" {
		msg = fmt.Sprintf("unknown key %q in [%s]", name, strings.Join(key[:len(key)-1], "."))
	}
	valid, known := validKeys[table]
	switch {
	case known:
		if s := nearest(name, valid); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += "; valid keys are " + strings.Join(valid, ", ")
		}
	case len(key) > 3 && key[0] == "plugins" && key[2] == "env":
		// Any name is valid in env; an undecoded one has a bad type.
		msg = fmt.Sprintf("[plugins.%s] env values must be strings", key[1])
	default:
		msg = fmt.Sprintf("unknown key %q", strings.Join(key, "."))
	}
	return &Error{Source: p.at(key...), Msg: msg}
}

// syntaxError is a TOML syntax error at its line. The toml package's
// message describes the syntax ("expected value but found '\n' instead");
// riot adds the key it was reading and says it is the syntax. A test pins
// each message riot relies on, so an upgrade that changes them fails it.
func syntaxError(err error, src Source) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{Source: src, Msg: "this is not a TOML file riot can read: " + err.Error()}
	}
	src.Line = pe.Position.Line
	msg := "TOML syntax: " + pe.Message
	if pe.LastKey != "" {
		msg = fmt.Sprintf("TOML syntax, after %s: %s", pe.LastKey, pe.Message)
	}
	return &Error{Source: src, Msg: msg}
}
