package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// layer is one config file as written: a nil field was not set there.
type layer struct {
	StateDir    *string                 `toml:"state_dir"`
	PluginDirs  []string                `toml:"plugin_dirs"`
	Permissions *permLayer              `toml:"permissions"`
	Limits      *limitsLayer            `toml:"limits"`
	Results     *resultsLayer           `toml:"results"`
	Log         *logLayer               `toml:"log"`
	Plugins     map[string]*pluginLayer `toml:"plugins"`
	Hooks       *hooksLayer             `toml:"hooks"`
}

type permLayer struct {
	Mode           *string          `toml:"mode"`
	Allow          []string         `toml:"allow"`
	Ask            []string         `toml:"ask"`
	Deny           []string         `toml:"deny"`
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
	"":                       {"state_dir", "plugin_dirs", "permissions", "limits", "results", "log", "plugins", "hooks"},
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
	src     Source
	loc     locator
	order   []string // plugin names in file order
	defined func(key ...string) bool
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
	return parseLayer(data, Source{Layer: layerName, File: path})
}

func parseLayer(data []byte, src Source) (*parsedLayer, error) {
	p := &parsedLayer{src: src, loc: newLocator(string(data))}
	md, err := toml.Decode(string(data), &p.layer)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			at := src
			at.Line = pe.Position.Line
			return nil, &Error{Source: at, Msg: tomlMessage(pe)}
		}
		return nil, typeError(err, src)
	}
	p.defined = md.IsDefined
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return nil, p.unknownKey(undecoded[0])
	}
	for _, k := range md.Keys() {
		if len(k) == 2 && k[0] == "plugins" && !slices.Contains(p.order, k[1]) {
			p.order = append(p.order, k[1])
		}
	}
	return p, nil
}

func (p *parsedLayer) at(key ...string) Source {
	s := p.src
	s.Line = p.loc.line(key)
	return s
}

func (p *parsedLayer) unknownKey(k toml.Key) error {
	key := []string(k)
	table := strings.Join(key[:len(key)-1], ".")
	if len(key) == 3 && key[0] == "plugins" {
		table = "plugins.*"
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

// tomlMessage drops the toml package's prefix; the line is in the Source.
func tomlMessage(pe toml.ParseError) string {
	msg := pe.Message
	if pe.LastKey != "" {
		msg = fmt.Sprintf("%s: %s", pe.LastKey, msg)
	}
	return msg
}

var (
	errLine  = regexp.MustCompile(`line (\d+) \(last key "([^"]*)"\)`)
	errTypes = regexp.MustCompile(`TOML value has type (\w+); destination has type (\w+)`)
)

// typeError rewrites the toml package's type mismatch, which carries its
// line only in its text.
func typeError(err error, src Source) error {
	msg := err.Error()
	if m := errLine.FindStringSubmatch(msg); m != nil {
		src.Line, _ = strconv.Atoi(m[1])
		key := m[2][strings.LastIndexByte(m[2], '.')+1:]
		if t := errTypes.FindStringSubmatch(msg); t != nil {
			return &Error{Source: src, Msg: fmt.Sprintf("%s must be %s, not %s", key, article(t[2]), article(t[1]))}
		}
		_, rest, _ := strings.Cut(msg, "): ")
		return &Error{Source: src, Msg: key + ": " + rest}
	}
	return &Error{Source: src, Msg: strings.TrimPrefix(msg, "toml: ")}
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "inline table":
		return "an " + typ
	default:
		return "a " + typ
	}
}
