package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/plugin/sandbox"
	"github.com/riot-tools/riot/shared"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Runtime is what a server gives every call's Env besides the session:
// access to time, processes, the network and the log.
type Runtime struct {
	Clock Clock
	Proc  Proc
	Net   Net
	Log   hclog.Logger
	// OneShotHost: the host closes after this invocation (see
	// shared.OneShotEnv).
	OneShotHost bool
	// StartsNoProcesses: the tools start no processes. NewServer then
	// gives them a Proc that refuses every start (*NoProcessError), and the
	// manifest tells the host, which sends their calls no sandbox.
	// ServeReadOnly sets it.
	StartsNoProcesses bool
}

// Server serves a set of tools over the ToolPlugin interface. Serve runs
// one behind go-plugin; plugintest runs one inside a test.
type Server struct {
	rt       Runtime
	order    []Handler
	byName   map[string]Handler
	manifest *toolv1.ManifestResponse
}

var _ shared.ToolPlugin = (*Server)(nil)

// NewServer returns a server for handlers, which keep their order in the
// Manifest. Tool names must be unique and non-empty.
func NewServer(rt Runtime, handlers ...Handler) (*Server, error) {
	if len(handlers) == 0 {
		return nil, fmt.Errorf("a plugin must serve at least one tool")
	}
	if rt.Log == nil {
		rt.Log = hclog.NewNullLogger()
	}
	s := &Server{rt: rt, byName: make(map[string]Handler, len(handlers)), manifest: &toolv1.ManifestResponse{SdkVersion: Version}}
	if rt.StartsNoProcesses {
		s.rt.Proc = noProc{}
		s.manifest.StartsNoProcesses = true
	}
	for _, h := range handlers {
		name := h.Name()
		if name == "" {
			return nil, fmt.Errorf("a tool has an empty name")
		}
		if _, dup := s.byName[name]; dup {
			return nil, fmt.Errorf("two tools are named %q", name)
		}
		s.byName[name] = h
		s.order = append(s.order, h)
		s.manifest.Tools = append(s.manifest.Tools, h.spec())
	}
	return s, nil
}

// Manifest implements shared.ToolPlugin.
func (s *Server) Manifest(context.Context) (*toolv1.ManifestResponse, error) {
	return s.manifest, nil
}

// Prepare implements shared.ToolPlugin. A panic while preparing becomes a
// rejection; the stack goes to the log.
func (s *Server) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (resp *toolv1.PrepareResponse, _ error) {
	h, ok := s.byName[req.GetTool()]
	if !ok {
		return &toolv1.PrepareResponse{Rejected: s.unknownTool(req.GetTool())}, nil
	}
	defer s.preparePanic(req.GetTool(), req.GetCallId(), &resp)
	env := s.env(req.GetCallId(), req.GetContext())
	return h.prepare(ctx, req.GetInput(), env), nil
}

// preparePanic turns a panic while preparing a call into a rejection in
// *resp; the stack goes to the log. Deferred.
func (s *Server) preparePanic(tool, callID string, resp **toolv1.PrepareResponse) {
	if r := recover(); r != nil {
		s.rt.Log.Error("panic while preparing a call", "tool", tool, "call_id", callID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*resp = &toolv1.PrepareResponse{Rejected: fmt.Sprintf("The %s tool failed while checking this input (an internal error in the tool). Do not retry this input unchanged; use another approach.", tool)}
	}
}

// Call implements shared.ToolPlugin.
func (s *Server) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	snd := &sender{send: send}
	h, ok := s.byName[req.GetTool()]
	if !ok && !isUnprepared(req) {
		return snd.event(final(Failed(s.unknownTool(req.GetTool())), s.rt.Log))
	}
	env := s.env(req.GetCallId(), req.GetContext())
	run := func() Outcome { return h.call(ctx, req.GetInput(), env) }
	if isUnprepared(req) {
		if run = s.unprepared(ctx, h, req, env, snd); run == nil {
			return snd.err
		}
	}
	out := newOutput(ctx, snd, req.GetContext().GetSpillFile())
	env.output = out
	env.progress = snd.progress
	outcome := s.run(req, run)
	streamed, err := out.close()
	if err != nil {
		return err
	}
	next := uint32(0)
	if streamed {
		next = 1
	}
	if outcome.ok {
		for _, b := range outcome.content {
			// Text on the wire is UTF-8; the host refuses anything else.
			kind, data := toolv1.BlockKind_BLOCK_KIND_TEXT, []byte(strings.ToValidUTF8(b.text, string(utf8.RuneError)))
			if b.IsImage() {
				kind, data = toolv1.BlockKind_BLOCK_KIND_IMAGE, b.data
			}
			if err := snd.block(next, kind, b.mediaType, data); err != nil {
				return err
			}
			next++
		}
	}
	return snd.event(final(outcome, s.rt.Log))
}

// run calls the tool, turning a panic in the calling goroutine into a
// Failed outcome. A panic in a goroutine of the tool's own kills the
// plugin; the host turns that into a Failed outcome too.
func (s *Server) run(req *toolv1.CallRequest, call func() Outcome) (outcome Outcome) {
	defer func() {
		if r := recover(); r != nil {
			s.rt.Log.Error("panic in tool call", "tool", req.GetTool(), "call_id", req.GetCallId(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			outcome = Failed(fmt.Sprintf("The %s tool failed with an internal error while running this call; it may have partially run. Check the state it would have changed before retrying, and do not retry this input unchanged.", req.GetTool()))
		}
	}()
	return call()
}

func (s *Server) unknownTool(name string) string {
	names := make([]string, len(s.order))
	for i, h := range s.order {
		names[i] = h.Name()
	}
	return fmt.Sprintf("This plugin serves no tool named %q; it serves %v.", name, names)
}

func (s *Server) env(callID string, c *toolv1.CallContext) *Env {
	env := &Env{
		SessionID:   c.GetSessionId(),
		CallID:      callID,
		Cwd:         c.GetCwd(),
		Roots:       c.GetWorkspaceRoots(),
		ResultsDirs: c.GetResultsDirs(),
		DenyRead:    c.GetDenyRead(),
		Mode:        c.GetPermissionMode(),
		Clock:       s.rt.Clock,
		Proc:        s.rt.Proc,
		Net:         s.rt.Net,
		Log:         s.rt.Log.With("call_id", callID),
		state:       c.GetState(),
		Sandbox:     sandbox.FromProto(c.GetSandbox()),
		OneShotHost: s.rt.OneShotHost,
		baseProc:    s.rt.Proc,
	}
	env.Proc = procFor(s.rt.Proc, env.Sandbox)
	for name, st := range c.GetSharedState() {
		if env.shared == nil {
			env.shared = make(map[string]map[string]string, len(c.GetSharedState()))
		}
		env.shared[name] = st.GetValues()
	}
	if ms := c.GetDeadlineUnixMs(); ms > 0 {
		env.Deadline = time.UnixMilli(ms)
	}
	env.AllowedReads = c.GetAllowedReads()
	env.AllowedWrites = c.GetAllowedWrites()
	return env
}

// procFor is the Proc of a call in profile. A Proc that cannot sandbox
// runs a profile that is not required as it is, and refuses one that is.
func procFor(base Proc, profile *sandbox.Profile) Proc {
	if profile == nil {
		return base
	}
	if sp, ok := base.(SandboxingProc); ok {
		return sp.Sandboxed(profile)
	}
	if profile.Required {
		return refusingProc{}
	}
	return base
}

// refusingProc starts nothing: its Proc cannot apply a required sandbox.
type refusingProc struct{}

func (refusingProc) Start(context.Context, *exec.Cmd) (Process, error) {
	return nil, &sandbox.UnavailableError{Why: "this tool's process starter cannot apply a sandbox"}
}

func final(o Outcome, log hclog.Logger) *toolv1.CallEvent {
	f := &toolv1.Final{Status: toolv1.Status_STATUS_FAILED, Message: o.message, StateUpdates: o.state}
	if o.ok {
		f.Status = toolv1.Status_STATUS_OK
	}
	if o.ui != nil {
		ui, err := json.Marshal(o.ui)
		if err != nil {
			log.Error("UI payload does not marshal to JSON; dropped", "error", err)
		} else {
			f.UiPayload = ui
		}
	}
	return &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: f}}
}
