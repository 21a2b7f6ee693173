package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/filestate"
)

// ValidateInput refuses an input that cannot work whatever the file holds
// and, for a file inside the workspace fence, a file Edit would refuse.
// Elsewhere the file is not opened before the permission chain has
// decided: Call checks it then.
func (Edit) ValidateInput(_ context.Context, in EditInput, env *plugin.Env) plugin.Validation {
	if msg := checkEditInput(in); msg != "" {
		return plugin.Rejected(msg)
	}
	abs := env.Abs(in.FilePath)
	// Outside the fence, or under a Read deny rule, the file is not opened
	// before the chain has decided: what Edit would say about it tells
	// what it holds.
	if !env.InFence(abs) || env.Denied(abs) {
		return plugin.Accepted()
	}
	if _, msg := planEdit(env, abs, in); msg != "" {
		return plugin.Rejected(msg)
	}
	return plugin.Accepted()
}

// checkEditInput refuses what is wrong with the input alone.
func checkEditInput(in EditInput) string {
	switch {
	case strings.TrimSpace(in.FilePath) == "":
		return "`file_path` must not be empty. Give the path of the file to change."
	case in.OldString == "":
		return "`old_string` must not be empty: Edit replaces text that is in the file.\nTo insert text, put the lines next to where it goes in old_string and those lines plus the new text in new_string. To write a whole file, use Write."
	case in.OldString == in.NewString:
		return "`old_string` and `new_string` are the same, so this Edit would change nothing.\nPut the changed text in new_string, or skip the Edit if the file is already as it should be."
	}
	return ""
}

// plannedEdit is an Edit checked against the file: the target and the
// content after the change.
type plannedEdit struct {
	t       *target
	m       match
	content string
}

// planEdit loads the file and finds old_string, refusing with the reason
// when the Edit cannot be made.
func planEdit(env *plugin.Env, abs string, in EditInput) (*plannedEdit, string) {
	t, msg := openSeen(env, abs, "Edit", false)
	if msg != "" {
		return nil, msg
	}
	return planOn(t, in)
}

// planOn finds old_string in the loaded file t.
func planOn(t *target, in EditInput) (*plannedEdit, string) {
	content := string(t.data)
	m := find(content, in.OldString, in.NewString)
	switch {
	case len(m.occ) == 0:
		return nil, notFoundMessage(t.shown, content, in.OldString)
	case len(m.occ) > 1 && !in.ReplaceAll:
		return nil, multipleMessage(t.shown, content, m.starts())
	}
	return &plannedEdit{t: t, m: m, content: m.apply(content, in.ReplaceAll)}, ""
}

// Call makes the change. In the file's directory, opened once and locked
// against other riot writers, it checks the file again against the
// session's record (it may have changed since Prepare), replaces it, and
// records it as seen.
func (Edit) Call(_ context.Context, in EditInput, env *plugin.Env) plugin.Outcome {
	abs := env.Abs(in.FilePath)
	d, name, msg := openTargetDir(env, abs, "Edit", false)
	if msg != "" {
		return plugin.Failed(msg)
	}
	defer d.close()
	defer d.lock()()
	t, msg := loadSeen(env, abs, filestate.Canonical(abs), d.entry(name), "Edit", false)
	if msg != "" {
		return plugin.Failed(msg)
	}
	p, msg := planOn(t, in)
	if msg != "" {
		return plugin.Failed(msg)
	}
	info, msg := replaceSeen(d, name, t, []byte(p.content), "Edit")
	if msg != "" {
		return plugin.Failed(msg)
	}
	old := string(t.data)
	var edits []udiff.Edit
	used := p.m.used(in.ReplaceAll)
	for _, o := range used {
		edits = append(edits, udiff.Edit{Start: o.start, End: o.end, New: o.new})
	}
	hunks, truncated := diffHunks(old, edits)
	n := len(edits)
	var b strings.Builder
	if n == 1 {
		// Nothing before the occurrence moved, so it starts on the same line.
		first := lineOf(old, used[0].start)
		last := first + strings.Count(strings.TrimSuffix(used[0].new, "\n"), "\n")
		fmt.Fprintf(&b, "Edited %s: replaced 1 occurrence, now %s", t.shown, lineRange(first, last))
	} else {
		fmt.Fprintf(&b, "Edited %s: replaced all %d occurrences", t.shown, n)
	}
	switch {
	case p.m.crlf && p.m.lf:
		b.WriteString(", each line keeping its own line ending (the file mixes \\r\\n and \\n)")
	case p.m.crlf:
		b.WriteString(", with the file's CRLF line endings")
	}
	b.WriteString(". The changed part now reads:\n")
	b.WriteString(snippet(p.content, hunks))
	ui := UI{Path: t.path, Replacements: n, Hunks: hunks, Truncated: truncated}
	return record(plugin.Ok(plugin.Text(b.String())).WithUI(ui), env, t.path, info, []byte(p.content))
}

// replaceSeen replaces name in d, the file t loaded, with data, keeping
// its permission bits, unless something replaced or changed it since it
// was loaded (a writer that is not riot, which takes no lock): checked
// just before the rename. It returns the new file's stat.
func replaceSeen(d *dir, name string, t *target, data []byte, tool string) (fs.FileInfo, string) {
	pf, info, err := d.newPending(name, data, t.info.Mode(), true)
	if err != nil {
		return nil, writeFailed(t.shown, tool, err)
	}
	defer pf.cleanup()
	cur, err := d.entry(name).stat()
	if err != nil || !os.SameFile(cur, t.info) || cur.Size() != t.info.Size() || !cur.ModTime().Equal(t.info.ModTime()) {
		return nil, changedWhileWriting(t.shown, tool)
	}
	if err := pf.replace(name); err != nil {
		return nil, writeFailed(t.shown, tool, err)
	}
	return info, ""
}

// changedWhileWriting refuses a file that something else wrote between
// the check and the rename.
func changedWhileWriting(shown, tool string) string {
	return fmt.Sprintf("%s changed since you read it: something else wrote it while %s was changing it, such as a command, a formatter or the user, and it was left as that writer made it.\nRead it again, then redo the %s against what it holds now.", shown, tool, tool)
}

func lineRange(first, last int) string {
	if last <= first {
		return fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("lines %d–%d", first, last)
}

// errnoText is the system's word for err, or "an I/O error".
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return "an I/O error"
}

// writeFailed explains a failed write; the file is as it was.
func writeFailed(shown, tool string, err error) string {
	return fmt.Sprintf("%s could not write %s (%s); the file is unchanged.\nCheck that its directory is writable and the disk has room, then retry once; if it fails again, ask the user.", tool, shown, errnoText(err))
}
