package core

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/riot-tools/riot/core/session"
)

// What becomes of the session's state is told where it matters: the model,
// in the results of the turn it happened in, since its next calls depend
// on it (an Edit needs the Read riot recorded); and the user, on stderr
// and, through a session host, on the client's, with the remedy.

// sessionNotes is what a host has to tell of its session's state.
type sessionNotes struct {
	mu sync.Mutex
	// failing: the model has been told that the state cannot be saved, and
	// no write has succeeded since.
	failing bool
	// user are lines for the user not yet taken by TakeSessionWarnings;
	// model are lines for the next turn's first result.
	user, model []string
}

// takeSessionNotices tells the user what became of corrupt state files,
// at once, and keeps what the model must know for the next turn's first
// result.
func (h *Host) takeSessionNotices() {
	for _, n := range h.state.TakeNotices() {
		if !n.Lost {
			h.warnUser(fmt.Sprintf("the state file of session %s was corrupt; riot moved it to %s and saved the state it held in its place, so nothing was lost. Look at the old file, or delete it.", h.state.ID(), n.MovedTo))
			continue
		}
		where := "was set aside"
		if n.MovedTo != "" {
			where = "was moved to " + n.MovedTo
		}
		h.warnUser(fmt.Sprintf("the state file of session %s was corrupt and %s; the session started afresh, without its records of files read or its grants. Look at the old file, or delete it.", h.state.ID(), where))
		h.notes.mu.Lock()
		h.notes.model = append(h.notes.model, "riot could not read this session's saved state (its file was corrupt) and started the session afresh: Read again any file you read earlier before you Edit it, and expect permissions granted for this session to be asked for again.")
		h.notes.mu.Unlock()
	}
}

// tellSessionState adds to the turn's results what the model must know of
// the session's state: a corrupt state file set aside, a call whose record
// could not be saved, a session host that cannot save at all.
func (h *Host) tellSessionState(calls []*call, results []ToolResult) {
	h.takeSessionNotices()
	h.notes.mu.Lock()
	first := h.notes.model // for the first result of the turn
	h.notes.model = nil
	h.notes.mu.Unlock()
	dir := filepath.Dir(h.state.Path())
	for i, c := range calls {
		if c == nil || c.unsaved == nil || i >= len(results) {
			continue
		}
		why := session.Why(c.unsaved)
		h.warnUser(fmt.Sprintf("cannot save the state of session %s (%s): %s; until then, what its calls record lasts only while this riot runs (%v)", h.state.ID(), why, stateRemedy(c.unsaved, dir), osError(c.unsaved)))
		appendText(&results[i], fmt.Sprintf("riot could not save what this call recorded in the session (%s), such as that a file was read: it holds only while this riot process runs, so in a later invocation Edit will ask you to Read the file again. Tell the user to %s.", why, stateRemedy(c.unsaved, dir)))
	}
	if h.opts.WriteBehind {
		// A session host writes behind its turns, so a failure shows after
		// the turn it belongs to: it is told in the next, once, until a
		// write succeeds.
		err := h.state.SaveError()
		h.notes.mu.Lock()
		tell := err != nil && !h.notes.failing
		h.notes.failing = err != nil
		h.notes.mu.Unlock()
		if tell {
			why := session.Why(err)
			h.warnUser(fmt.Sprintf("cannot save the state of session %s (%s): %s; until then, the session host keeps it in memory, and loses it when it stops (%v)", h.state.ID(), why, stateRemedy(err, dir), osError(err)))
			first = append(first, fmt.Sprintf("riot cannot save this session's state (%s). This session host keeps it in memory, but loses it when it stops: after that, Read again any file you read before you Edit it. Tell the user to %s.", why, stateRemedy(err, dir)))
		}
	}
	switch {
	case len(first) == 0:
	case len(results) > 0:
		appendText(&results[0], strings.Join(first, "\n"))
	default: // a turn of no calls: the next one's first result
		h.notes.mu.Lock()
		h.notes.model = append(first, h.notes.model...)
		h.notes.mu.Unlock()
	}
}

// osError is the operating system's words for a session's failed write,
// for the user's log: its path and the system's error.
func osError(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// warnUser tells the user on stderr, and keeps the line for a session
// host's client.
func (h *Host) warnUser(line string) {
	h.log.Warn(line)
	if !h.opts.WriteBehind {
		return // stderr is the user's
	}
	h.notes.mu.Lock()
	h.notes.user = append(h.notes.user, line)
	h.notes.mu.Unlock()
}

// TakeSessionWarnings returns, once, the lines for the user about the
// session's state that the turns since the last call produced.
func (h *Host) TakeSessionWarnings() string {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	s := strings.Join(h.notes.user, "\n")
	h.notes.user = nil
	return s
}

// stateRemedy says what the user can do about a state that cannot be
// saved in dir.
func stateRemedy(err error, dir string) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "free space on the disk that holds " + dir
	case errors.Is(err, syscall.EROFS):
		return "set riot's state_dir to a writable place, since " + dir + " is read-only"
	case errors.Is(err, fs.ErrPermission):
		return "make " + dir + " and its files writable by the user riot runs as"
	default:
		return "check " + dir + " and remove what stands in the way of the session's files"
	}
}
