package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

// ClaudeSettingsFiles are the workspace's Claude Code settings, relative
// to the workspace, whose hooks [hooks] import_claude reads, in Claude
// Code's order: the shared file, then the user's own, uncommitted one.
func ClaudeSettingsFiles() []string {
	return []string{".claude/settings.json", ".claude/settings.local.json"}
}

// claudeTimeout is Claude Code's timeout of a hook that sets none, kept
// for imported hooks so that they behave as they do there.
const claudeTimeout = 600 * time.Second

// importClaudeHooks appends, when [hooks] import_claude is set, the hooks
// of the user's ~/.claude/settings.json, then those of the workspace's
// .claude/settings.json, after the config's own. The workspace's file is
// gated like every workspace file: unless the trust record vouches for its
// content, none of its hooks runs, and it is recorded as ignored. Events
// riot does not run (UserPromptSubmit, Stop, ...) are skipped: they belong
// to the agent.
func (c *Config) importClaudeHooks(workspace string, getenv func(string) string) error {
	if !c.Hooks.ImportClaude {
		return nil
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = HomeDir()
	}
	var user string
	if home != "" {
		user = filepath.Join(home, ".claude", "settings.json")
		if err := c.importClaudeFile(user, "", "user", false); err != nil {
			return err
		}
	}
	if workspace == "" {
		return nil
	}
	for _, name := range ClaudeSettingsFiles() {
		path := filepath.Join(workspace, name)
		if path == user {
			continue // the workspace is the home directory: read once, as the user's
		}
		if err := c.importClaudeFile(path, name, "workspace", true); err != nil {
			return err
		}
	}
	return nil
}

// importClaudeFile reads one settings file; a gated one is the
// workspace's file name, read only as the trust record vouches for it.
func (c *Config) importClaudeFile(path, name, layer string, gated bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	src := Source{Layer: layer, File: path}
	if err != nil {
		return &Error{Source: src, Msg: "cannot read the file: " + err.Error()}
	}
	if gated {
		if c.Trust.Workspace == "" {
			c.Trust.Workspace = filepath.Dir(filepath.Dir(path))
		}
		if err := c.lookupTrust(); err != nil {
			return err
		}
		if !c.Trust.gateFile(name, path, trust.Sum(data)) {
			if hasClaudeHooks(data) {
				c.Trust.Ignored = append(c.Trust.Ignored, Ignored{Key: "hooks", Source: src})
			}
			return nil
		}
	}
	hooks, err := parseClaudeHooks(data, src)
	if err != nil {
		return err
	}
	for _, ev := range HookEvents() {
		*c.Hooks.Event(ev) = append(*c.Hooks.Event(ev), hooks[ev]...)
	}
	return nil
}

// hasClaudeHooks reports whether a settings file sets any hook: only then
// is an untrusted one worth a warning.
func hasClaudeHooks(data []byte) bool {
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	return json.Unmarshal(data, &doc) == nil && len(doc.Hooks) > 0
}

// claudeHandler is one handler of a matcher group, as Claude Code's
// settings write it.
type claudeHandler struct {
	Type           string            `json:"type"`
	Command        string            `json:"command"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	AllowedEnvVars []string          `json:"allowedEnvVars"`
	// Timeout is in seconds.
	Timeout *float64 `json:"timeout"`
	If      string   `json:"if"`
	Async   bool     `json:"async"`
	// AsyncRewake is async whose exit 2 wakes the agent: in riot every
	// async hook's exit 2 reaches the model at the next turn.
	AsyncRewake bool `json:"asyncRewake"`
	Once        bool `json:"once"`
}

// parseClaudeHooks reads the hooks of a Claude Code settings file, by
// event, each located at its matcher group's line.
func parseClaudeHooks(data []byte, src Source) (map[string][]Hook, error) {
	var doc struct {
		DisableAllHooks bool                       `json:"disableAllHooks"`
		Hooks           map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Source: src, Msg: "this is not JSON in Claude Code's settings format ({\"hooks\": {\"PreToolUse\": [...]}})"}
	}
	if doc.DisableAllHooks {
		return nil, nil
	}
	lines := groupLines(data)
	out := map[string][]Hook{}
	for ev, raw := range doc.Hooks {
		if !slices.Contains(HookEvents(), ev) {
			continue // an event of the agent's, not of a tool host
		}
		var groups []struct {
			Matcher string          `json:"matcher"`
			Hooks   []claudeHandler `json:"hooks"`
		}
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, &Error{Source: src, Msg: fmt.Sprintf("hooks.%s: each entry is an object with a matcher and a list of hooks ({\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"...\"}]})", ev)}
		}
		for i, g := range groups {
			at := src
			if i < len(lines[ev]) {
				at.Line = lines[ev][i]
			}
			for _, ch := range g.Hooks {
				h := Hook{Matcher: g.Matcher, Type: ch.Type, Command: ch.Command, URL: ch.URL, Headers: ch.Headers, AllowedEnvVars: ch.AllowedEnvVars, Timeout: claudeTimeout,
					Async: ch.Async || ch.AsyncRewake, Once: ch.Once, Source: at}
				if ToolEvent(ev) {
					h.If = ch.If // Claude Code ignores it on other events
				}
				if ch.Timeout != nil {
					if *ch.Timeout <= 0 {
						return nil, &Error{Source: at, Msg: fmt.Sprintf("hooks.%s: a hook's timeout must be more than zero seconds", ev)}
					}
					h.Timeout = time.Duration(*ch.Timeout * float64(time.Second))
				}
				if err := h.check("hooks."+ev+" entry", at); err != nil {
					return nil, err
				}
				out[ev] = append(out[ev], h)
			}
		}
	}
	return out, nil
}

// groupLines are, by event, the lines of the matcher groups of a settings
// file's hooks, in order: where each group's "matcher" is, or the group's
// opening brace when it has none.
func groupLines(data []byte) map[string][]int {
	out := map[string][]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func(off int64) int { return bytes.Count(data[:min(int(off), len(data))], []byte("\n")) + 1 }
	if !enterObject(dec, "hooks") {
		return out
	}
	for dec.More() {
		ev, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := ev.(string)
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return out
		}
		for dec.More() {
			start := dec.InputOffset()
			var g json.RawMessage
			if dec.Decode(&g) != nil {
				return out
			}
			// The element starts after the separator and blanks.
			for int(start) < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
				start++
			}
			line := lineAt(start)
			if i := bytes.Index(g, []byte(`"matcher"`)); i >= 0 {
				line += bytes.Count(g[:i], []byte("\n"))
			}
			out[name] = append(out[name], line)
		}
		if _, err := dec.Token(); err != nil { // ]
			return out
		}
	}
	return out
}

// enterObject moves dec, at the start of a JSON document, into the object
// that its top-level key holds; false when there is none.
func enterObject(dec *json.Decoder, key string) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == key {
			t, err := dec.Token()
			return err == nil && t == json.Delim('{')
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
