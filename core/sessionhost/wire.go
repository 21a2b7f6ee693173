package sessionhost

import (
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
	// Config fingerprints the client's effective config, flags included;
	// a host running another config reloads or refuses.
	Config string `json:"config"`
	// Terminal says a person at the client can answer permission prompts.
	Terminal bool `json:"terminal"`
	// KnownOnly asks the host to run nothing when a call names a tool it
	// does not know: `riot call` then runs it itself, whose usage error
	// names the nearest tool.
	KnownOnly bool `json:"known_only,omitempty"`
}

// clientFrame is one line from a client.
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
	// Local says to run the turn in the client, without a warning.
	Local    bool              `json:"local,omitempty"`
	Prompt   *promptFrame      `json:"prompt,omitempty"`
	Progress *core.Progress    `json:"progress,omitempty"`
	Results  []core.ToolResult `json:"results,omitempty"`
	Done     bool              `json:"done,omitempty"`
	Stopped  bool              `json:"stopped,omitempty"`
}

type promptFrame struct {
	Request  permission.Request  `json:"request"`
	Decision permission.Decision `json:"decision"`
}
