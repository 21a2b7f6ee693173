package shared

import (
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

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
