package shared

import (
	"bytes"
	"reflect"
)

// DefaultAnswer is the default Prepare answer, the one a tool's manifest
// may declare for every input it accepts (ToolSpec.DefaultPrepare): the
// call's description and nothing else. It is defined here alone: the SDK
// answers with it, and the host judges an elided call by it.
func DefaultAnswer(describe string) PrepareAnswer {
	return PrepareAnswer{Describe: describe}
}

// IsDefaultAnswer reports whether p is DefaultAnswer of some description,
// or a rejection, which carries nothing else either. Every other field
// counts, unknown ones included: a field added to PrepareAnswer is outside
// the default answer without a change here (TestDefaultAnswerFields walks
// them).
func IsDefaultAnswer(p PrepareAnswer) bool {
	p.Describe, p.Rejected = "", ""
	return SameAnswer(p, DefaultAnswer(""))
}

// SameAnswer reports whether two Prepare answers are the same but for
// their descriptions: everything a host judges a call by, and so what
// decides whether a Call carrying an expected answer (CallRequest.Expect)
// runs. Every field counts, a new one included (the comparison is by
// reflection), and unknown fields too: a field either side does not know
// makes them differ, the conservative side, since the host then judges
// the plugin's own answer.
func SameAnswer(a, b PrepareAnswer) bool {
	a.Describe, b.Describe = "", ""
	if len(a.Subjects) == 0 && len(b.Subjects) == 0 {
		a.Subjects, b.Subjects = nil, nil
	}
	if !bytes.Equal(a.Unknown, b.Unknown) {
		return false
	}
	a.Unknown, b.Unknown = nil, nil
	return reflect.DeepEqual(a, b)
}
