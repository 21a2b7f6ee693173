package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/riot-tools/riot/shared"
)

// Handler is a Tool with its input type erased, ready to Serve. Make one
// with New.
type Handler interface {
	// Name is the tool's name.
	Name() string

	spec() shared.ToolSpec
	prepare(ctx context.Context, raw []byte, env *Env) shared.PrepareAnswer
	call(ctx context.Context, raw []byte, env *Env) Outcome
	// unprepared is prepare and call in one for a Call whose Prepare the
	// host skipped (defaultPrepare.go): Prepare's answer, and the call
	// with the input decoded once, nil when the answer rejects it.
	unprepared(ctx context.Context, raw []byte, env *Env) (shared.PrepareAnswer, func() Outcome)
}

// New adapts a Tool to a Handler. It panics if In is not a struct: that
// is a programming error, caught the first time the plugin starts. The
// input schema is reflected once, when first needed: by the Manifest, or
// by a rejected input's hint. A host with the manifest cached asks for
// neither, and reflecting it (with invopop/jsonschema, then marshalling
// it) was the larger part of a builtin plugin's own start.
func New[In any](t Tool[In]) Handler {
	if err := checkInputType[In](); err != nil {
		panic(fmt.Sprintf("plugin.New(%s): %v", t.Name(), err))
	}
	return &typed[In]{tool: t, name: t.Name(), shape: sync.OnceValue(inputShape[In]), defaultPrepare: hasDefaultPrepare[In](t)}
}

// shape is a tool's input schema, and the names of its fields, sorted,
// for the hints of a rejected input.
type shape struct {
	schema []byte
	fields []string
}

// inputShape reflects In's schema; checkInputType has passed.
func inputShape[In any]() shape {
	schema, err := reflectSchema[In]()
	if err != nil {
		// Unreachable after checkInputType: reflectSchema fails only for
		// what that refuses, and a reflected schema always marshals.
		panic(fmt.Sprintf("plugin: the input schema of %T: %v", *new(In), err))
	}
	var props struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &props)
	fields := make([]string, 0, len(props.Properties))
	for name := range props.Properties {
		fields = append(fields, name)
	}
	slices.Sort(fields)
	return shape{schema: schema, fields: fields}
}

type typed[In any] struct {
	tool  Tool[In]
	name  string
	shape func() shape
	// defaultPrepare: the tool implements nothing that shapes Prepare's
	// answer beyond Describe (defaultprepare.go).
	defaultPrepare bool
}

// fields is the input's field names, for decodeInput's hints.
func (h *typed[In]) fields() []string { return h.shape().fields }

func (h *typed[In]) Name() string { return h.name }

func (h *typed[In]) spec() shared.ToolSpec {
	budget := Limit(DefaultBudgetChars)
	if b, ok := h.tool.(Budgeted); ok {
		budget = b.ResultBudget()
	}
	cascades := false
	if c, ok := h.tool.(Cascader); ok {
		cascades = c.CascadesOnFailure()
	}
	_, readOnly := h.tool.(ReadOnlyChecker[In])
	_, subjects := h.tool.(SubjectLister[In])
	var ann Annotations
	if a, ok := h.tool.(Annotated); ok {
		ann = a.Annotations()
	}
	return shared.ToolSpec{
		// Annotations is shared.Annotations field for field, for tool
		// authors' docs; a field added to one fails to compile here.
		Annotations:             (*shared.Annotations)(&ann),
		Name:                    h.name,
		Prompt:                  h.tool.Prompt(),
		InputSchema:             h.shape().schema,
		CascadesOnFailure:       cascades,
		ResultBudget:            &shared.Budget{Unlimited: budget.IsUnlimited(), LimitChars: int64(budget.Chars())},
		ReadOnlyWithoutSubjects: readOnly && !subjects,
		DefaultPrepare:          h.defaultPrepare,
		HonoursExpect:           true,
	}
}

// decodeAndValidate runs both layers of the SDK's checks: strict decoding,
// then the tool's own ValidateInput.
func (h *typed[In]) decodeAndValidate(ctx context.Context, raw []byte, env *Env) (In, string) {
	in, hint := decodeInput[In](raw, h.fields)
	if hint != "" {
		return in, hint
	}
	if v, ok := h.tool.(InputValidator[In]); ok {
		if r := v.ValidateInput(ctx, in, env); r.IsRejected() {
			return in, r.Message()
		}
	}
	return in, ""
}

// prepare is Prepare's answer. Every optional interface it consults is
// listed in hasDefaultPrepare too, or the manifest would declare the
// default answer for a tool that gives another.
func (h *typed[In]) prepare(ctx context.Context, raw []byte, env *Env) shared.PrepareAnswer {
	in, rejected := h.decodeAndValidate(ctx, raw, env)
	if rejected != "" {
		return shared.PrepareAnswer{Rejected: rejected}
	}
	resp := shared.DefaultAnswer(h.tool.Describe(in))
	if c, ok := h.tool.(ReadOnlyChecker[In]); ok {
		resp.ReadOnly = c.IsReadOnly(in)
	}
	if c, ok := h.tool.(ConcurrencyChecker[In]); ok {
		resp.ConcurrencySafe = c.IsConcurrencySafe(in)
	}
	if c, ok := h.tool.(EnvClassifiable[In]); ok {
		resp.ClassifierInput = c.ClassifierInputEnv(in, env)
	} else if c, ok := h.tool.(Classifiable[In]); ok {
		resp.ClassifierInput = c.ClassifierInput(in)
	}
	if c, ok := h.tool.(PermissionChecker[In]); ok {
		p := c.CheckPermissions(ctx, in, env)
		resp.Permission = permissionOf(p.Behavior)
		resp.PermissionReason = p.Reason
	}
	if c, ok := h.tool.(SubjectLister[In]); ok {
		for _, s := range c.PermissionSubjects(in, env) {
			resp.Subjects = append(resp.Subjects, subjectOf(s))
		}
	}
	return resp
}

func (h *typed[In]) call(ctx context.Context, raw []byte, env *Env) Outcome {
	// Plugins are stateless, so Call checks again what Prepare checked: the
	// file may have changed in between, and a caller may skip Prepare.
	in, rejected := h.decodeAndValidate(ctx, raw, env)
	if rejected != "" {
		return Failed(rejected)
	}
	return h.tool.Call(ctx, in, env)
}

// permissionOf is a tool's position in the wire model.
func permissionOf(b Behavior) shared.Permission {
	switch b {
	case Allow:
		return shared.PermissionAllow
	case Ask:
		return shared.PermissionAsk
	case Deny:
		return shared.PermissionDeny
	case Passthrough:
		return shared.PermissionPassthrough
	default:
		// An out-of-range behaviour is a bug; ask rather than pass.
		return shared.PermissionAsk
	}
}

// subjectOf is a subject in the wire model. A kind out of range is sent
// unspecified, which the host refuses.
func subjectOf(s Subject) shared.Subject {
	w := shared.Subject{Value: s.Value, Access: shared.AccessWrite}
	switch s.Kind {
	case CommandSubject:
		w.Kind = shared.SubjectCommand
	case PathSubject:
		w.Kind = shared.SubjectPath
	}
	if s.Access == Read {
		w.Access = shared.AccessRead
	}
	return w
}
