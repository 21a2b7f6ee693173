package diagnostics

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// languages maps a source file's extension to the checker of its
// language; checkerPython means ruff or pyright.
var languages = map[string]string{
	".go": checkerGo,
	".rs": checkerCargo,
	".ts": checkerTsc, ".tsx": checkerTsc, ".mts": checkerTsc, ".cts": checkerTsc,
	".py": checkerPython, ".pyi": checkerPython,
}

// languageOf is the checker for the file's language, or "" for a file of
// no language Diagnostics knows, which detection then decides.
func languageOf(file string) string {
	return languages[strings.ToLower(filepath.Ext(file))]
}

// markersOf are the marker files of checker; the Python pseudo-checker
// has those of detection.
func markersOf(checker string) []string {
	if checker != checkerPython {
		return checkers[checker].markers
	}
	var out []string
	for _, m := range autoMarkers {
		if m.checker == checkerPython {
			out = append(out, m.file)
		}
	}
	return out
}

// labelOf names checker for the model.
func labelOf(checker string) string {
	if checker == checkerPython {
		return "ruff or pyright"
	}
	return checkers[checker].label
}

func noLanguageMarkerMessage(file, start, checker string) string {
	return fmt.Sprintf("%s is checked by %s, but no %s was found in %s or any directory above it. Pass a `path` inside that project, or pass `checker` to check this directory with another checker.",
		file, labelOf(checker), orList(markersOf(checker)), start)
}

// Bounds of the search below a directory with no marker above it: deep
// enough for a monorepo's services, small enough to stay quick.
const (
	belowDepth = 3
	belowMost  = 8
)

// projectsBelow names the projects under dir, for a call made above
// several of them: the model then knows which `path` to pass. It skips
// hidden and dependency directories, and says when it stopped early. It
// runs before the permission chain, so it lists nothing outside the
// workspace fence and nothing a deny rule hides.
func projectsBelow(dir string, env *plugin.Env) string {
	if !env.InFence(dir) {
		return ""
	}
	var found []string
	more := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable directory holds no project riot can name.
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		if env.Denied(p) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		depth := 0
		if rel != "." {
			depth = strings.Count(rel, string(filepath.Separator)) + 1
			name := d.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target" {
				return filepath.SkipDir
			}
		}
		if depth > belowDepth {
			return filepath.SkipDir
		}
		for _, m := range autoMarkers {
			if isFile(filepath.Join(p, m.file)) {
				if len(found) == belowMost {
					more = true
					return filepath.SkipAll
				}
				found = append(found, fmt.Sprintf("%s (%s)", shownPath(env.Rel(p)), m.file))
				return filepath.SkipDir // a project's own subprojects are its business
			}
		}
		return nil
	})
	if len(found) == 0 {
		return ""
	}
	msg := " Projects below it: " + strings.Join(found, ", ")
	if more {
		msg += ", and more"
	}
	return msg + ". Pass one of them as `path`."
}
