package read

import (
	"context"
	"fmt"
	"strings"

	"github.com/riot-tools/riot/plugin"
)

// Tools are the tools this package serves, in the order the model sees
// them.
func Tools() []plugin.Handler { return []plugin.Handler{plugin.New[Input](Read{})} }

// Input is what the model sends. The field names are the ones models are
// trained on; keep them.
type Input struct {
	FilePath string `json:"file_path" jsonschema_description:"The file to read. Prefer an absolute path; a relative path is resolved against the working directory."`
	Offset   *int   `json:"offset,omitempty" jsonschema_description:"The line number to start reading at, counting from 1. Pass it only for a file too large to read at once, or to continue where a result said to."`
	Limit    *int   `json:"limit,omitempty" jsonschema_description:"The number of lines to read, 2000 by default. Pass it only for a file too large to read at once."`
}

// window returns the 1-based first line and the line count the input asks
// for. An offset of 0 is read as 1: models send it meaning "the start".
func (in Input) window() (offset, limit int) {
	offset, limit = 1, defaultLimit
	if in.Offset != nil {
		offset = max(*in.Offset, 1)
	}
	if in.Limit != nil {
		limit = *in.Limit
	}
	return offset, limit
}

// Read is the Read tool.
type Read struct{}

// Name is the tool's name.
func (Read) Name() string { return "Read" }

// Prompt is the tool's usage text for the model.
func (Read) Prompt() string { return prompt }

// Describe is "Read src/main.go", with the lines when a window is given.
// It shows the path as the model gave it: Describe has no Env to make it
// relative with.
func (Read) Describe(in Input) string {
	d := "Read " + in.FilePath
	if in.Offset != nil || in.Limit != nil {
		offset, limit := in.window()
		// In uint64, so that a huge limit cannot overflow.
		d += fmt.Sprintf(" (lines %d–%d)", offset, uint64(offset)+uint64(limit)-1)
	}
	return d
}

// IsReadOnly is true: Read opens a file for reading and runs nothing.
func (Read) IsReadOnly(Input) bool { return true }

// IsConcurrencySafe is true: reads do not depend on each other.
func (Read) IsConcurrencySafe(Input) bool { return true }

// ClassifierInput is "Read the file PATH".
func (Read) ClassifierInput(in Input) string { return "Read the file " + in.FilePath }

// ResultBudget is Unlimited: a spilled Read result would be read back with
// Read, and spilled again. Read bounds its own output instead.
func (Read) ResultBudget() plugin.Budget { return plugin.Unlimited() }

// PermissionSubjects is the file, as an absolute read path. Read takes no
// permission position of its own (CheckPermissions stays Passthrough): a
// read of ~/.ssh/id_rsa is exactly what the core's chain must see.
func (Read) PermissionSubjects(in Input, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.ReadPath(env.Abs(in.FilePath))}
}

// ValidateInput rejects an empty path and a bad window, and, for a path
// inside the workspace fence, a path that is not a readable regular file.
// Outside the fence those checks wait for Call, which runs only once the
// permission chain has allowed the read: answering whether a file there
// exists, or listing a missing file's neighbours, would leak what the chain
// may deny.
func (Read) ValidateInput(_ context.Context, in Input, env *plugin.Env) plugin.Validation {
	if strings.TrimSpace(in.FilePath) == "" {
		return plugin.Rejected("`file_path` is empty.\nPass the path of the file to read, preferably absolute.")
	}
	if in.Offset != nil && *in.Offset < 0 {
		return plugin.Rejected(fmt.Sprintf("`offset` is %d, but lines are numbered from 1.\nPass an offset of 1 or more, or leave it out to start at the beginning.", *in.Offset))
	}
	if in.Limit != nil && *in.Limit < 1 {
		return plugin.Rejected(fmt.Sprintf("`limit` is %d, but it must be at least 1.\nPass the number of lines to read, or leave it out for up to %s.", *in.Limit, commas(defaultLimit)))
	}
	abs := env.Abs(in.FilePath)
	if !env.InFence(abs) {
		return plugin.Accepted()
	}
	if msg := checkPath(abs, env, true); msg != "" {
		return plugin.Rejected(msg)
	}
	return plugin.Accepted()
}

// UI is the payload for a UI.
type UI struct {
	// Path is the absolute path read.
	Path string `json:"path"`
	// StartLine and EndLine are the lines shown, 1-based and inclusive; both
	// are 0 when none were (an empty file, an image).
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// TotalLines is the file's line count, or null where Read did not count
	// to the end of a very large file.
	TotalLines *int `json:"total_lines"`
	// TruncatedLines is the number of lines cut at 2000 characters.
	TruncatedLines int `json:"truncated_lines"`
	// Image describes an image read as an image block.
	Image *ImageUI `json:"image,omitempty"`
}

// ImageUI describes an image.
type ImageUI struct {
	MediaType string `json:"media_type"`
	Bytes     int    `json:"bytes"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
}
