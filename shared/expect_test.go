package shared_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

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

// TestDefaultAnswerFields walks PrepareResponse's fields by reflection:
// each field set on the default answer makes it another answer, but the
// description and the rejection, which a default answer may carry. A
// field added to the message is covered without a change to this test
// nor to IsDefaultAnswer, and SameAnswer tells it apart too.
func TestDefaultAnswerFields(t *testing.T) {
	fields := (&toolv1.PrepareResponse{}).ProtoReflect().Descriptor().Fields()
	if fields.Len() < 8 {
		t.Fatalf("PrepareResponse has %d fields, want the 8 it had when this test was written, or more", fields.Len())
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		p := shared.DefaultAnswer("d")
		setNonZero(t, p.ProtoReflect(), fd)
		want := fd.Name() == "describe" || fd.Name() == "rejected"
		if got := shared.IsDefaultAnswer(p); got != want {
			t.Errorf("with %s set, IsDefaultAnswer = %v, want %v", fd.Name(), got, want)
		}
		if got := shared.SameAnswer(p, shared.DefaultAnswer("d")); got != (fd.Name() == "describe") {
			t.Errorf("with %s set, SameAnswer with the default answer = %v, want %v", fd.Name(), got, !got)
		}
	}
	if !shared.IsDefaultAnswer(shared.DefaultAnswer("")) || shared.IsDefaultAnswer(nil) {
		t.Error("the default answer of no description is the default answer; nil is none")
	}
	unknown := shared.DefaultAnswer("d")
	unknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
	if shared.IsDefaultAnswer(unknown) {
		t.Error("an answer with a field this build does not know is not the default answer")
	}
}

// setNonZero gives fd a value other than its zero in m: one element of a
// list or map, or a set scalar or message.
func setNonZero(t *testing.T, m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	t.Helper()
	scalar := func(fd protoreflect.FieldDescriptor) protoreflect.Value {
		switch fd.Kind() {
		case protoreflect.BoolKind:
			return protoreflect.ValueOfBool(true)
		case protoreflect.StringKind:
			return protoreflect.ValueOfString("x")
		case protoreflect.BytesKind:
			return protoreflect.ValueOfBytes([]byte("x"))
		case protoreflect.EnumKind:
			return protoreflect.ValueOfEnum(fd.Enum().Values().Get(fd.Enum().Values().Len() - 1).Number())
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			return protoreflect.ValueOfInt32(1)
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			return protoreflect.ValueOfInt64(1)
		case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
			return protoreflect.ValueOfUint32(1)
		case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			return protoreflect.ValueOfUint64(1)
		case protoreflect.FloatKind:
			return protoreflect.ValueOfFloat32(1)
		case protoreflect.DoubleKind:
			return protoreflect.ValueOfFloat64(1)
		}
		t.Fatalf("no value for %s of kind %s", fd.Name(), fd.Kind())
		return protoreflect.Value{}
	}
	switch {
	case fd.IsList():
		l := m.Mutable(fd).List()
		if fd.Kind() == protoreflect.MessageKind {
			l.Append(protoreflect.ValueOfMessage(l.NewElement().Message()))
		} else {
			l.Append(scalar(fd))
		}
	case fd.IsMap():
		mp := m.Mutable(fd).Map()
		v := mp.NewValue()
		if fd.MapValue().Kind() != protoreflect.MessageKind {
			v = scalar(fd.MapValue())
		}
		mp.Set(scalar(fd.MapKey()).MapKey(), v)
	case fd.Kind() == protoreflect.MessageKind:
		m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
	default:
		m.Set(fd, scalar(fd))
	}
}
