package shared

import (
	"path/filepath"
	"time"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// CallContext is everything a stateless plugin knows of the session it
// serves (tool.proto CallContext).
type CallContext struct {
	SessionID      string
	Cwd            string
	WorkspaceRoots []string
	// Deadline zero means none.
	Deadline       time.Time
	PermissionMode string
	// State is what the plugin's own tools left in earlier calls.
	State map[string]string
	// SharedState is every plugin's state, by owning plugin.
	SharedState map[string]map[string]string
	ResultsDirs []string
	DenyRead    []string
	// Sandbox nil means the call's processes run unconfined.
	Sandbox *SandboxProfile
	// AllowedReads and AllowedWrites are set in a CallRequest only.
	AllowedReads  []string
	AllowedWrites []string
	// SpillFile nil means the host spills the result itself.
	SpillFile *SpillFile
	// TempView nil means the tool's /tmp is the host's.
	TempView *TempView
}

// TempView is the session's temporary directory, which every sandboxed
// command of the session sees at /tmp, for a tool that starts no processes
// (tool.proto TempView).
type TempView struct {
	// Dir is the directory on the host.
	Dir string
	// OwnPaths are the paths in /tmp shown at their own names over it.
	OwnPaths []string
}

// SpillFile is where a plugin writes a result too large for its budget.
type SpillFile struct {
	Path       string
	AfterBytes uint64
}

func contextFromProto(c *toolv1.CallContext) CallContext {
	out := CallContext{
		SessionID: c.GetSessionId(), Cwd: c.GetCwd(), WorkspaceRoots: c.GetWorkspaceRoots(),
		PermissionMode: c.GetPermissionMode(), State: c.GetState(), ResultsDirs: c.GetResultsDirs(),
		DenyRead: c.GetDenyRead(), Sandbox: sandboxFromProto(c.GetSandbox()),
		AllowedReads: c.GetAllowedReads(), AllowedWrites: c.GetAllowedWrites(),
	}
	if ms := c.GetDeadlineUnixMs(); ms != 0 {
		out.Deadline = time.UnixMilli(ms)
	}
	if len(c.GetSharedState()) > 0 {
		out.SharedState = make(map[string]map[string]string, len(c.GetSharedState()))
		for owner, s := range c.GetSharedState() {
			out.SharedState[owner] = s.GetValues()
		}
	}
	if f := c.GetSpillFile(); f != nil {
		out.SpillFile = &SpillFile{Path: f.GetPath(), AfterBytes: f.GetAfterBytes()}
	}
	out.TempView = tempViewFromProto(c.GetTempView())
	return out
}

// tempViewFromProto keeps only absolute paths, cleaned: a view whose
// directory is not one is none.
func tempViewFromProto(v *toolv1.TempView) *TempView {
	if v == nil || absCleanOne(v.GetDir()) == "" {
		return nil
	}
	return &TempView{Dir: absCleanOne(v.GetDir()), OwnPaths: absClean(v.GetOwnPaths())}
}

func contextToProto(c CallContext) *toolv1.CallContext {
	out := &toolv1.CallContext{
		SessionId: c.SessionID, Cwd: c.Cwd, WorkspaceRoots: c.WorkspaceRoots, PermissionMode: c.PermissionMode,
		State: c.State, ResultsDirs: c.ResultsDirs, DenyRead: c.DenyRead, Sandbox: sandboxToProto(c.Sandbox),
		AllowedReads: c.AllowedReads, AllowedWrites: c.AllowedWrites,
	}
	if !c.Deadline.IsZero() {
		out.DeadlineUnixMs = c.Deadline.UnixMilli()
	}
	if len(c.SharedState) > 0 {
		out.SharedState = make(map[string]*toolv1.PluginState, len(c.SharedState))
		for owner, s := range c.SharedState {
			out.SharedState[owner] = &toolv1.PluginState{Values: s}
		}
	}
	if f := c.SpillFile; f != nil {
		out.SpillFile = &toolv1.SpillFile{Path: f.Path, AfterBytes: f.AfterBytes}
	}
	if v := c.TempView; v != nil {
		out.TempView = &toolv1.TempView{Dir: v.Dir, OwnPaths: v.OwnPaths}
	}
	return out
}

// sandboxFromProto keeps only absolute paths, cleaned: a profile's paths
// are mounts, and a relative one has no meaning there. An unknown mode
// reads as read-only.
func sandboxFromProto(s *toolv1.Sandbox) *SandboxProfile {
	if s == nil {
		return nil
	}
	return &SandboxProfile{
		Writable:       s.GetMode() == toolv1.SandboxMode_SANDBOX_MODE_WRITE,
		ReadPaths:      absClean(s.GetReadPaths()),
		WritePaths:     absClean(s.GetWritePaths()),
		ProtectedPaths: absClean(s.GetProtectedPaths()),
		MaskedPaths:    absClean(s.GetMaskedPaths()),
		Network:        s.GetNetwork(),
		Required:       s.GetRequired(),
		Reason:         s.GetReason(),
		Egress:         egressFromProto(s.GetEgress()),
		HideEnv:        s.GetHideEnv(),
		PassEnv:        s.GetPassEnv(),
		TempDir:        absCleanOne(s.GetTempDir()),
	}
}

// egressFromProto keeps the proxy even when its socket is not an absolute
// path, with the socket emptied: the call then has no network at all,
// never the host's.
func egressFromProto(e *toolv1.Egress) *Egress {
	if e == nil {
		return nil
	}
	var socket string
	if s := absClean([]string{e.GetSocket()}); len(s) == 1 {
		socket = s[0]
	}
	return &Egress{Socket: socket, User: e.GetUser(), Password: e.GetPassword()}
}

func sandboxToProto(p *SandboxProfile) *toolv1.Sandbox {
	if p == nil {
		return nil
	}
	mode := toolv1.SandboxMode_SANDBOX_MODE_READ_ONLY
	if p.Writable {
		mode = toolv1.SandboxMode_SANDBOX_MODE_WRITE
	}
	return &toolv1.Sandbox{
		Mode: mode, ReadPaths: p.ReadPaths, WritePaths: p.WritePaths, ProtectedPaths: p.ProtectedPaths,
		MaskedPaths: p.MaskedPaths, Network: p.Network, Required: p.Required, Reason: p.Reason,
		Egress: egressToProto(p.Egress), HideEnv: p.HideEnv, PassEnv: p.PassEnv, TempDir: p.TempDir,
	}
}

func egressToProto(e *Egress) *toolv1.Egress {
	if e == nil {
		return nil
	}
	return &toolv1.Egress{Socket: e.Socket, User: e.User, Password: e.Password}
}

// absCleanOne is p cleaned, or "" when it is not absolute: a temporary
// directory that is not one gives the sandbox its private /tmp.
func absCleanOne(p string) string {
	if s := absClean([]string{p}); len(s) == 1 {
		return s[0]
	}
	return ""
}

func absClean(in []string) []string {
	out := make([]string, 0, len(in))
	for _, p := range in {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
