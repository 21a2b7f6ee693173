package shared

import (
	"errors"
	"maps"
	"reflect"

	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Every request carries the session's state, which grows with the
// session: Read records each file it read. Over a link, whose frames
// arrive in the order they were sent, a request carries only how the
// state differs from the previous request's, and each side keeps the
// state the link last carried. A turn of n Reads then sends O(n) state,
// not O(n²).

// stateView is the session state a link carried last, on either side.
// Its maps are never changed: a new state is a new map, so that the
// exchanges still running with the old one keep it.
type stateView struct {
	version uint64
	own     map[string]string
	shared  map[string]map[string]string
	// wrapped is shared as the CallContext holds it, on the plugin's side.
	wrapped map[string]*toolv1.PluginState
}

// errStateOutOfStep is a delta against a state the plugin's side does not
// hold, which ends the link: the next one starts from nothing.
var errStateOutOfStep = errors.New("a state delta against another version than the link's")

// contextOf is the CallContext of a request frame that opens an exchange.
func contextOf(f *toolv1.SessionRequest) *toolv1.CallContext {
	switch fr := f.GetFrame().(type) {
	case *toolv1.SessionRequest_Prepare:
		return fr.Prepare.GetContext()
	case *toolv1.SessionRequest_Call:
		return fr.Call.GetContext()
	}
	return nil
}

// withDelta is f with its CallContext's state replaced by the delta from
// v, and the view after it. f and its messages are not changed: they are
// the caller's. A frame without a CallContext is f itself.
func (v *stateView) withDelta(f *toolv1.SessionRequest) (*toolv1.SessionRequest, stateView) {
	cc := contextOf(f)
	if cc == nil {
		return f, *v
	}
	d := &toolv1.StateDelta{Base: v.version}
	next := *v
	var changed bool
	d.Set, d.Removed, changed = diff(v.own, cc.GetState())
	if changed {
		next.own = maps.Clone(cc.GetState())
	}
	var sharedChanged bool
	for name, st := range cc.GetSharedState() {
		set, removed, ch := diff(v.shared[name], st.GetValues())
		if !ch {
			continue
		}
		sharedChanged = true
		if d.Shared == nil {
			d.Shared = map[string]*toolv1.StateDelta{}
		}
		d.Shared[name] = &toolv1.StateDelta{Set: set, Removed: removed}
	}
	for name := range v.shared {
		if _, ok := cc.GetSharedState()[name]; !ok {
			sharedChanged = true
			d.RemovedPlugins = append(d.RemovedPlugins, name)
		}
	}
	if sharedChanged {
		next.shared = make(map[string]map[string]string, len(cc.GetSharedState()))
		for name, st := range cc.GetSharedState() {
			next.shared[name] = maps.Clone(st.GetValues())
		}
	}
	if changed || sharedChanged {
		next.version++
	}
	d.Version = next.version
	out := shallowCopy(f)
	out.State = d
	ncc := shallowCopy(cc)
	ncc.State, ncc.SharedState = nil, nil
	switch fr := out.GetFrame().(type) {
	case *toolv1.SessionRequest_Prepare:
		req := shallowCopy(fr.Prepare)
		req.Context = ncc
		out.Frame = &toolv1.SessionRequest_Prepare{Prepare: req}
	case *toolv1.SessionRequest_Call:
		req := shallowCopy(fr.Call)
		req.Context = ncc
		out.Frame = &toolv1.SessionRequest_Call{Call: req}
	}
	return out, next
}

// diff is how next differs from prev: the keys it sets or changes, the
// keys it removes, and whether there is any of either.
func diff(prev, next map[string]string) (set map[string]string, removed []string, changed bool) {
	for k, val := range next {
		if old, ok := prev[k]; !ok || old != val {
			if set == nil {
				set = map[string]string{}
			}
			set[k] = val
		}
	}
	for k := range prev {
		if _, ok := next[k]; !ok {
			removed = append(removed, k)
		}
	}
	return set, removed, len(set) > 0 || len(removed) > 0
}

// apply gives f's CallContext the whole state its delta stands for, and
// makes it the view. A frame without a delta is left as it is. The maps
// are shared by every exchange of the same version, so a ToolPlugin must
// only read a request's state, as the SDK does.
func (v *stateView) apply(f *toolv1.SessionRequest) error {
	d := f.GetState()
	if d == nil {
		return nil
	}
	changes := len(d.GetSet())+len(d.GetRemoved())+len(d.GetShared())+len(d.GetRemovedPlugins()) > 0
	if d.GetBase() != v.version || (changes && d.GetVersion() == v.version) {
		// Changes need a new version, or the sides could not tell.
		return errStateOutOfStep
	}
	if d.GetVersion() != v.version {
		v.own = patch(v.own, d.GetSet(), d.GetRemoved())
		shared := make(map[string]map[string]string, len(v.shared)+len(d.GetShared()))
		maps.Copy(shared, v.shared)
		for name, sd := range d.GetShared() {
			shared[name] = patch(shared[name], sd.GetSet(), sd.GetRemoved())
		}
		for _, name := range d.GetRemovedPlugins() {
			delete(shared, name)
		}
		v.shared = shared
		v.wrapped = make(map[string]*toolv1.PluginState, len(shared))
		for name, st := range shared {
			v.wrapped[name] = &toolv1.PluginState{Values: st}
		}
		v.version = d.GetVersion()
	}
	cc := contextOf(f)
	if cc == nil {
		return nil
	}
	cc.State, cc.SharedState = v.own, v.wrapped
	f.State = nil
	return nil
}

// patch is m with set and removed applied, as a new map.
func patch(m, set map[string]string, removed []string) map[string]string {
	out := make(map[string]string, len(m)+len(set))
	maps.Copy(out, m)
	maps.Copy(out, set)
	for _, k := range removed {
		delete(out, k)
	}
	return out
}

// shallowCopy is a new message of m's type holding m's fields, not copies
// of them: every field, including those added after this was written. A
// generated message's fields are its struct's exported fields (a oneof is
// one); the unexported ones are protobuf's own (its cached size, its
// internal state) and are left new. Copied as struct fields, a message
// costs a tenth of what protoreflect's Range and Set cost, which was a
// fifth of the host's CPU per exchange.
func shallowCopy[M any, P interface {
	*M
	proto.Message
}](m P) P {
	out := P(new(M))
	src, dst := reflect.ValueOf(m).Elem(), reflect.ValueOf(out).Elem()
	t := src.Type()
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			dst.Field(i).Set(src.Field(i))
		}
	}
	return out
}
