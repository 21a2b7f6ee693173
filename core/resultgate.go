package core

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/riot-tools/riot/internal/textcount"
)

// Every result of a turn leaves RunTurn through boundResults, the one gate
// between what produced a result and the model: a tool's output, a
// plugin's message, a hook's reason or additional context, a denial, a
// failure or a cancellation. The collector budgets a tool's output as it
// streams (budget.go); the gate budgets the whole text the model is about
// to see, whatever wrote it, so no path around the collector can put an
// unbounded text in the context.

const (
	// defaultBudget is a call's budget in characters when its tool does
	// not declare one, and the budget of everything that is not a tool's
	// output: a hook's words, a denial, a failure.
	defaultBudget = 50_000
	// gateFloor is the least the gate lets through before it cuts: a
	// preview with its notice is about this long, so a text under it is
	// never replaced by a longer one, whatever the tool's budget.
	gateFloor = 4_000
)

// boundResults puts every result of a turn within its call's budget, then
// the turn within the turn budget.
func (h *Host) boundResults(calls []*call, results []ToolResult) {
	for i := range results {
		var c *call
		if i < len(calls) {
			c = calls[i]
		}
		h.boundResult(c, &results[i])
	}
	h.applyTurnBudget(calls, results)
}

// boundResult cuts a result whose text exceeds its budget to a preview,
// saving the whole to a spill file the model can read. Output the
// collector has budgeted already (a preview it made, or an Unlimited
// tool's output, which is never spilled) stays as it is, and only what
// follows it is cut.
func (h *Host) boundResult(c *call, r *ToolResult) {
	budget := int64(defaultBudget)
	kept := ""
	if c != nil && c.col != nil {
		if c.limited && c.col.budget >= 0 {
			budget = c.col.budget
		}
		if !c.limited || c.col.spilled() || c.col.lost {
			kept = c.col.body()
		}
	}
	budget = max(budget, gateFloor)
	id := r.ToolUseID
	for i := range r.Content {
		b := &r.Content[i]
		if b.Type != "text" {
			continue
		}
		text := b.Text
		if kept != "" && strings.HasPrefix(text, kept) {
			// The output's own budget was applied; what follows it is
			// another's words.
			rest := text[len(kept):]
			if textcount.Chars([]byte(rest)) > budget {
				shown, _ := h.spillText(id, rest, "text after this tool's output")
				b.Text = joinMessage(kept, shown)
			}
			kept = ""
			continue
		}
		kept = ""
		if textcount.Chars([]byte(text)) <= budget {
			continue
		}
		shown, sp := h.spillText(id, text, "result")
		b.Text = shown
		if sp != nil && r.Spill == nil {
			r.Spill = sp
		}
	}
}

// spillText writes text, one call's model content too large for the
// context, to a spill file of the call, and returns what the model sees in
// its place: a preview, its size and where the whole is; or, when the file
// cannot be written, the preview and a note saying the rest is lost and
// why. what names the text in the notice.
func (h *Host) spillText(id, text, what string) (string, *Spill) {
	data := []byte(text)
	chars, nl := textcount.Chars(data), textcount.Newlines(data)
	lastNL := strings.HasSuffix(text, "\n")
	lines := nl
	if !lastNL {
		lines++
	}
	head, tail := text[:min(len(text), keepBytes)], text[max(0, len(text)-keepBytes):]
	shown := preview(head, tail, chars, nl, lastNL)
	path, err := h.writeSpill(id, data)
	if err != nil {
		h.log.Error(fmt.Sprintf("cannot save a %s too large for the context; the model sees only its preview. Free space in, or make writable, riot's state directory", what), "call_id", id, "dir", h.resultDir, "error", err)
		return shown + fmt.Sprintf("\n[This %s is too large for the context: %s characters in %s lines. The full %s could not be saved to a file (%s), so only this preview exists.]", what, commas(chars), commas(lines), what, unsavedWhy(err)), nil
	}
	return shown + fmt.Sprintf("\n[This %s is too large for the context: %s characters in %s lines. The full %s is saved at %s. Read it with Read (file_path with offset and limit), or search it with Grep on that path.]", what, commas(chars), commas(lines), what, path),
		&Spill{Path: path, Chars: chars, Lines: lines, Bytes: int64(len(data))}
}

// writeSpill writes data whole to a new spill file of call id.
func (h *Host) writeSpill(id string, data []byte) (string, error) {
	if h.results == nil {
		return "", errNoResultStore
	}
	path := h.results.spillPath(id)
	f, err := h.results.create(scratchPath(path), path)
	if err != nil {
		return "", err
	}
	defer f.Cleanup()
	if _, err := f.WriteAt(data, 0); err != nil {
		return "", err
	}
	if err := f.Commit(int64(len(data))); err != nil {
		return "", err
	}
	return path, nil
}

// unsavedWhy says in plain words why a spill file could not be written.
func unsavedWhy(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the disk holding riot's state directory is full"
	case errors.Is(err, syscall.EDQUOT):
		return "the disk quota of riot's state directory is used up"
	case errors.Is(err, syscall.EROFS):
		return "riot's state directory is on a read-only file system"
	case errors.Is(err, fs.ErrPermission):
		return "riot is not allowed to write in its state directory"
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrExist):
		return "a file stands where riot's results directory should be"
	case errors.Is(err, errNoResultStore):
		return "this host keeps no results directory"
	default:
		return "riot's state directory could not be written"
	}
}
