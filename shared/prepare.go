package shared

import toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"

// PrepareRequest asks a plugin to check one call (the Prepare RPC).
type PrepareRequest struct {
	Tool    string
	CallID  string
	Input   []byte
	Context CallContext
}

// PrepareAnswer is a plugin's answer to Prepare: everything the host judges
// a call by (tool.proto PrepareResponse).
type PrepareAnswer struct {
	// Rejected, when set, is the model's correction; nothing else counts.
	Rejected         string
	Describe         string
	ReadOnly         bool
	ConcurrencySafe  bool
	ClassifierInput  string
	Permission       Permission
	PermissionReason string
	Subjects         []Subject
	// Unknown holds the fields of a newer plugin's answer that this build
	// does not know, as received. They make the answer differ from every
	// other (SameAnswer) and from the default one: the conservative side.
	Unknown []byte
}

// Permission is a tool's own permission opinion of a call. Like every enum
// of the model, its values are numbered as in tool.proto.
type Permission int

const (
	// PermissionPassthrough: no opinion; the chain decides.
	PermissionPassthrough Permission = iota
	PermissionAllow
	PermissionAsk
	PermissionDeny
)

// Subject is something a call touches that the permission chain judges.
type Subject struct {
	Kind   SubjectKind
	Value  string
	Access Access
}

// SubjectKind says what a Subject's Value names; zero is unspecified,
// which the host refuses.
type SubjectKind int

const (
	SubjectUnspecified SubjectKind = iota
	SubjectCommand
	SubjectPath
)

// Access is how a path subject is touched; zero is unspecified, which the
// host reads as a write.
type Access int

const (
	AccessUnspecified Access = iota
	AccessRead
	AccessWrite
)

func prepareRequestFromProto(r *toolv1.PrepareRequest) PrepareRequest {
	return PrepareRequest{Tool: r.GetTool(), CallID: r.GetCallId(), Input: r.GetInput(), Context: contextFromProto(r.GetContext())}
}

func prepareRequestToProto(r PrepareRequest) *toolv1.PrepareRequest {
	return &toolv1.PrepareRequest{Tool: r.Tool, CallId: r.CallID, Input: r.Input, Context: contextToProto(r.Context)}
}

// answerFromProto keeps the answer's unknown fields (PrepareAnswer.Unknown).
// Enum values this build does not know read as their fail-closed zero but
// for the permission, where an unknown opinion reads as Ask.
func answerFromProto(p *toolv1.PrepareResponse) PrepareAnswer {
	a := PrepareAnswer{
		Rejected: p.GetRejected(), Describe: p.GetDescribe(), ReadOnly: p.GetReadOnly(),
		ConcurrencySafe: p.GetConcurrencySafe(), ClassifierInput: p.GetClassifierInput(),
		Permission: enumFrom(p.GetPermission(), toolv1.PermissionBehavior_name, PermissionAsk), PermissionReason: p.GetPermissionReason(),
		Unknown: p.ProtoReflect().GetUnknown(),
	}
	for _, s := range p.GetSubjects() {
		a.Subjects = append(a.Subjects, Subject{Kind: enumFrom(s.GetKind(), toolv1.SubjectKind_name, SubjectUnspecified), Value: s.GetValue(), Access: enumFrom(s.GetAccess(), toolv1.Access_name, AccessUnspecified)})
	}
	return a
}

// answerToProto sends the answer's unknown fields back as they came, so a
// plugin that knows them compares the answer it gave (CallRequest.expect).
func answerToProto(a PrepareAnswer) *toolv1.PrepareResponse {
	p := &toolv1.PrepareResponse{
		Rejected: a.Rejected, Describe: a.Describe, ReadOnly: a.ReadOnly, ConcurrencySafe: a.ConcurrencySafe,
		ClassifierInput: a.ClassifierInput, Permission: enumTo(a.Permission, toolv1.PermissionBehavior_name, toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ASK), PermissionReason: a.PermissionReason,
	}
	for _, s := range a.Subjects {
		p.Subjects = append(p.Subjects, &toolv1.Subject{Kind: enumTo(s.Kind, toolv1.SubjectKind_name, toolv1.SubjectKind_SUBJECT_KIND_UNSPECIFIED), Value: s.Value, Access: enumTo(s.Access, toolv1.Access_name, toolv1.Access_ACCESS_UNSPECIFIED)})
	}
	if len(a.Unknown) > 0 {
		p.ProtoReflect().SetUnknown(a.Unknown)
	}
	return p
}

// enumFrom reads a wire enum whose model type numbers its values as
// tool.proto does (TestEnumsNumberedAsTheProto); a value this build does
// not know reads as unknown, each enum's fail-closed reading.
func enumFrom[M ~int, P ~int32](p P, names map[int32]string, unknown M) M {
	if _, ok := names[int32(p)]; !ok {
		return unknown
	}
	return M(p)
}

// enumTo is enumFrom's inverse: a model value outside the proto's is sent
// as unknown.
func enumTo[P ~int32, M ~int](m M, names map[int32]string, unknown P) P {
	if m < 0 || int64(m) > int64(^uint32(0)>>1) {
		return unknown
	}
	if _, ok := names[int32(m)]; !ok {
		return unknown
	}
	return P(m)
}
