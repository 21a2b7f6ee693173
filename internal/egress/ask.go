package egress

import (
	"context"
	"fmt"
	"strconv"
)

// Question asks the user about a host no rule covers.
type Question struct {
	// Host is the host as rules match it; Port the port asked for.
	Host string
	Port int
	// Caller is the call whose command asked first.
	Caller string
	// Rule is the allowed_domains entry AnswerAlways persists, naming
	// exactly this host and port, such as "example.com:443".
	Rule string
}

// Answer is the user's answer to a Question.
type Answer int

const (
	// AnswerDeny refuses the host:port for the rest of the session. It is
	// the zero value, so an unanswered question refuses.
	AnswerDeny Answer = iota
	// AnswerSession allows the host:port for the rest of the session,
	// in memory only.
	AnswerSession
	// AnswerAlways allows it for the session and persists Question.Rule
	// through Options.Persist.
	AnswerAlways
	// AnswerUnasked: nobody could be asked (no terminal, the question was
	// cancelled). The connections waiting are refused as a name no rule
	// covers is, and the question is forgotten, so a later connection
	// from a call whose user can answer is asked.
	AnswerUnasked
)

func (a Answer) String() string {
	switch a {
	case AnswerDeny:
		return "deny"
	case AnswerSession:
		return "allow for the session"
	case AnswerAlways:
		return "allow always"
	case AnswerUnasked:
		return "not asked"
	default:
		return "deny (" + strconv.Itoa(int(a)) + ")"
	}
}

// asked is one question of the session: its answer once done is closed.
type asked struct {
	done   chan struct{}
	answer Answer
}

// answerFor gets the session's answer for t:port, asking the user once
// per session: concurrent connections wait for the one question. It
// returns "" when the answer allows, else the reason for the refusal
// (unknown, the reason nobody could be asked).
func (p *Proxy) answerFor(ctx context.Context, caller string, t target, port int, unknown string) string {
	if p.ask == nil {
		return unknown
	}
	q := Question{Host: t.String(), Port: port, Caller: caller, Rule: ruleFor(t, port)}
	key := q.Rule
	p.mu.Lock()
	a, ok := p.answers[key]
	if !ok {
		a = &asked{done: make(chan struct{})}
		p.answers[key] = a
	}
	p.mu.Unlock()
	if !ok && !p.start(func() { p.putQuestion(a, q) }) {
		close(a.done) // refuses whoever waits: the session is over
		return "the proxy is closing; retry the command"
	}
	if p.onWait != nil {
		p.onWait(q)
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		return fmt.Sprintf("the command gave up while the user was being asked about %s:%d", q.Host, port)
	}
	switch a.answer {
	case AnswerSession, AnswerAlways:
		return ""
	case AnswerUnasked:
		return unknown
	case AnswerDeny:
		return fmt.Sprintf("the user refused %s:%d for this session; do not retry it or try to reach it another way", q.Host, port)
	default:
		return fmt.Sprintf("the user refused %s:%d for this session; do not retry it or try to reach it another way", q.Host, port)
	}
}

// putQuestion asks the user and publishes the answer. A panic in Ask or
// an answer outside the enum refuses.
func (p *Proxy) putQuestion(a *asked, q Question) {
	answer := AnswerDeny
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("egress: asking the user panicked", "host", q.Host, "panic", r)
			answer = AnswerDeny
		}
		a.answer = answer
		if answer == AnswerUnasked {
			p.mu.Lock()
			if p.answers[q.Rule] == a {
				delete(p.answers, q.Rule)
			}
			p.mu.Unlock()
		}
		close(a.done)
	}()
	answer = p.ask(p.ctx, q)
	switch answer {
	case AnswerDeny, AnswerSession, AnswerUnasked:
	case AnswerAlways:
		if p.persist == nil {
			p.log.Warn("egress: no config to persist an always answer; it holds for this session", "rule", q.Rule)
		} else if err := p.persist(q.Rule); err != nil {
			p.log.Error("egress: cannot persist an always answer; it holds for this session", "rule", q.Rule, "error", err)
		}
	default:
		answer = AnswerDeny
	}
}
