package shared

import (
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// TestConversionsKeepEveryField fills every field of each message, at every
// depth, by reflection and converts it to the model and back: a field added
// to tool.proto and forgotten in the model or a conversion fails here
// without a change to this test. The other direction fills every field of
// the model the same way.
func TestConversionsKeepEveryField(t *testing.T) {
	roundTrip := map[string]struct {
		msg  proto.Message
		back func(proto.Message) proto.Message
	}{
		"ManifestResponse": {&toolv1.ManifestResponse{}, func(m proto.Message) proto.Message {
			return manifestToProto(manifestFromProto(m.(*toolv1.ManifestResponse)))
		}},
		"PrepareRequest": {&toolv1.PrepareRequest{}, func(m proto.Message) proto.Message {
			return prepareRequestToProto(prepareRequestFromProto(m.(*toolv1.PrepareRequest)))
		}},
		"PrepareResponse": {&toolv1.PrepareResponse{}, func(m proto.Message) proto.Message {
			return answerToProto(answerFromProto(m.(*toolv1.PrepareResponse)))
		}},
		"CallRequest": {&toolv1.CallRequest{}, func(m proto.Message) proto.Message {
			return callRequestToProto(callRequestFromProto(m.(*toolv1.CallRequest)))
		}},
	}
	for name, c := range roundTrip {
		fillProto(t, c.msg.ProtoReflect(), "")
		if got := c.back(c.msg); !proto.Equal(got, c.msg) {
			t.Errorf("%s lost a field on the way to the model and back:\n got %v\nwant %v", name, got, c.msg)
		}
	}
	oneof := (&toolv1.CallEvent{}).ProtoReflect().Descriptor().Oneofs().ByName("event").Fields()
	for i := range oneof.Len() {
		e := &toolv1.CallEvent{}
		fillProto(t, e.ProtoReflect(), oneof.Get(i).Name())
		if got := eventToProto(eventFromProto(e)); !proto.Equal(got, e) {
			t.Errorf("CallEvent %s lost a field:\n got %v\nwant %v", oneof.Get(i).Name(), got, e)
		}
	}

	for name, c := range map[string]struct {
		model any
		back  func(any) any
	}{
		"Manifest":      {&Manifest{}, func(m any) any { r := manifestFromProto(manifestToProto(*m.(*Manifest))); return &r }},
		"PrepareAnswer": {&PrepareAnswer{}, func(m any) any { r := answerFromProto(answerToProto(*m.(*PrepareAnswer))); return &r }},
		"PrepareRequest": {&PrepareRequest{}, func(m any) any {
			r := prepareRequestFromProto(prepareRequestToProto(*m.(*PrepareRequest)))
			return &r
		}},
		"CallRequest": {&CallRequest{}, func(m any) any {
			r := callRequestFromProto(callRequestToProto(*m.(*CallRequest)))
			return &r
		}},
	} {
		fillModel(t, reflect.ValueOf(c.model).Elem())
		if got := c.back(c.model); !reflect.DeepEqual(got, c.model) {
			t.Errorf("%s lost a field on the way to the wire and back:\n got %+v\nwant %+v", name, got, c.model)
		}
	}
	ev := reflect.TypeFor[CallEvent]()
	for i := range ev.NumField() {
		var e CallEvent
		fillModel(t, reflect.ValueOf(&e).Elem().Field(i))
		if got := eventFromProto(eventToProto(e)); !reflect.DeepEqual(got, e) {
			t.Errorf("CallEvent.%s lost a field:\n got %+v\nwant %+v", ev.Field(i).Name, got, e)
		}
	}
}

// fillProto sets every field of m, recursively; of a oneof, only the field
// named only (every field when only is "").
func fillProto(t *testing.T, m protoreflect.Message, only protoreflect.Name) {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !fd.HasOptionalKeyword() && fd.Name() != only {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Kind() == protoreflect.MessageKind {
				e := l.NewElement()
				fillProto(t, e.Message(), "")
				l.Append(e)
			} else {
				l.Append(protoScalar(t, fd))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			v := mp.NewValue()
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				fillProto(t, v.Message(), "")
			} else {
				v = protoScalar(t, fd.MapValue())
			}
			mp.Set(protoScalar(t, fd.MapKey()).MapKey(), v)
		case fd.Kind() == protoreflect.MessageKind:
			v := m.NewField(fd)
			fillProto(t, v.Message(), "")
			m.Set(fd, v)
		default:
			m.Set(fd, protoScalar(t, fd))
		}
	}
}

func protoScalar(t *testing.T, fd protoreflect.FieldDescriptor) protoreflect.Value {
	t.Helper()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("/x") // absolute: a sandbox keeps only such paths
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("x"))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(fd.Enum().Values().Len() - 1).Number())
	case protoreflect.Int64Kind:
		return protoreflect.ValueOfInt64(1)
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32(1)
	case protoreflect.Uint64Kind:
		return protoreflect.ValueOfUint64(1)
	}
	t.Fatalf("no value for %s of kind %s", fd.Name(), fd.Kind())
	return protoreflect.Value{}
}

// fillModel sets every field of v, recursively, to a value other than its
// zero that the wire can carry.
func fillModel(t *testing.T, v reflect.Value) {
	t.Helper()
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.UnixMilli(1)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("/x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint8, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillModel(t, p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillModel(t, s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillModel(t, k)
		fillModel(t, e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			fillModel(t, v.Field(i))
		}
	default:
		t.Fatalf("no value for kind %s", v.Kind())
	}
}

// A profile from the wire fails closed: a mode this build does not know
// reads as read-only, without the network, and a path that is not absolute
// (no mount can mean it) is dropped.
func TestSandboxFromProtoFailsClosed(t *testing.T) {
	p := sandboxFromProto(&toolv1.Sandbox{Mode: toolv1.SandboxMode(7), Network: true,
		WritePaths: []string{"rel", "/w/../abs"}, ReadPaths: []string{"", "/r/"}})
	if p.Writable || p.NetworkOn() {
		t.Errorf("an unknown mode reads as %+v; want read-only without network", p)
	}
	if !reflect.DeepEqual(p.WritePaths, []string{"/abs"}) || !reflect.DeepEqual(p.ReadPaths, []string{"/r"}) {
		t.Errorf("paths read as %v and %v; want only absolute ones, cleaned", p.WritePaths, p.ReadPaths)
	}
	if sandboxFromProto(nil) != nil {
		t.Error("no profile on the wire reads as a profile")
	}
	e := sandboxFromProto(&toolv1.Sandbox{Mode: toolv1.SandboxMode_SANDBOX_MODE_WRITE, Network: true,
		Egress: &toolv1.Egress{Socket: "rel/egress.sock"}})
	if e.NetworkOn() || !e.EgressOn() || e.Egress.Socket != "" {
		t.Errorf("a proxy on a relative socket reads as %+v (egress %+v); want the proxy kept, its socket empty, no host network", e, e.Egress)
	}
}

// The model's enums number their values as tool.proto does, which is what
// enumFrom and enumTo rely on: each constant against the proto's name.
func TestEnumsNumberedAsTheProto(t *testing.T) {
	for _, c := range []struct {
		model int
		proto int32
	}{
		{int(PermissionPassthrough), int32(toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_PASSTHROUGH)},
		{int(PermissionAllow), int32(toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ALLOW)},
		{int(PermissionAsk), int32(toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_ASK)},
		{int(PermissionDeny), int32(toolv1.PermissionBehavior_PERMISSION_BEHAVIOR_DENY)},
		{int(SubjectUnspecified), int32(toolv1.SubjectKind_SUBJECT_KIND_UNSPECIFIED)},
		{int(SubjectCommand), int32(toolv1.SubjectKind_SUBJECT_KIND_COMMAND)},
		{int(SubjectPath), int32(toolv1.SubjectKind_SUBJECT_KIND_PATH)},
		{int(AccessUnspecified), int32(toolv1.Access_ACCESS_UNSPECIFIED)},
		{int(AccessRead), int32(toolv1.Access_ACCESS_READ)},
		{int(AccessWrite), int32(toolv1.Access_ACCESS_WRITE)},
		{int(BlockUnspecified), int32(toolv1.BlockKind_BLOCK_KIND_UNSPECIFIED)},
		{int(BlockText), int32(toolv1.BlockKind_BLOCK_KIND_TEXT)},
		{int(BlockImage), int32(toolv1.BlockKind_BLOCK_KIND_IMAGE)},
		{int(StatusUnspecified), int32(toolv1.Status_STATUS_UNSPECIFIED)},
		{int(StatusOK), int32(toolv1.Status_STATUS_OK)},
		{int(StatusFailed), int32(toolv1.Status_STATUS_FAILED)},
	} {
		if c.model != int(c.proto) {
			t.Errorf("a model constant is %d where tool.proto has %d", c.model, c.proto)
		}
	}
	if got := enumFrom(toolv1.PermissionBehavior(9), toolv1.PermissionBehavior_name, PermissionAsk); got != PermissionAsk {
		t.Errorf("an unknown permission reads as %d; want Ask", got)
	}
	if got := enumTo(Status(-1), toolv1.Status_name, toolv1.Status_STATUS_UNSPECIFIED); got != toolv1.Status_STATUS_UNSPECIFIED {
		t.Errorf("a status outside the proto's is sent as %v", got)
	}
}
