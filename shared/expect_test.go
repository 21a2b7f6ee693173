package shared_test

import (
	"reflect"
	"testing"

	"github.com/riot-tools/riot/shared"
)

func answer() shared.PrepareAnswer {
	return shared.PrepareAnswer{Describe: "d", ReadOnly: true, ConcurrencySafe: true, ClassifierInput: "c",
		Permission: shared.PermissionAsk, PermissionReason: "r",
		Subjects: []shared.Subject{{Kind: shared.SubjectPath, Value: "/x", Access: shared.AccessRead}}}
}

// SameAnswer compares all of two answers but their descriptions, unknown
// fields included.
func TestSameAnswer(t *testing.T) {
	other := answer()
	other.Describe = "another"
	if !shared.SameAnswer(answer(), other) || !shared.SameAnswer(other, answer()) {
		t.Error("answers that differ only in their descriptions differ")
	}
	if !shared.SameAnswer(shared.PrepareAnswer{Subjects: []shared.Subject{}}, shared.PrepareAnswer{}) {
		t.Error("no subjects and an empty list of them differ")
	}
	for name, change := range map[string]func(*shared.PrepareAnswer){
		"read_only":         func(p *shared.PrepareAnswer) { p.ReadOnly = false },
		"concurrency_safe":  func(p *shared.PrepareAnswer) { p.ConcurrencySafe = false },
		"classifier_input":  func(p *shared.PrepareAnswer) { p.ClassifierInput = "other" },
		"permission":        func(p *shared.PrepareAnswer) { p.Permission = shared.PermissionAllow },
		"permission_reason": func(p *shared.PrepareAnswer) { p.PermissionReason = "" },
		"subject access":    func(p *shared.PrepareAnswer) { p.Subjects[0].Access = shared.AccessWrite },
		"another subject":   func(p *shared.PrepareAnswer) { p.Subjects = append(p.Subjects, shared.Subject{Value: "/y"}) },
		"rejected":          func(p *shared.PrepareAnswer) { p.Rejected = "no" },
		"an unknown field":  func(p *shared.PrepareAnswer) { p.Unknown = []byte{0xf8, 0x01, 0x01} },
	} {
		p := answer()
		change(&p)
		if shared.SameAnswer(answer(), p) || shared.SameAnswer(p, answer()) {
			t.Errorf("answers that differ in %s are the same", name)
		}
		p.Describe = ""
		if shared.SameAnswer(answer(), p) {
			t.Errorf("answers that differ in %s, one without a description, are the same", name)
		}
	}
}

// TestDefaultAnswerFields walks PrepareAnswer's fields by reflection: each
// field set on the default answer makes it another answer, but the
// description and the rejection, which a default answer may carry. A field
// added to the model is covered without a change to this test nor to
// IsDefaultAnswer, and SameAnswer tells it apart too; the conversions'
// test (TestConversionsKeepEveryField) holds the model to the proto.
func TestDefaultAnswerFields(t *testing.T) {
	typ := reflect.TypeFor[shared.PrepareAnswer]()
	if typ.NumField() < 9 {
		t.Fatalf("PrepareAnswer has %d fields, want the 9 it had when this test was written, or more", typ.NumField())
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		p := shared.DefaultAnswer("d")
		setNonZero(t, reflect.ValueOf(&p).Elem().Field(i))
		want := f.Name == "Describe" || f.Name == "Rejected"
		if got := shared.IsDefaultAnswer(p); got != want {
			t.Errorf("with %s set, IsDefaultAnswer = %v, want %v", f.Name, got, want)
		}
		if got := shared.SameAnswer(p, shared.DefaultAnswer("d")); got != (f.Name == "Describe") {
			t.Errorf("with %s set, SameAnswer with the default answer = %v, want %v", f.Name, got, !got)
		}
	}
	if !shared.IsDefaultAnswer(shared.DefaultAnswer("")) {
		t.Error("the default answer of no description is not the default answer")
	}
}

// setNonZero gives v a value other than its zero: one element of a slice,
// a set scalar, a filled struct.
func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		setNonZero(t, s.Index(0))
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			setNonZero(t, v.Field(i))
		}
	case reflect.Uint8:
		v.SetUint(1)
	default:
		t.Fatalf("no value for kind %s", v.Kind())
	}
}
