package attach

import (
	"encoding/json"

	"github.com/riot-tools/riot/core/toolcall"
)

// MaxFrame bounds one line from a client: a turn's inputs are each at most
// core's 4 MiB, and a turn has a handful.
const MaxFrame = 64 << 20

// maxHostFrame bounds one line from the host: a turn's results, each
// bounded by the result budgets, fit many times over.
const maxHostFrame = 4 * MaxFrame

// Hello is what a client says before its turn: who it is and what it
// expects the host to be.
type Hello struct {
	// Build identifies the riot build; a host of another build refuses.
	Build     string `json:"build"`
	Session   string `json:"session"`
	Workspace string `json:"workspace"`
	// Inputs digests what the client's config is made of besides the
	// files, which the host rereads itself before each turn: the flags and
	// the environment variables the config reads. A host started with
	// other inputs refuses, since its config would differ.
	Inputs string `json:"inputs"`
	// Terminal says a person at the client can answer permission prompts.
	// The host prompts only when it sees so itself (the client's process
	// in the foreground of its controlling terminal, on its stdin and
	// stderr): false declines prompts, true asks for what the host checks.
	Terminal bool `json:"terminal"`
	// KnownOnly asks the host to run nothing when a call names a tool it
	// does not know: `riot call` then runs it itself, whose usage error
	// names the nearest tool.
	KnownOnly bool `json:"known_only,omitempty"`
	// Progress asks for every progress frame of the turn. A client that
	// shows none (no terminal) gets only the first, which says the host
	// has begun the turn: each frame is a write in the host and a wake-up
	// and a decode in the client.
	Progress bool `json:"progress,omitempty"`
	// Render names the format the client prints the results in (riot
	// run's --format): the host renders them (sessionhost.Server.Render)
	// and sends the text to print instead. The host's build is the
	// client's, so the text is what the client would print, and a
	// short-lived client is spared decoding the results and encoding them
	// again.
	Render string `json:"render,omitempty"`
}

// ClientFrame is one line from a client as the client writes it: exactly
// one of a hello (with the turn's calls), an answer, a cancel or a stop.
// The host reads the same line as its own view of it, with the answer
// typed (sessionhost's clientFrame).
type ClientFrame struct {
	Hello *Hello             `json:"hello,omitempty"`
	Uses  []toolcall.ToolUse `json:"uses,omitempty"`
	// Answer is a permission.Answer: 0 deny, 1 allow once, 2 allow for the
	// session, 3 always allow.
	Answer *int `json:"answer,omitempty"`
	Cancel bool `json:"cancel,omitempty"`
	Stop   bool `json:"stop,omitempty"`
}

// hostLine is one line from the host as a client first decodes it: a
// prompt, a progress report and the results stay raw until the frame
// holds them. A client is a short-lived process, and decoding the host's
// frame whole would first build JSON decoders for every type it can hold
// (a prompt's decision, its rules and trace), a fifth of a millisecond of
// an attached turn that receives none of them. The host writes it as
// sessionhost's hostFrame.
type hostLine struct {
	Refused  string          `json:"refused"`
	Error    string          `json:"error"`
	Local    bool            `json:"local"`
	Prompt   json.RawMessage `json:"prompt"`
	Progress json.RawMessage `json:"progress"`
	Results  json.RawMessage `json:"results"`
	Output   string          `json:"output"`
	Warning  string          `json:"warning"`
	Done     bool            `json:"done"`
}

// present reports whether a raw field of a hostLine was sent.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
