package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config/trust"
)

// Trust is what workspace trust decided for one load. Files in a
// workspace come from whoever wrote the repository, or from the model
// working in it, so a workspace file (ContentFiles) may only tighten
// unless the trust record vouches for its content: the user trusted the
// workspace when the file held exactly that, or riot wrote it so on the
// user's answer (trust.Status.Vouches). Until then .riot/plugins is not
// searched either.
type Trust struct {
	// Record is the trust record's file.
	Record string
	// Workspace is the directory whose files trust gates.
	Workspace string
	// State is what the record says of the workspace; it is looked up
	// whenever there is a workspace, whatever files it has.
	State trust.State
	// Ignored are the values workspace files set that were not applied,
	// in layer order.
	Ignored []Ignored
	// Changed are the files (and .riot/plugins) of a trusted workspace
	// whose loosening values were ignored because their content is not
	// the one the user trusted: changed or created since, or, when
	// Unsummed, of a trust recorded before riot kept sums.
	Changed []string
	// Unsummed says the workspace was trusted before riot recorded its
	// files' sums, so that no file of it is vouched for until riot trust
	// runs again.
	Unsummed bool
	// LocalSum is the SHA-256 of the .riot/config.local.toml read, in
	// hex; "" when there was none.
	LocalSum string
	// LocalPinned says that file is, byte for byte, the one riot wrote for
	// the user's "always allow" answers (trust.Entry.Local), and so applied
	// in full although the workspace is not trusted.
	LocalPinned bool
	// Sums are the SHA-256 sums of the workspace's ContentFiles this load
	// read, by name: what riot trust and the question on the terminal
	// record, so that trust covers the content the user was shown.
	Sums map[string]string

	status        trust.Status // the record's word
	searchPlugins bool         // .riot/plugins is vouched for
}

// gateFile decides whether the workspace file name (relative to the
// workspace), whose content has sum, applies in full, and reports it
// changed when the workspace is trusted but not that content.
func (t *Trust) gateFile(name, path, sum string) bool {
	if t.Sums == nil {
		t.Sums = map[string]string{}
	}
	t.Sums[name] = sum
	if t.status.Vouches(name, sum) {
		return true
	}
	if t.Trusted() && !slices.Contains(t.Changed, path) {
		t.Changed = append(t.Changed, path)
	}
	return false
}

// ChangedSince reports whether file's values were ignored because it
// changed since the user trusted the workspace (see Changed).
func (t Trust) ChangedSince(file string) bool { return slices.Contains(t.Changed, file) }

// SearchesPlugins reports whether .riot/plugins is searched for plugin
// binaries: the workspace is trusted with the binaries it holds now.
func (t Trust) SearchesPlugins() bool { return t.searchPlugins }

// Ignored is one value an untrusted workspace file set.
type Ignored struct {
	// Key is the dotted key, or "discovery" for .riot/plugins.
	Key string
	// Source is where it was set; for discovery, the directory.
	Source Source
}

// Trusted reports whether the workspace's own layers applied in full.
func (t Trust) Trusted() bool { return t.State == trust.Trusted }

// IgnoredFiles are the files (and .riot/plugins) that had values ignored,
// in order, each once.
func (t Trust) IgnoredFiles() []string {
	var files []string
	for _, ig := range t.Ignored {
		if !slices.Contains(files, ig.Source.File) {
			files = append(files, ig.Source.File)
		}
	}
	return files
}

// IgnoredKeys are the keys ignored in file, in order, each once.
func (t Trust) IgnoredKeys(file string) []string {
	var keys []string
	for _, ig := range t.Ignored {
		if ig.Source.File == file && !slices.Contains(keys, ig.Key) {
			keys = append(keys, ig.Key)
		}
	}
	return keys
}

// gate removes from l every value an untrusted file may not set, and
// returns them.
func (p *parsedLayer) gate() []Ignored {
	var out []Ignored
	gateValues(reflect.TypeFor[Config](), p.values, nil, func(key []string) {
		out = append(out, Ignored{Key: strings.Join(key, "."), Source: p.at(key...)})
	})
	return out
}

// gateValues walks the values of table t: a key declared trust:"tighten"
// stays, a table is walked, and every other key set is reported and removed,
// each entry of a named table on its own. What is not declared tightening is
// loosening: a key added to the schema is ignored in an untrusted file until
// its field says otherwise. An empty list sets nothing, so it is not reported.
func gateValues(t reflect.Type, values map[string]any, path []string, report func(key []string)) {
	for f := range fields(t) {
		v, ok := values[f.key]
		key := append(slices.Clip(path), f.key)
		// An if chain, not a switch, so that mutation testing reaches each
		// condition (gremlins does not count a case expression as covered).
		if !ok || f.Tag.Get("trust") == "tighten" {
			continue
		}
		if f.shape == table {
			gateValues(f.Type, v.(map[string]any), key, report)
			continue
		}
		if f.shape == namedTables {
			for _, name := range slices.Sorted(maps.Keys(v.(map[string]any))) {
				report(append(slices.Clip(key), name))
			}
		} else if l, isList := v.([]any); !isList || len(l) > 0 {
			report(key)
		}
		delete(values, f.key)
	}
}

// PluginsDirName is the workspace's own plugin directory, relative to it.
const PluginsDirName = ".riot/plugins"

// ContentFiles are the workspace's own files that can loosen riot's checks
// or run code, relative to the workspace, in the order riot reads them:
// the two config layers, Claude Code's .mcp.json, and .riot/plugins, whose
// riot-tool-* binaries are summed together. The trust record keeps each
// one's sum as the user trusted it (trust.Entry.Files).
func ContentFiles() []string {
	return []string{".riot/config.toml", trust.LocalName, MCPJSONFile, PluginsDirName}
}

// ContentSums are the sums of the workspace's ContentFiles that exist, by
// name, for the trust record.
func ContentSums(workspace string) (map[string]string, error) {
	sums := map[string]string{}
	for _, name := range ContentFiles() {
		sum, err := contentSum(workspace, name)
		if err != nil {
			return nil, err
		}
		if sum != "" {
			sums[name] = sum
		}
	}
	return sums, nil
}

// hasContent reports whether any of the workspace's ContentFiles exists.
func hasContent(workspace string) bool {
	if workspace == "" {
		return false
	}
	for _, name := range ContentFiles() {
		if name == PluginsDirName {
			if workspacePlugins(workspace) != "" {
				return true
			}
			continue
		}
		if _, err := os.Lstat(filepath.Join(workspace, name)); err == nil {
			return true
		}
	}
	return false
}

// ContentSum is the sum of the workspace's file name, one of
// ContentFiles, as the trust record keeps it; "" when it does not exist.
func ContentSum(workspace, name string) (string, error) { return contentSum(workspace, name) }

// contentSum is the sum of one of ContentFiles, or "" when it does not
// exist (.riot/plugins: holds no plugin binary's name).
func contentSum(workspace, name string) (string, error) {
	path := filepath.Join(workspace, name)
	if name == PluginsDirName {
		return pluginsSum(workspacePlugins(workspace))
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &Error{Source: Source{Layer: "workspace", File: path}, Msg: "cannot read the file: " + err.Error()}
	}
	return trust.Sum(data), nil
}

// pluginsSum sums the riot-tool-* entries of dir: each name, whether it
// can run, and its content, so that a binary added, replaced or made
// executable is a change. "" for no dir.
func pluginsSum(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", &Error{Source: Source{Layer: "workspace", File: dir}, Msg: "cannot read the directory: " + err.Error()}
	}
	h := sha256.New()
	for _, e := range entries { // ReadDir sorts by name
		if !strings.HasPrefix(e.Name(), PluginPrefix) {
			continue
		}
		fmt.Fprintf(h, "%q ", e.Name())
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			fmt.Fprintf(h, "not a file\n")
			continue
		}
		fmt.Fprintf(h, "%o ", info.Mode().Perm()&0o111) // who may run it
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(h, "unreadable\n")
			continue
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(h, "unreadable\n")
			continue
		}
		fmt.Fprintf(h, "%x\n", fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// workspacePlugins is .riot/plugins when it holds a plugin binary's name:
// searching it would start the repository's binaries.
func workspacePlugins(workspace string) string {
	if workspace == "" {
		return ""
	}
	dir := filepath.Join(workspace, ".riot", "plugins")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), PluginPrefix) {
			return dir
		}
	}
	return ""
}
