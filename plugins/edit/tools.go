package edit

import (
	"fmt"

	"github.com/riot-tools/riot/plugin"
)

// Tools are the tools this package serves, in the order the model sees
// them.
func Tools() []plugin.Handler {
	return []plugin.Handler{plugin.New[EditInput](Edit{}), plugin.New[WriteInput](Write{})}
}

// EditInput is what the model sends to Edit. The field names are the ones
// models are trained on; keep them.
type EditInput struct {
	FilePath   string `json:"file_path" jsonschema_description:"The file to change. Prefer an absolute path; a relative path is resolved against the working directory."`
	OldString  string `json:"old_string" jsonschema_description:"The exact text to replace, as it is in the file, whitespace and indentation included, without Read's line-number prefix. It must occur exactly once unless replace_all is true."`
	NewString  string `json:"new_string" jsonschema_description:"The text to put in its place. It must differ from old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema_description:"Replace every occurrence of old_string instead of exactly one, such as to rename a variable throughout the file. Default false."`
}

// WriteInput is what the model sends to Write.
type WriteInput struct {
	FilePath string `json:"file_path" jsonschema_description:"The file to create or replace. Prefer an absolute path; a relative path is resolved against the working directory. Missing parent directories are created."`
	Content  string `json:"content" jsonschema_description:"The complete content of the file."`
}

// Edit is the Edit tool. It is neither read-only nor concurrency-safe (the
// SDK's defaults), and takes no permission position: the core's chain
// judges the write path it declares.
type Edit struct{}

// Name is the tool's name.
func (Edit) Name() string { return "Edit" }

// Prompt is the tool's usage text for the model.
func (Edit) Prompt() string { return editPrompt }

// Describe is "Edit src/main.go", as the model gave the path.
func (Edit) Describe(in EditInput) string {
	if in.ReplaceAll {
		return "Edit " + in.FilePath + " (every occurrence)"
	}
	return "Edit " + in.FilePath
}

// ClassifierInput names the file and the size of the change, for auto
// mode's classifier.
func (Edit) ClassifierInput(in EditInput) string {
	how := "one occurrence"
	if in.ReplaceAll {
		how = "every occurrence"
	}
	return fmt.Sprintf("Edit the file %s: replace %s of a %d-character text with a %d-character text", in.FilePath, how, len(in.OldString), len(in.NewString))
}

// PermissionSubjects is the file, as an absolute write path.
func (Edit) PermissionSubjects(in EditInput, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.WritePath(env.Abs(in.FilePath))}
}

// Write is the Write tool: like Edit, not read-only, not concurrency-safe,
// no permission position of its own.
type Write struct{}

// Name is the tool's name.
func (Write) Name() string { return "Write" }

// Prompt is the tool's usage text for the model.
func (Write) Prompt() string { return writePrompt }

// Describe is "Write src/main.go".
func (Write) Describe(in WriteInput) string { return "Write " + in.FilePath }

// ClassifierInput names the file and the size of the content.
func (Write) ClassifierInput(in WriteInput) string {
	return fmt.Sprintf("Write the file %s (create it or replace it whole) with %d bytes of content", in.FilePath, len(in.Content))
}

// PermissionSubjects is the file, as an absolute write path.
func (Write) PermissionSubjects(in WriteInput, env *plugin.Env) []plugin.Subject {
	return []plugin.Subject{plugin.WritePath(env.Abs(in.FilePath))}
}
