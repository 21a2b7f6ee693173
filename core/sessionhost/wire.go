package sessionhost

import (
	"encoding/json"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

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
	// run's --format): the host renders them (Server.Render) and sends the
	// text to print instead. The host's build is the client's, so the text
	// is what the client would print, and a short-lived client is spared
	// decoding the results and encoding them again.
	Render string `json:"render,omitempty"`
}

// clientFrame is one line from a client: exactly one of a hello (with the
// turn's calls), an answer, a cancel or a stop.
type clientFrame struct {
	Hello  *Hello             `json:"hello,omitempty"`
	Uses   []core.ToolUse     `json:"uses,omitempty"`
	Answer *permission.Answer `json:"answer,omitempty"`
	Cancel bool               `json:"cancel,omitempty"`
	Stop   bool               `json:"stop,omitempty"`
}

// hostFrame is one line from the host.
type hostFrame struct {
	// Refused says why the host will not run the turn; the client runs it
	// itself.
	Refused string `json:"refused,omitempty"`
	// Error says why the host could not read a frame of the client's:
	// before the turn was taken the client runs it itself, as when
	// refused; during it the turn is cancelled.
	Error string `json:"error,omitempty"`
	// Local says to run the turn in the client, without a warning.
	Local    bool              `json:"local,omitempty"`
	Prompt   *promptFrame      `json:"prompt,omitempty"`
	Progress *core.Progress    `json:"progress,omitempty"`
	Results  []core.ToolResult `json:"results,omitempty"`
	// Output is the results rendered as the hello's Render asked, sent
	// instead of Results.
	Output string `json:"output,omitempty"`
	// Warning is a line the client prints before the results, as it would
	// running the turn itself (the settings an untrusted workspace's files
	// had ignored).
	Warning string `json:"warning,omitempty"`
	Done    bool   `json:"done,omitempty"`
	Stopped bool   `json:"stopped,omitempty"`
}

// hostLine is a host frame as a client first decodes it: a prompt, a
// progress report and the results stay raw until the frame holds them. A
// client is a short-lived process, and decoding hostFrame whole would first
// build JSON decoders for every type it can hold (a prompt's decision, its
// rules and trace), a fifth of a millisecond of an attached turn that
// receives none of them.
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

type promptFrame struct {
	Request  permission.Request  `json:"request"`
	Decision permission.Decision `json:"decision"`
}
