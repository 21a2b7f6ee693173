package core

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/riot-tools/riot/shared"
)

// lockedOrder holds a locked plugin's manifest to the lock: tools[] is
// part of every session's prompt-cache prefix, so a tool removed or moved
// is refused until a riot command records it, and a new tool goes after
// the locked ones. An unlocked plugin's tools are its manifest's.
func lockedOrder(spec PluginSpec, tools []shared.ToolSpec) ([]shared.ToolSpec, error) {
	if spec.Lock == nil {
		return tools, nil
	}
	byName := map[string]shared.ToolSpec{}
	var served []string
	for _, t := range tools {
		byName[t.Name] = t
		served = append(served, t.Name)
	}
	var missing []string
	for _, name := range spec.Lock.Tools {
		if _, ok := byName[name]; !ok {
			missing = append(missing, name)
		}
	}
	fix := fmt.Sprintf("Its tools are unavailable until the user records the change with `riot plugins upgrade %s` (or reinstalls the locked version with `riot plugins install %s`); use another tool meanwhile.", spec.Name, spec.Name)
	if len(missing) > 0 {
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin no longer serves %s, which %s records. %s", spec.Name, quoteList(missing), spec.Lock.File, fix)}
	}
	var kept []string
	for _, name := range served {
		if slices.Contains(spec.Lock.Tools, name) {
			kept = append(kept, name)
		}
	}
	if !slices.Equal(kept, spec.Lock.Tools) {
		return nil, &startError{Msg: fmt.Sprintf("The %s plugin serves its tools in another order (%s) than %s records (%s). %s", spec.Name, strings.Join(kept, ", "), spec.Lock.File, strings.Join(spec.Lock.Tools, ", "), fix)}
	}
	out := make([]shared.ToolSpec, 0, len(tools))
	for _, name := range spec.Lock.Tools {
		out = append(out, byName[name])
	}
	for _, t := range tools {
		if !slices.Contains(spec.Lock.Tools, t.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// gpPluginVersion finds the plugin's version in go-plugin's mismatch text.
var gpPluginVersion = regexp.MustCompile(`Plugin version: (\d+)`)

// retiredProtocol is the newest protocol version an SDK served beside
// version 1 before version 1 became the only one (issue 31): a plugin that
// speaks it or an older one is of an older SDK, not of a newer riot.
const retiredProtocol = 3

// protocolMessage explains a plugin that speaks a protocol version this
// riot does not: which one it speaks, the one riot speaks, and what to
// rebuild it with; for a version past any riot spoke, also to upgrade riot.
func protocolMessage(name, goPluginMsg string) string {
	speaks := "another protocol version"
	newer := false
	if m := gpPluginVersion.FindStringSubmatch(goPluginMsg); m != nil {
		speaks = "protocol version " + m[1]
		v, _ := strconv.Atoi(m[1])
		newer = v > retiredProtocol
	}
	fix := fmt.Sprintf("Rebuild it with this riot's SDK (go get %s@<the version `riot version` prints>, then build it again), or install a release of it built for protocol %d.", shared.SDKModule, shared.ProtocolVersion)
	if newer {
		fix = "Upgrade riot to a version that speaks it, or " + strings.ToLower(fix[:1]) + fix[1:]
	}
	return fmt.Sprintf("The %s plugin speaks %s, and this riot speaks protocol %d only. %s", name, speaks, shared.ProtocolVersion, fix)
}
