package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/trust"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// workspaceConfig is the workspace's config file, which `riot plugins
// install SOURCE` and `remove` edit.
func workspaceConfig(ws string) string { return filepath.Join(ws, ".riot", "config.toml") }

// declaredTables reads which [plugins.NAME] tables the workspace config
// has, and with what source.
func declaredTables(path string) (map[string]string, []byte, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil, nil
	}
	if err != nil {
		return nil, nil, usageErr("cannot read %s: %v", path, err)
	}
	var f struct {
		Plugins map[string]map[string]any `toml:"plugins"`
	}
	if _, err := toml.Decode(string(data), &f); err != nil {
		return nil, nil, usageErr("%s is not valid TOML (%v); fix it first", path, err)
	}
	out := map[string]string{}
	for name, t := range f.Plugins {
		src, _ := t["source"].(string)
		out[name] = src
	}
	return out, data, nil
}

// declarePlugin adds [plugins.NAME] with source and version to the
// workspace config, unless it declares that source already.
func declarePlugin(ws, name, source, version string) error {
	path := workspaceConfig(ws)
	declared, err := canDeclare(ws, name, source)
	if err != nil || declared {
		return err
	}
	_, data, err := declaredTables(path)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.Write(data)
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		b.WriteString("\n")
	}
	if len(data) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "[plugins.%s]\nenabled = true\nsource = %s\n", name, strconv.Quote(source))
	if version != "" {
		fmt.Fprintf(&b, "version = %s\n", strconv.Quote(version))
	}
	return writeWorkspaceConfig(ws, data, []byte(b.String()))
}

// canDeclare reports whether the workspace config declares name with
// source already, and refuses a [plugins.NAME] it has without it, which
// riot does not edit.
func canDeclare(ws, name, source string) (bool, error) {
	path := workspaceConfig(ws)
	tables, _, err := declaredTables(path)
	if err != nil {
		return false, err
	}
	src, ok := tables[name]
	if ok && src != source {
		return false, usageErr("%s already has [plugins.%s]; add source = %s there (and version, for a Go package) by hand, or choose another name with --name", path, name, strconv.Quote(source))
	}
	return ok, nil
}

// undeclarePlugin removes [plugins.NAME] and its subtables from the
// workspace config; it reports whether the file had them.
func undeclarePlugin(ws, name string) (bool, error) {
	path := workspaceConfig(ws)
	tables, data, err := declaredTables(path)
	if err != nil {
		return false, err
	}
	if _, ok := tables[name]; !ok {
		return false, nil
	}
	var out []string
	skipping := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			header := strings.TrimSpace(strings.Trim(t, "[]"))
			if i := strings.Index(header, "#"); i >= 0 {
				header = strings.TrimSpace(header[:i])
			}
			skipping = header == "plugins."+name || strings.HasPrefix(header, "plugins."+name+".")
		}
		if !skipping {
			out = append(out, line)
		}
	}
	text := strings.TrimRight(strings.Join(out, ""), "\n")
	if text != "" {
		text += "\n"
	}
	if after, err := remainingTables(text); err != nil || after[name] {
		return false, usageErr("%s declares [plugins.%s] in a form riot cannot remove safely (such as a dotted key or an inline table); remove it by hand", path, name)
	}
	return true, writeWorkspaceConfig(ws, data, []byte(text))
}

// writeWorkspaceConfig replaces the workspace config, read as old, with
// text: the edit of riot plugins install or remove, the user's command. In
// a trusted workspace whose config is still the one the user trusted, the
// new content is recorded as the user's in the same step
// (trust.Store.Amend), so that it applies; otherwise it is only written,
// and waits for riot trust as any other change does.
func writeWorkspaceConfig(ws string, old, text []byte) error {
	path := workspaceConfig(ws)
	st := trust.ForConfigDir(config.UserConfigDir(os.Getenv))
	_, err := st.Amend(ws, ".riot/config.toml", func(now []byte) ([]byte, error) {
		if !bytes.Equal(now, old) {
			return nil, usageErr("%s changed while riot edited it; run the command again", path)
		}
		return text, nil
	}, time.Now())
	if errors.Is(err, trust.ErrNotVouched) || errors.Is(err, trust.ErrNotDir) || errors.Is(err, trust.ErrPath) {
		return atomicfile.Write(path, text, 0o644)
	}
	return err
}

// remainingTables parses text for the plugin tables it has.
func remainingTables(text string) (map[string]bool, error) {
	var f struct {
		Plugins map[string]any `toml:"plugins"`
	}
	if _, err := toml.Decode(text, &f); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for name := range f.Plugins {
		out[name] = true
	}
	return out, nil
}
