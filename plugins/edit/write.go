package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/filestate"
)

// ValidateInput refuses an empty path, content over the size limit and,
// inside the workspace fence, a file Write would refuse.
func (Write) ValidateInput(_ context.Context, in WriteInput, env *plugin.Env) plugin.Validation {
	if msg := checkWriteInput(in); msg != "" {
		return plugin.Rejected(msg)
	}
	abs := env.Abs(in.FilePath)
	// Outside the fence, or under a Read deny rule, the file is not opened
	// before the chain has decided: what Edit would say about it tells
	// what it holds.
	if !env.InFence(abs) || env.Denied(abs) {
		return plugin.Accepted()
	}
	if _, msg := planWrite(env, abs); msg != "" {
		return plugin.Rejected(msg)
	}
	return plugin.Accepted()
}

func checkWriteInput(in WriteInput) string {
	switch {
	case strings.TrimSpace(in.FilePath) == "":
		return "`file_path` must not be empty. Give the path of the file to write."
	case strings.HasSuffix(in.FilePath, "/"):
		return fmt.Sprintf("`file_path` %s ends in a slash, so it names a directory; Write writes a file.\nGive the file's path, such as %sfile.txt.", in.FilePath, in.FilePath)
	case len(in.Content) > filestate.MaxBytes:
		return fmt.Sprintf("`content` is %d bytes; Write writes files of up to %d MiB.\nSplit the content into several files, or generate the file with a command through Bash.", len(in.Content), filestate.MaxBytes>>20)
	}
	return ""
}

// plannedWrite is a Write checked against the disk: the file it replaces,
// or nil for a new file.
type plannedWrite struct {
	path  string
	shown string
	t     *target
}

// planWrite decides between creating and replacing. A new file needs
// nothing; an existing one must have been read whole in this session and
// be unchanged since.
func planWrite(env *plugin.Env, abs string) (*plannedWrite, string) {
	path := filestate.Canonical(abs)
	shown := shownPath(env, abs)
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		t, msg := openSeen(env, abs, "Write", true)
		if msg != "" {
			return nil, msg
		}
		return &plannedWrite{path: t.path, shown: shown, t: t}, ""
	case errors.Is(err, fs.ErrNotExist):
		if msg := parentMessage(env, path); msg != "" {
			return nil, msg
		}
		return &plannedWrite{path: path, shown: shown}, ""
	case errors.Is(err, syscall.ENOTDIR):
		return nil, parentMessage(env, path)
	default:
		return nil, statMessage(shown, "Write", err)
	}
}

// parentMessage refuses a new file whose nearest existing ancestor is not
// a directory, or returns "".
func parentMessage(env *plugin.Env, path string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err == nil {
			if info.IsDir() {
				return ""
			}
			return fmt.Sprintf("%s is a file, not a directory, so Write cannot create %s under it.\nCheck the path.", shownPath(env, dir), shownPath(env, path))
		}
		if dir == filepath.Dir(dir) {
			return fmt.Sprintf("No directory of %s exists.\nCheck the path.", shownPath(env, path))
		}
	}
}

// Call writes the file: a new one with its missing parent directories,
// or over the file the session has seen, atomically either way, in its
// directory opened once and locked against other riot writers.
func (Write) Call(_ context.Context, in WriteInput, env *plugin.Env) plugin.Outcome {
	abs := env.Abs(in.FilePath)
	p, msg := planWrite(env, abs)
	if msg != "" {
		return plugin.Failed(msg)
	}
	d, name, msg := openTargetDir(env, abs, "Write", true)
	if msg != "" {
		return plugin.Failed(msg)
	}
	defer d.close()
	defer d.lock()()
	data := []byte(in.Content)
	ui := UI{Path: p.path}
	_, err := d.entry(name).stat()
	switch {
	case err == nil && p.t == nil:
		return plugin.Failed(appearedMessage(p.shown))
	case errors.Is(err, fs.ErrNotExist):
		info, msg := createIn(d, name, data, p.shown)
		if msg != "" {
			return plugin.Failed(msg)
		}
		ui.Created = true
		ui.Hunks, ui.Truncated = diffHunks("", []udiff.Edit{{Start: 0, End: 0, New: in.Content}})
		text := fmt.Sprintf("Created %s (%s).", p.shown, sizeText(in.Content))
		// Kept under the path as it resolves now that the file exists, as
		// Read and Edit will look it up.
		return record(plugin.Ok(plugin.Text(text)).WithUI(ui), env, filepath.Join(d.path, name), info, data)
	case err != nil:
		return plugin.Failed(sourceMessage(p.shown, "Write", err))
	}
	t, msg := loadSeen(env, abs, p.path, d.entry(name), "Write", true)
	if msg != "" {
		return plugin.Failed(msg)
	}
	info, msg := replaceSeen(d, name, t, data, "Write")
	if msg != "" {
		return plugin.Failed(msg)
	}
	old := string(t.data)
	ui.Hunks, ui.Truncated = diffHunks(old, udiff.Strings(old, in.Content))
	text := fmt.Sprintf("Replaced the whole of %s (%s; it had %s).", p.shown, sizeText(in.Content), sizeText(old))
	if len(ui.Hunks) == 0 {
		text = fmt.Sprintf("Wrote %s: the content is what it already held (%s), so nothing changed.", p.shown, sizeText(in.Content))
	}
	return record(plugin.Ok(plugin.Text(text)).WithUI(ui), env, p.path, info, data)
}

// createIn makes name in d with data, atomically and only if nothing is
// there: the content goes to a temporary file, which is then linked to
// name, a link that fails if name exists by then.
func createIn(d *dir, name string, data []byte, shown string) (fs.FileInfo, string) {
	pf, info, err := d.newPending(name, data, 0o644, false)
	if err != nil {
		return nil, writeFailed(shown, "Write", err)
	}
	defer pf.cleanup()
	if err := pf.link(name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, appearedMessage(shown)
		}
		return nil, writeFailed(shown, "Write", err)
	}
	return info, ""
}

func appearedMessage(shown string) string {
	return fmt.Sprintf("%s appeared while Write was creating it: something else made it meanwhile, and it was left as it is.\nRead it, then decide whether to change it.", shown)
}

// sizeText is "12 lines, 345 bytes".
func sizeText(s string) string {
	lines := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("%d %s, %d bytes", lines, unit, len(s))
}
