package config

import (
	"encoding"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config/trust"
)

// Trust is what workspace trust decided for one load. Files in a
// workspace come from whoever wrote the repository, so until the user
// trusts the workspace its layers (.riot/config.toml,
// .riot/config.local.toml) may only tighten, and .riot/plugins is not
// searched.
type Trust struct {
	// Record is the trust record's file.
	Record string
	// Workspace is the directory whose layers trust gates.
	Workspace string
	// State is what the record says of the workspace. It is looked up only
	// when the workspace has layers or plugins to gate, and is
	// trust.Unknown otherwise.
	State trust.State
	// Ignored are the values untrusted workspace files set that were not
	// applied, in layer order.
	Ignored []Ignored
	// LocalSum is the SHA-256 of the .riot/config.local.toml read, in
	// hex; "" when there was none.
	LocalSum string
	// LocalPinned says that file is, byte for byte, the one riot wrote for
	// the user's "always allow" answers (trust.Entry.Local), and so applied
	// in full although the workspace is not trusted.
	LocalPinned bool

	pin string // the record's trust.Entry.Local
}

// LocalOwn reports whether the local layer is the user's own: trusted,
// absent, or as riot wrote it. Only then may riot pin it after adding a
// rule, since pinning would otherwise vouch for what the repository put
// there.
func (t Trust) LocalOwn() bool { return t.Trusted() || t.LocalSum == "" || t.LocalPinned }

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

// gate clears from l every value an untrusted file may not set, and
// returns them.
func (p *parsedLayer) gate() []Ignored {
	var out []Ignored
	clearLoosening(reflect.ValueOf(&p.layer).Elem(), nil, func(key []string) {
		out = append(out, Ignored{Key: strings.Join(key, "."), Source: p.at(key...)})
	})
	p.order = slices.DeleteFunc(p.order, func(name string) bool { _, ok := p.Plugins[name]; return !ok })
	return out
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// isTable reports whether t decodes a TOML table, not a scalar written as
// text (a duration).
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshaler)
}

// clearLoosening walks a layer's struct: a field tagged trust:"tighten"
// stays, a table (a struct, or a pointer to one, that is not a scalar such
// as a duration) is walked, and every other field that is set is reported and
// cleared, each entry of a map of tables on its own. What is not declared
// tightening is loosening: a key added to the schema is ignored in an
// untrusted file until its field says otherwise.
func clearLoosening(v reflect.Value, prefix []string, report func(key []string)) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		key := append(slices.Clip(prefix), name)
		// An if chain, not a switch, so that mutation testing reaches each
		// condition (gremlins does not count a case expression as covered).
		if f.Tag.Get("trust") == "tighten" {
			continue
		}
		if fv.Kind() == reflect.Pointer && isTable(fv.Type().Elem()) {
			if !fv.IsNil() {
				clearLoosening(fv.Elem(), key, report)
			}
			continue
		}
		if isTable(fv.Type()) {
			clearLoosening(fv, key, report)
			continue
		}
		if fv.Kind() == reflect.Map {
			names := make([]string, 0, fv.Len())
			for _, k := range fv.MapKeys() {
				names = append(names, k.String())
			}
			slices.Sort(names)
			for _, n := range names {
				report(append(slices.Clip(key), n))
			}
		} else if !fv.IsZero() && (fv.Kind() != reflect.Slice || fv.Len() > 0) {
			report(key)
		}
		fv.SetZero()
	}
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
