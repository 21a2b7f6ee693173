package shared

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// stateSeen is a ToolPlugin that records the state each Prepare saw.
type stateSeen struct {
	fakeTools
	seen chan *toolv1.CallContext
}

func (s *stateSeen) Prepare(_ context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	s.seen <- req.GetContext()
	return &toolv1.PrepareResponse{}, nil
}

// stateStep is one request's state: the plugin's own and the others'.
type stateStep struct {
	own    map[string]string
	shared map[string]map[string]string
}

func (s stateStep) context() *toolv1.CallContext {
	cc := &toolv1.CallContext{Cwd: "/w", State: s.own}
	for name, st := range s.shared {
		if cc.SharedState == nil {
			cc.SharedState = map[string]*toolv1.PluginState{}
		}
		cc.SharedState[name] = &toolv1.PluginState{Values: st}
	}
	return cc
}

// stateSteps set, change and remove keys of the plugin's own state and of
// others', and remove another plugin's state whole.
var stateSteps = []stateStep{
	{},
	{own: map[string]string{"a": "1"}},
	{own: map[string]string{"a": "1", "b": "2"}, shared: map[string]map[string]string{"bash": {"cwd": "/w"}}},
	{own: map[string]string{"a": "1", "b": "2"}, shared: map[string]map[string]string{"bash": {"cwd": "/w"}}},
	{own: map[string]string{"b": "3"}, shared: map[string]map[string]string{"bash": {"cwd": "/x"}, "read": {"f": "s"}}},
	{own: map[string]string{"b": "3"}, shared: map[string]map[string]string{"read": {"f": "s", "g": "t"}}},
	{},
}

// Over a link the plugin sees each request's whole state, as over the
// stream, while each frame carries only what changed since the last.
func TestLinkCarriesStateChanges(t *testing.T) {
	impl := &stateSeen{fakeTools: *newFake(), seen: make(chan *toolv1.CallContext, 1)}
	c, _ := serveSession(t, impl, 3)
	for i, step := range stateSteps {
		cc := step.context()
		sent := proto.Clone(cc)
		if _, err := c.Prepare(context.Background(), &toolv1.PrepareRequest{Tool: "Echo", Context: cc}); err != nil {
			t.Fatal(err)
		}
		got := <-impl.seen
		if !proto.Equal(got, sent) {
			t.Fatalf("step %d: the plugin saw %v, want %v", i, got, sent)
		}
		if !proto.Equal(cc, sent) {
			t.Fatalf("step %d: the caller's request changed to %v", i, cc)
		}
	}
	if got := transport(c); got != "link" {
		t.Fatalf("the requests ran on the %s, want the link", got)
	}
}

// The deltas are the changes alone: nothing for a state that did not
// change, and the version moves only when something did.
func TestStateDeltasAreTheChanges(t *testing.T) {
	var host, plugin stateView
	for i, step := range stateSteps {
		f := &toolv1.SessionRequest{Id: uint64(i + 1), Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "T", Context: step.context()}}}
		out, next := host.withDelta(f)
		d := out.GetState()
		cc := out.GetCall().GetContext()
		if cc.GetState() != nil || cc.GetSharedState() != nil || cc.GetCwd() != "/w" || out.GetId() != f.GetId() || out.GetCall().GetTool() != "T" {
			t.Fatalf("step %d: the frame sent is %v", i, out)
		}
		var prev stateStep
		if i > 0 {
			prev = stateSteps[i-1]
		}
		same := maps.Equal(prev.own, step.own) && maps.EqualFunc(prev.shared, step.shared, maps.Equal)
		if same != (d.GetVersion() == d.GetBase()) || d.GetBase() != host.version {
			t.Fatalf("step %d: unchanged %v, delta %v from version %d", i, same, d, host.version)
		}
		if same && (len(d.GetSet())+len(d.GetRemoved())+len(d.GetShared())+len(d.GetRemovedPlugins()) != 0) {
			t.Fatalf("step %d: an unchanged state sent %v", i, d)
		}
		host = next
		if err := plugin.apply(out); err != nil {
			t.Fatal(err)
		}
		if want := step.context(); !proto.Equal(out.GetCall().GetContext(), want) || out.GetState() != nil {
			t.Fatalf("step %d: the plugin rebuilt %v, want %v", i, out.GetCall().GetContext(), want)
		}
	}
	// Step 4 changes b, removes a, changes bash's cwd and adds read.
	var v stateView
	for _, step := range stateSteps[:4] {
		_, v = v.withDelta(&toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Context: step.context()}}})
	}
	out, _ := v.withDelta(&toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Context: stateSteps[4].context()}}})
	d := out.GetState()
	if !maps.Equal(d.GetSet(), map[string]string{"b": "3"}) || !slices.Equal(d.GetRemoved(), []string{"a"}) ||
		!maps.Equal(d.GetShared()["bash"].GetSet(), map[string]string{"cwd": "/x"}) || !maps.Equal(d.GetShared()["read"].GetSet(), map[string]string{"f": "s"}) {
		t.Fatalf("step 4's delta is %v", d)
	}
	// A frame without a CallContext carries no delta.
	cancel := &toolv1.SessionRequest{Id: 9, Frame: &toolv1.SessionRequest_Cancel{Cancel: &toolv1.Cancel{}}}
	if out, _ := v.withDelta(cancel); out != cancel {
		t.Fatalf("a cancel frame became %v", out)
	}
}

// A delta against a version the plugin's side does not hold is refused,
// and the state is left as it was; the link then ends.
func TestStateDeltaOutOfStep(t *testing.T) {
	var host, plugin stateView
	for _, step := range stateSteps[:3] {
		out, next := host.withDelta(&toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Context: step.context()}}})
		host = next
		if err := plugin.apply(out); err != nil {
			t.Fatal(err)
		}
	}
	held := plugin
	// The plugin missed a frame: the next delta's base is not its version.
	_, host = host.withDelta(&toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Context: stateSteps[4].context()}}})
	out, _ := host.withDelta(&toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Context: stateSteps[5].context()}}})
	if err := plugin.apply(out); !errors.Is(err, errStateOutOfStep) {
		t.Fatalf("a delta out of step: %v", err)
	}
	if plugin.version != held.version || !maps.Equal(plugin.own, held.own) {
		t.Fatalf("a refused delta changed the state to %+v", plugin)
	}
	// Changes that keep the version are refused too.
	same := &toolv1.SessionRequest{State: &toolv1.StateDelta{Base: plugin.version, Version: plugin.version, Removed: []string{"a"}}}
	if err := plugin.apply(same); !errors.Is(err, errStateOutOfStep) {
		t.Fatalf("changes without a new version: %v", err)
	}
}

// populate sets every field of m, and of the messages it holds down to
// depth, to a value that is not its zero; of a oneof, the member member.
func populate(m protoreflect.Message, member protoreflect.Name, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() && fd.Name() != member {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			v := mp.NewValue()
			if fd.MapValue().Message() == nil {
				v = populated(fd.MapValue())
			}
			mp.Set(populated(fd.MapKey()).MapKey(), v)
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Message() != nil {
				l.Append(protoreflect.ValueOfMessage(l.NewElement().Message()))
			} else {
				l.Append(populated(fd))
			}
		case fd.Message() != nil:
			sub := m.Mutable(fd).Message()
			if depth > 0 {
				populate(sub, member, depth-1)
			}
		default:
			m.Set(fd, populated(fd))
		}
	}
}

// populated is a value of fd's kind that is not its zero.
func populated(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(1)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("s")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("b"))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(7)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(7)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(7)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(7)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(7)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(7)
	}
	panic(fmt.Sprintf("populated: a field of kind %v", fd.Kind()))
}

// shallowCopy copies every field of the messages it copies, whichever
// field is added to them later, and changes nothing in the original.
func TestShallowCopyKeepsEveryField(t *testing.T) {
	for _, tc := range []struct {
		m      proto.Message
		member protoreflect.Name
	}{
		{&toolv1.SessionRequest{}, "prepare"},
		{&toolv1.SessionRequest{}, "call"},
		{&toolv1.PrepareRequest{}, ""},
		{&toolv1.CallRequest{}, ""},
		{&toolv1.CallContext{}, ""},
	} {
		populate(tc.m.ProtoReflect(), tc.member, 1)
		want := proto.Clone(tc.m)
		var got proto.Message
		switch m := tc.m.(type) {
		case *toolv1.SessionRequest:
			got = shallowCopy(m)
		case *toolv1.PrepareRequest:
			got = shallowCopy(m)
		case *toolv1.CallRequest:
			got = shallowCopy(m)
		case *toolv1.CallContext:
			got = shallowCopy(m)
		}
		if !proto.Equal(got, want) || !proto.Equal(tc.m, want) {
			t.Fatalf("%T (%s): the copy is\n%v\nwant\n%v", tc.m, tc.member, got, want)
		}
		if got == tc.m {
			t.Fatalf("%T: the copy is the original", tc.m)
		}
	}
}
