package shared

import (
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Manifest is what a plugin binary serves: its tools, in the order the model
// sees them.
type Manifest struct {
	Tools      []ToolSpec
	SDKVersion string
	// StartsNoProcesses: the plugin's calls need no sandbox (ServeReadOnly,
	// ServeWithoutProcesses); the SDK enforces it in the plugin.
	StartsNoProcesses bool
}

// ToolSpec describes one tool (tool.proto ToolSpec).
type ToolSpec struct {
	Name string
	// Prompt is the complete usage text for the model: tools[].description.
	Prompt string
	// InputSchema is the JSON Schema of the input.
	InputSchema       []byte
	CascadesOnFailure bool
	// ResultBudget nil is the default budget.
	ResultBudget            *Budget
	ReadOnlyWithoutSubjects bool
	// Annotations nil is the conservative reading of every annotation.
	Annotations    *Annotations
	DefaultPrepare bool
	HonoursExpect  bool
	// OutputSchema is the JSON Schema every successful call's UI payload
	// is valid against (MCP's outputSchema); nil declares none.
	OutputSchema []byte
}

// Annotations are static properties of every call of a tool; each zero
// value is the conservative reading.
type Annotations struct {
	Title          string
	ReadOnly       bool
	NonDestructive bool
	Idempotent     bool
	Local          bool
}

// Budget is the largest model content, in characters, a result may carry
// before the host spills it.
type Budget struct {
	Unlimited  bool
	LimitChars int64
}

func manifestFromProto(m *toolv1.ManifestResponse) Manifest {
	out := Manifest{SDKVersion: m.GetSdkVersion(), StartsNoProcesses: m.GetStartsNoProcesses()}
	for _, t := range m.GetTools() {
		out.Tools = append(out.Tools, toolSpecFromProto(t))
	}
	return out
}

func toolSpecFromProto(t *toolv1.ToolSpec) ToolSpec {
	s := ToolSpec{
		Name: t.GetName(), Prompt: t.GetPrompt(), InputSchema: t.GetInputSchema(),
		CascadesOnFailure: t.GetCascadesOnFailure(), ReadOnlyWithoutSubjects: t.GetReadOnlyWithoutSubjects(),
		DefaultPrepare: t.GetDefaultPrepare(), HonoursExpect: t.GetHonoursExpect(), OutputSchema: t.GetOutputSchema(),
	}
	if b := t.GetResultBudget(); b != nil {
		s.ResultBudget = &Budget{Unlimited: b.GetUnlimited(), LimitChars: b.GetLimitChars()}
	}
	if a := t.GetAnnotations(); a != nil {
		s.Annotations = &Annotations{Title: a.GetTitle(), ReadOnly: a.GetReadOnly(), NonDestructive: a.GetNonDestructive(),
			Idempotent: a.GetIdempotent(), Local: a.GetLocal()}
	}
	return s
}

func manifestToProto(m Manifest) *toolv1.ManifestResponse {
	out := &toolv1.ManifestResponse{SdkVersion: m.SDKVersion, StartsNoProcesses: m.StartsNoProcesses}
	for _, t := range m.Tools {
		out.Tools = append(out.Tools, toolSpecToProto(t))
	}
	return out
}

func toolSpecToProto(t ToolSpec) *toolv1.ToolSpec {
	s := &toolv1.ToolSpec{
		Name: t.Name, Prompt: t.Prompt, InputSchema: t.InputSchema, CascadesOnFailure: t.CascadesOnFailure,
		ReadOnlyWithoutSubjects: t.ReadOnlyWithoutSubjects, DefaultPrepare: t.DefaultPrepare, HonoursExpect: t.HonoursExpect,
		OutputSchema: t.OutputSchema,
	}
	if b := t.ResultBudget; b != nil {
		s.ResultBudget = &toolv1.Budget{Unlimited: b.Unlimited, LimitChars: b.LimitChars}
	}
	if a := t.Annotations; a != nil {
		s.Annotations = &toolv1.Annotations{Title: a.Title, ReadOnly: a.ReadOnly, NonDestructive: a.NonDestructive,
			Idempotent: a.Idempotent, Local: a.Local}
	}
	return s
}

// MarshalManifest and UnmarshalManifest encode a manifest as the wire does,
// for the host's manifest cache: one encoding, the protocol's own.
func MarshalManifest(m Manifest) ([]byte, error) { return proto.Marshal(manifestToProto(m)) }

// UnmarshalManifest reads what MarshalManifest wrote.
func UnmarshalManifest(data []byte) (Manifest, error) {
	m := &toolv1.ManifestResponse{}
	if err := proto.Unmarshal(data, m); err != nil {
		return Manifest{}, err
	}
	return manifestFromProto(m), nil
}
