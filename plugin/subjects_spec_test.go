package plugin_test

import (
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// lookOnly can be read-only and declares no subjects: the manifest says so,
// for `riot plugins` to warn.
type lookOnly struct{ bare }

func (lookOnly) Name() string           { return "LookOnly" }
func (lookOnly) IsReadOnly(bareIn) bool { return true }

// TestReadOnlyWithoutSubjects: the manifest flags a tool that can be
// read-only but declares no subjects, and only that one.
func TestReadOnlyWithoutSubjects(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{
		plugin.New[bareIn](bare{}), plugin.New[bareIn](lookOnly{}), plugin.New[fullIn](full{}),
	})
	got := map[string]bool{}
	for _, s := range c.Manifest() {
		got[s.Name] = s.ReadOnlyWithoutSubjects
	}
	if got["Bare"] || !got["LookOnly"] || got["Full"] {
		t.Fatalf("read_only_without_subjects = %v; want only LookOnly (Bare is never read-only, Full declares subjects)", got)
	}
}
