package shared_test

import (
	"testing"

	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// SameAnswer compares all of two answers but their descriptions, unknown
// fields included, and changes neither.
func TestSameAnswer(t *testing.T) {
	base := func() *toolv1.PrepareResponse {
		return &toolv1.PrepareResponse{Describe: "d", ReadOnly: true, ConcurrencySafe: true, ClassifierInput: "c",
			Permission: toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ASK, PermissionReason: "r",
			Subjects: []*toolv1.Subject{{Kind: toolv1.SubjectKind_SUBJECT_KIND_PATH, Value: "/x", Access: toolv1.Access_ACCESS_READ}}}
	}
	other := base()
	other.Describe = "another"
	if !shared.SameAnswer(base(), other) || !shared.SameAnswer(other, base()) {
		t.Error("answers that differ only in their descriptions differ")
	}
	if other.GetDescribe() != "another" {
		t.Error("SameAnswer changed its argument")
	}
	if !shared.SameAnswer(nil, nil) || shared.SameAnswer(base(), nil) || shared.SameAnswer(nil, base()) {
		t.Error("a missing answer")
	}
	for name, change := range map[string]func(*toolv1.PrepareResponse){
		"read_only":         func(p *toolv1.PrepareResponse) { p.ReadOnly = false },
		"concurrency_safe":  func(p *toolv1.PrepareResponse) { p.ConcurrencySafe = false },
		"classifier_input":  func(p *toolv1.PrepareResponse) { p.ClassifierInput = "other" },
		"permission":        func(p *toolv1.PrepareResponse) { p.Permission = toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ALLOW },
		"permission_reason": func(p *toolv1.PrepareResponse) { p.PermissionReason = "" },
		"subject access":    func(p *toolv1.PrepareResponse) { p.Subjects[0].Access = toolv1.Access_ACCESS_WRITE },
		"another subject":   func(p *toolv1.PrepareResponse) { p.Subjects = append(p.Subjects, &toolv1.Subject{Value: "/y"}) },
		"rejected":          func(p *toolv1.PrepareResponse) { p.Rejected = "no" },
		"an unknown field":  func(p *toolv1.PrepareResponse) { p.ProtoReflect().SetUnknown([]byte{0xf8, 0x01, 0x01}) },
	} {
		p := base()
		change(p)
		if shared.SameAnswer(base(), p) || shared.SameAnswer(p, base()) {
			t.Errorf("answers that differ in %s are the same", name)
		}
		p.Describe = ""
		if shared.SameAnswer(base(), p) {
			t.Errorf("answers that differ in %s, one without a description, are the same", name)
		}
	}
}
