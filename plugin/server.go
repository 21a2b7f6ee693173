package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/internal/tmpview"
	"github.com/riot-tools/riot/plugin/sandbox"
	"github.com/riot-tools/riot/shared"
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
	manifest shared.Manifest
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
	s := &Server{rt: rt, byName: make(map[string]Handler, len(handlers)), manifest: shared.Manifest{SDKVersion: Version}}
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

// Manifest implements shared.ToolPlugin. Its tools are a copy, which the
// caller may change.
func (s *Server) Manifest(context.Context) (shared.Manifest, error) {
	m := s.manifest
	m.Tools = slices.Clone(m.Tools)
	return m, nil
}

// Prepare implements shared.ToolPlugin. A panic while preparing becomes a
// rejection; the stack goes to the log.
func (s *Server) Prepare(ctx context.Context, req shared.PrepareRequest) (resp shared.PrepareAnswer, _ error) {
	h, ok := s.byName[req.Tool]
	if !ok {
		return shared.PrepareAnswer{Rejected: s.unknownTool(req.Tool)}, nil
	}
	defer s.preparePanic(req.Tool, req.CallID, &resp)
	env := s.env(req.CallID, &req.Context)
	return h.prepare(ctx, req.Input, env), nil
}

// preparePanic turns a panic while preparing a call into a rejection in
// *resp; the stack goes to the log. Deferred.
func (s *Server) preparePanic(tool, callID string, resp *shared.PrepareAnswer) {
	if r := recover(); r != nil {
		s.rt.Log.Error("panic while preparing a call", "tool", tool, "call_id", callID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*resp = shared.PrepareAnswer{Rejected: fmt.Sprintf("The %s tool failed while checking this input (an internal error in the tool). Do not retry this input unchanged; use another approach.", tool)}
	}
}

// Call implements shared.ToolPlugin.
func (s *Server) Call(ctx context.Context, req shared.CallRequest, send func(shared.CallEvent) error) error {
	snd := &sender{send: send}
	h, ok := s.byName[req.Tool]
	if !ok && !isUnprepared(&req) {
		return snd.event(final(Failed(s.unknownTool(req.Tool)), s.rt.Log))
	}
	env := s.env(req.CallID, &req.Context)
	run := func() Outcome { return h.call(ctx, req.Input, env) }
	if isUnprepared(&req) {
		if run = s.unprepared(ctx, h, &req, env, snd); run == nil {
			return snd.err
		}
	}
	out := newOutput(ctx, snd, req.Context.SpillFile)
	env.output = out
	env.progress = snd.progress
	outcome := s.run(&req, run)
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
			kind, data := shared.BlockText, []byte(strings.ToValidUTF8(b.text, string(utf8.RuneError)))
			if b.IsImage() {
				kind, data = shared.BlockImage, b.data
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
func (s *Server) run(req *shared.CallRequest, call func() Outcome) (outcome Outcome) {
	defer func() {
		if r := recover(); r != nil {
			s.rt.Log.Error("panic in tool call", "tool", req.Tool, "call_id", req.CallID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			outcome = Failed(fmt.Sprintf("The %s tool failed with an internal error while running this call; it may have partially run. Check the state it would have changed before retrying, and do not retry this input unchanged.", req.Tool))
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

func (s *Server) env(callID string, c *shared.CallContext) *Env {
	return &Env{
		SessionID:     c.SessionID,
		CallID:        callID,
		Cwd:           c.Cwd,
		Roots:         c.WorkspaceRoots,
		ResultsDirs:   c.ResultsDirs,
		DenyRead:      c.DenyRead,
		Mode:          c.PermissionMode,
		Deadline:      c.Deadline,
		AllowedReads:  c.AllowedReads,
		AllowedWrites: c.AllowedWrites,
		Clock:         s.rt.Clock,
		Proc:          procFor(s.rt.Proc, c.Sandbox),
		Net:           s.rt.Net,
		Log:           s.rt.Log.With("call_id", callID),
		state:         c.State,
		shared:        c.SharedState,
		Sandbox:       c.Sandbox,
		OneShotHost:   s.rt.OneShotHost,
		baseProc:      s.rt.Proc,
		tmp:           tempView(c.TempView),
	}
}

// tempView is the session's /tmp as the host sent it, or nil.
func tempView(v *shared.TempView) *tmpview.View {
	if v == nil {
		return nil
	}
	return &tmpview.View{Host: v.Dir, Own: v.OwnPaths}
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

func final(o Outcome, log hclog.Logger) shared.CallEvent {
	f := &shared.Final{Status: shared.StatusFailed, Message: o.message, StateUpdates: o.state}
	if o.ok {
		f.Status = shared.StatusOK
	}
	if o.ui != nil {
		ui, err := json.Marshal(o.ui)
		if err != nil {
			log.Error("UI payload does not marshal to JSON; dropped", "error", err)
		} else {
			f.UIPayload = ui
		}
	}
	return shared.CallEvent{Final: f}
}
