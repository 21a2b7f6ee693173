package sessionhost

import (
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost/wire"
)

// Hello is what a client says before its turn (wire.Hello).
type Hello = wire.Hello

// clientFrame is one line from a client as the host reads it: exactly one
// of a hello (with the turn's calls), an answer, a cancel or a stop. A
// client writes it as wire.ClientFrame, whose answer is untyped.
type clientFrame struct {
	Hello  *Hello             `json:"hello,omitempty"`
	Uses   []core.ToolUse     `json:"uses,omitempty"`
	Answer *permission.Answer `json:"answer,omitempty"`
	Cancel bool               `json:"cancel,omitempty"`
	Stop   bool               `json:"stop,omitempty"`
}

// hostFrame is one line from the host, as the host writes it; a client
// reads it as wire's hostLine.
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

type promptFrame struct {
	Request  permission.Request  `json:"request"`
	Decision permission.Decision `json:"decision"`
}
