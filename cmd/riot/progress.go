package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/riot-tools/riot/core"
)

// spinnerAfter is how long a call runs before the spinner shows it.
const spinnerAfter = time.Second

// spinner shows long calls on a terminal's stderr: a spinner, the call's
// description, its elapsed time and its latest progress message. Output
// that is not a terminal is never decorated.
type spinner struct {
	w       io.Writer
	enabled bool

	mu      sync.Mutex
	calls   map[string]*spinCall
	order   []string
	ticker  *time.Ticker
	done    chan struct{}
	stopped bool
	drawn   bool
}

type spinCall struct {
	describe string
	message  string
	start    time.Time
}

func (a *app) spinner() *spinner {
	return &spinner{w: a.stderr, enabled: !a.quiet && isTerminal(a.stderr), calls: map[string]*spinCall{}}
}

// onProgress is the spinner's core.Options.OnProgress, or nil when it
// shows nothing, so that a session host sends this client no progress.
func (s *spinner) onProgress() func(core.Progress) {
	if !s.enabled {
		return nil
	}
	return s.event
}

// event is core.Options.OnProgress.
func (s *spinner) event(p core.Progress) {
	if !s.enabled {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	switch p.Phase {
	case "start":
		desc := p.Describe
		if desc == "" {
			desc = p.Tool
		}
		s.calls[p.CallID] = &spinCall{describe: desc, start: time.Now()}
		s.order = append(s.order, p.CallID)
		if s.ticker == nil {
			s.ticker = time.NewTicker(100 * time.Millisecond)
			s.done = make(chan struct{})
			go s.loop(s.ticker, s.done)
		}
	case "progress":
		if c := s.calls[p.CallID]; c != nil {
			c.message = p.Message
		}
	case "end":
		delete(s.calls, p.CallID)
		for i, id := range s.order {
			if id == p.CallID {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
}

// spinnerGlyphs are drawn in turn, one a tick.
const spinnerGlyphs = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

func (s *spinner) loop(t *time.Ticker, done chan struct{}) {
	for tick := 0; ; tick++ {
		select {
		case <-done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		s.draw(tick)
		s.mu.Unlock()
	}
}

func (s *spinner) draw(tick int) {
	var line string
	for _, id := range s.order {
		c := s.calls[id]
		if elapsed := time.Since(c.start); elapsed >= spinnerAfter {
			line = fmt.Sprintf("%c %s (%.0fs)", []rune(spinnerGlyphs)[tick%len([]rune(spinnerGlyphs))], c.describe, elapsed.Seconds())
			if c.message != "" {
				line += " · " + c.message
			}
			if n := len(s.order) - 1; n > 0 {
				line += fmt.Sprintf(" (+%d more)", n)
			}
			break
		}
	}
	if line == "" && !s.drawn {
		return
	}
	// Clear the line, then draw within a typical terminal's width.
	fmt.Fprintf(s.w, "\r\x1b[2K%s", clipRunes(line, 100))
	s.drawn = line != ""
}

// stop clears the spinner line; it is safe to call more than once.
func (s *spinner) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.ticker != nil {
		s.ticker.Stop()
		close(s.done)
	}
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[2K")
	}
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
