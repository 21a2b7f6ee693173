package bash

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated. A shell command can do anything,
// so Bash keeps every conservative value.
func (*Bash) Annotations() plugin.Annotations { return plugin.Annotations{Title: "Run shell command"} }

// Annotations implements plugin.Annotated. Reading a job's output changes
// nothing, but each call returns only the output since the last one, so it
// is not idempotent.
func (*BashOutput) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Read background job output", ReadOnly: true, NonDestructive: true, Local: true}
}

// Annotations implements plugin.Annotated. Stopping a job destroys its
// work; stopping it again changes nothing more.
func (*KillShell) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Stop background job", Idempotent: true, Local: true}
}
