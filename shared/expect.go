package shared

import (
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// DefaultAnswer is the default Prepare answer, the one a tool's manifest
// may declare for every input it accepts (ToolSpec.default_prepare): the
// call's description and nothing else. It is defined here alone: the SDK
// answers with it, and the host judges an elided call by it and holds the
// answer on the stream to it (IsDefaultAnswer).
func DefaultAnswer(describe string) *toolv1.PrepareResponse {
	return &toolv1.PrepareResponse{Describe: describe}
}

// IsDefaultAnswer reports whether p is DefaultAnswer of some description,
// or a rejection, which carries nothing else either. Every other field
// counts, unknown ones included: a field added to PrepareResponse is
// outside the default answer without a change here
// (TestDefaultAnswerFields walks them).
func IsDefaultAnswer(p *toolv1.PrepareResponse) bool {
	if p == nil {
		return false
	}
	c := proto.CloneOf(p)
	c.Describe, c.Rejected = "", ""
	return proto.Equal(c, DefaultAnswer(""))
}

// SameAnswer reports whether two Prepare answers are the same but for
// their descriptions: everything a host judges a call by, and so what
// decides whether a Call carrying an expected answer (CallRequest.expect)
// runs. The messages are compared whole, unknown fields included, so a
// field either side does not know makes them differ: the conservative
// side, since the host then judges the plugin's own answer.
func SameAnswer(a, b *toolv1.PrepareResponse) bool {
	if a == nil || b == nil {
		return a == b
	}
	return proto.Equal(withoutDescribe(a), withoutDescribe(b))
}

// withoutDescribe is p, or a copy of it with Describe cleared.
func withoutDescribe(p *toolv1.PrepareResponse) *toolv1.PrepareResponse {
	if p.GetDescribe() == "" {
		return p
	}
	c := proto.CloneOf(p)
	c.Describe = ""
	return c
}
