package plugin_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// One tool per optional interface that shapes Prepare's answer, each on
// top of bare, which has none of them.
type (
	withReadOnly    struct{ bare }
	withConcurrency struct{ bare }
	withClassifier  struct{ bare }
	withEnvClass    struct{ bare }
	withPermission  struct{ bare }
	withSubjects    struct{ bare }
	withValidator   struct{ bare }
	// withBudget has properties of the tool, not of a call's answer: its
	// Prepare is still the default one.
	withBudget struct{ bare }
)

func (withReadOnly) Name() string           { return "ReadOnly" }
func (withReadOnly) IsReadOnly(bareIn) bool { return false }
func (withConcurrency) Name() string        { return "Concurrency" }
func (withConcurrency) IsConcurrencySafe(bareIn) bool {
	return false
}
func (withClassifier) Name() string                  { return "Classifier" }
func (withClassifier) ClassifierInput(bareIn) string { return "" }
func (withEnvClass) Name() string                    { return "EnvClassifier" }
func (withEnvClass) ClassifierInputEnv(bareIn, *plugin.Env) string {
	return ""
}
func (withPermission) Name() string { return "Permission" }
func (withPermission) CheckPermissions(context.Context, bareIn, *plugin.Env) plugin.Permission {
	return plugin.PassthroughPermission()
}
func (withSubjects) Name() string                                            { return "Subjects" }
func (withSubjects) PermissionSubjects(bareIn, *plugin.Env) []plugin.Subject { return nil }
func (withValidator) Name() string                                           { return "Validator" }
func (withValidator) ValidateInput(context.Context, bareIn, *plugin.Env) plugin.Validation {
	return plugin.Accepted()
}
func (withBudget) Name() string                { return "Budget" }
func (withBudget) ResultBudget() plugin.Budget { return plugin.Unlimited() }
func (withBudget) CascadesOnFailure() bool     { return true }

// TestDefaultPrepareDeclared: the manifest declares the default Prepare
// for a tool with none of the interfaces that shape the answer, and for no
// tool with any one of them, even one that answers as the default does
// (the SDK cannot know that it always will).
func TestDefaultPrepareDeclared(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{
		plugin.New[bareIn](bare{}), plugin.New[bareIn](withBudget{}),
		plugin.New[bareIn](withReadOnly{}), plugin.New[bareIn](withConcurrency{}), plugin.New[bareIn](withClassifier{}),
		plugin.New[bareIn](withEnvClass{}), plugin.New[bareIn](withPermission{}), plugin.New[bareIn](withSubjects{}),
		plugin.New[bareIn](withValidator{}), plugin.New[fullIn](full{}),
	})
	for _, s := range c.Manifest() {
		want := s.Name == "Bare" || s.Name == "Budget"
		if s.DefaultPrepare != want {
			t.Errorf("%s: DefaultPrepare = %v, want %v", s.Name, s.DefaultPrepare, want)
		}
	}
}

// TestUnpreparedCall: a Call the host sent without Prepare begins with
// the answer Prepare gives, then runs the tool; an input Prepare rejects
// is rejected with the same text, and the tool does not run.
func TestUnpreparedCall(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](bare{}), plugin.New[fullIn](full{})})
	p, r := c.CallUnprepared("Bare", `{"path":"x"}`)
	if want := c.Prepare("Bare", `{"path":"x"}`); !equalPrepared(p, want) {
		t.Errorf("answer %+v, Prepare's %+v", p, want)
	}
	if !r.Ok || r.Text != "path="+c.Cwd+"/x" {
		t.Errorf("result %+v", r)
	}
	for _, in := range []string{`{"path":"x","count":99999999999999999999}`, `{"path":"x","extra":1}`, `[1]`} {
		want := c.Prepare("Bare", in)
		p, r := c.CallUnprepared("Bare", in)
		if want.Rejected == "" || !equalPrepared(p, want) {
			t.Errorf("%s: answer %+v, Prepare's %+v", in, p, want)
		}
		if r.Ok || r.Message != want.Rejected || r.Chunks != 0 {
			t.Errorf("%s: result %+v, want failed with %q and nothing else", in, r, want.Rejected)
		}
	}
	// A tool with checks, sent unprepared by a host that did not read the
	// manifest: the answer is its full Prepare, its validation included.
	for _, in := range []string{`{"n":1}`, `{"n":-1}`, `{"n":101}`} {
		want := c.Prepare("Full", in)
		if p, _ := c.CallUnprepared("Full", in); !equalPrepared(p, want) {
			t.Errorf("Full %s: answer %+v, Prepare's %+v", in, p, want)
		}
	}
	if p, r := c.CallUnprepared("Nope", `{}`); p.Rejected == "" || r.Ok || r.Message != p.Rejected {
		t.Errorf("an unknown tool: answer %+v, result %+v", p, r)
	}
}

// describePanics panics in Describe: Prepare's answer is the SDK's
// rejection for a panic while checking, over either exchange.
type describePanics struct{ bare }

func (describePanics) Name() string           { return "Panics" }
func (describePanics) Describe(bareIn) string { panic("boom") }

func TestUnpreparedPanicIsPreparesRejection(t *testing.T) {
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[bareIn](describePanics{})})
	want := c.Prepare("Panics", `{"path":"x"}`)
	p, r := c.CallUnprepared("Panics", `{"path":"x"}`)
	if want.Rejected == "" || p.Rejected != want.Rejected || r.Ok || r.Message != want.Rejected {
		t.Errorf("answer %+v, result %+v, Prepare's %+v", p, r, want)
	}
}

func equalPrepared(a, b plugintest.Prepared) bool { return reflect.DeepEqual(a, b) }
