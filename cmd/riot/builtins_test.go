package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// The one list the host orders builtin tools by names every tool the
// builtins serve, and nothing else: a builtin tool missing from it would
// fall to the end of the builtins, where it may move when one is added.
func TestBuiltinToolsAreListed(t *testing.T) {
	var served []string
	for _, tools := range builtins() {
		for _, h := range tools() {
			served = append(served, h.Name())
		}
	}
	slices.Sort(served)
	listed := config.BuiltinTools()
	slices.Sort(listed)
	if !slices.Equal(served, listed) {
		t.Fatalf("builtins serve %v; config.BuiltinTools lists %v", served, listed)
	}
}

// config.Builtins is the one registry of builtin tool sets: the tool sets
// riot serves, the plugins the embedded defaults declare, the standalone mains
// under plugins/*/cmd (which the Makefile and bench scripts build) and the standalone binaries' Serve (read-only or not) follow it.
func TestBuiltinRegistryAgrees(t *testing.T) {
	want := config.BuiltinNames()
	served := builtinNames()
	if !slices.Equal(served, slices.Sorted(slices.Values(want))) {
		t.Errorf("riot serves %v; config.Builtins has %v", served, want)
	}
	var declared []string
	for _, p := range mustDefaults(t).Plugins {
		declared = append(declared, p.Name)
	}
	if !slices.Equal(declared, want) {
		t.Errorf("defaults.toml declares the plugins %v; config.Builtins has %v, in that order", declared, want)
	}
	mains, err := filepath.Glob(filepath.Join("..", "..", "plugins", "*", "cmd", "riot-tool-*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var standalone []string
	for _, m := range mains {
		standalone = append(standalone, strings.TrimPrefix(filepath.Base(filepath.Dir(m)), "riot-tool-"))
	}
	if !slices.Equal(slices.Sorted(slices.Values(standalone)), served) {
		t.Errorf("plugins/*/cmd has standalone mains for %v, which the Makefile and bench scripts build; config.Builtins has %v", standalone, want)
	}
	for _, b := range config.Builtins() {
		src, err := os.ReadFile(filepath.Join("..", "..", "plugins", b.Name, "cmd", "riot-tool-"+b.Name, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		serve := "plugin.Serve("
		switch {
		case b.ReadOnly:
			serve = "plugin.ServeReadOnly("
		case b.NoProcesses:
			serve = "plugin.ServeWithoutProcesses("
		}
		if !strings.Contains(string(src), serve) {
			t.Errorf("riot-tool-%s does not call %s, as config.Builtins says it serves", b.Name, serve)
		}
	}
}

func mustDefaults(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{Workspace: t.TempDir(), UserFile: filepath.Join(t.TempDir(), "none.toml"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
