package edit

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated: an Edit replaces text in a
// local file, and repeating it is refused (the file changed since it was
// read) or changes it again with replace_all.
func (Edit) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Edit a file", Local: true}
}

// Annotations implements plugin.Annotated: a Write may overwrite a local
// file; writing the same content twice has no further effect.
func (Write) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Write a file", Idempotent: true, Local: true}
}
