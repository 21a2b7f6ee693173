package permission

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/mattn/go-isatty"
)

// term is a pseudo-terminal: the prompter gets the tty side, and the test
// plays the user on the other.
type term struct {
	t       *testing.T
	ptmx    *os.File
	tty     *os.File
	chunks  chan string
	pending string
	all     strings.Builder
}

func newTerm(t *testing.T) *term {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	tm := &term{t: t, ptmx: ptmx, tty: tty, chunks: make(chan string)}
	done := make(chan struct{})
	go func() {
		defer close(tm.chunks)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				select {
				case tm.chunks <- string(buf[:n]):
				case <-done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		tty.Close()
		ptmx.Close()
	})
	return tm
}

// waitFor reads the terminal until s appears, and consumes through it.
func (tm *term) waitFor(s string) {
	tm.t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for !strings.Contains(tm.pending, s) {
		select {
		case c, ok := <-tm.chunks:
			if !ok {
				tm.t.Fatalf("the terminal closed before %q appeared; it showed %q", s, tm.all.String())
			}
			tm.pending += c
			tm.all.WriteString(c)
		case <-timeout.C:
			tm.t.Fatalf("%q did not appear; the terminal showed %q", s, tm.all.String())
		}
	}
	tm.pending = tm.pending[strings.Index(tm.pending, s)+len(s):]
}

func (tm *term) typeText(s string) {
	tm.t.Helper()
	if _, err := tm.ptmx.WriteString(s); err != nil {
		tm.t.Fatal(err)
	}
}

type promptResult struct {
	a   Answer
	err error
}

func (tm *term) prompt(ctx context.Context, p *TTYPrompter, req Request, d Decision) chan promptResult {
	res := make(chan promptResult, 1)
	go func() {
		a, err := p.Prompt(ctx, req, d)
		res <- promptResult{a, err}
	}()
	return res
}

func askTouch() (Request, Decision) {
	req := Request{Tool: "Bash", Describe: "touch x"}
	d := Decision{Behavior: Ask, Step: StepMode, Reason: "Bash on `touch x` is not read-only.",
		Suggestions: []string{"Bash(touch:*)"}, Suggest: "Bash(touch:*)"}
	return req, d
}

func TestTTYPrompterUnderPTY(t *testing.T) {
	for _, c := range []struct {
		name    string
		typed   []string // one line each; the last one answers
		noRule  bool
		want    Answer
		retries string
	}{
		{"y", []string{"y"}, false, AnswerAllowOnce, ""},
		{"yes", []string{"YES"}, false, AnswerAllowOnce, ""},
		{"1", []string{"1"}, false, AnswerAllowOnce, ""},
		{"once", []string{"once"}, false, AnswerAllowOnce, ""},
		{"o", []string{"o"}, false, AnswerAllowOnce, ""},
		{"s", []string{"s"}, false, AnswerAllowSession, ""},
		{"session", []string{"  session  "}, false, AnswerAllowSession, ""},
		{"2", []string{"2"}, false, AnswerAllowSession, ""},
		{"a", []string{"a"}, false, AnswerAllowAlways, ""},
		{"always", []string{"always"}, false, AnswerAllowAlways, ""},
		{"3", []string{"3"}, false, AnswerAllowAlways, ""},
		{"n", []string{"n"}, false, AnswerDeny, ""},
		{"no", []string{"no"}, false, AnswerDeny, ""},
		{"d", []string{"d"}, false, AnswerDeny, ""},
		{"deny", []string{"deny"}, false, AnswerDeny, ""},
		{"4", []string{"4"}, false, AnswerDeny, ""},
		{"Enter denies", []string{""}, false, AnswerDeny, ""},
		{"a retry", []string{"maybe", "s"}, false, AnswerAllowSession, "Type y, s, a or n, then Enter."},
		{"two retries", []string{"?", "5", "a"}, false, AnswerAllowAlways, "Type y, s, a or n, then Enter."},
		{"without a rule, s is no answer", []string{"s", "y"}, true, AnswerAllowOnce, "Type y or n, then Enter."},
		{"without a rule, a is no answer", []string{"a", "always", "n"}, true, AnswerDeny, "Type y or n, then Enter."},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := newTerm(t)
			p := &TTYPrompter{In: tm.tty, Out: tm.tty}
			req, d := askTouch()
			if c.noRule {
				d.Suggestions, d.Suggest = nil, ""
			}
			res := tm.prompt(context.Background(), p, req, d)
			tm.waitFor("riot: Bash wants to: touch x\r\n")
			tm.waitFor("  why it asks: Bash on `touch x` is not read-only.\r\n")
			tm.waitFor("  [y] allow once\r\n")
			if !c.noRule {
				tm.waitFor("  [s] allow for this session: Bash(touch:*)\r\n")
				tm.waitFor("  [a] always allow: add Bash(touch:*) to .riot/config.local.toml\r\n")
			}
			tm.waitFor("  [n] deny (the default)\r\n")
			for i, line := range c.typed {
				tm.waitFor("Answer: ")
				tm.typeText(line + "\r")
				if i < len(c.typed)-1 {
					tm.waitFor(c.retries)
				}
			}
			r := <-res
			if r.a != c.want || r.err != nil {
				t.Errorf("got %v %v, want %v", r.a, r.err, c.want)
			}
			if c.noRule && strings.Contains(tm.all.String(), "[s]") {
				t.Errorf("offers the session answer without a rule: %q", tm.all.String())
			}
		})
	}
}

func TestTTYPrompterGivesUp(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	req, d := askTouch()
	res := tm.prompt(context.Background(), p, req, d)
	for range maxTries {
		tm.waitFor("Answer: ")
		tm.typeText("what\r")
	}
	tm.waitFor("riot: denied (no valid answer).")
	if r := <-res; r.a != AnswerDeny || r.err != nil {
		t.Errorf("got %v %v", r.a, r.err)
	}
}

func TestTTYPrompterEndOfInput(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	req, d := askTouch()
	res := tm.prompt(context.Background(), p, req, d)
	tm.waitFor("Answer: ")
	tm.typeText("\x04") // ^D at the start of a line: end of input
	tm.waitFor("riot: denied (end of input).")
	if r := <-res; r.a != AnswerDeny || r.err != nil {
		t.Errorf("got %v %v", r.a, r.err)
	}
	// Later prompts deny at once.
	if a, err := p.Prompt(context.Background(), req, d); a != AnswerDeny || err != nil {
		t.Errorf("after the end: %v %v", a, err)
	}
}

func TestTTYPrompterCancelled(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	req, d := askTouch()
	ctx, cancel := context.WithCancel(context.Background())
	res := tm.prompt(ctx, p, req, d)
	tm.waitFor("Answer: ")
	cancel()
	tm.waitFor("riot: denied (cancelled).")
	if r := <-res; r.a != AnswerDeny || !errors.Is(r.err, context.Canceled) {
		t.Errorf("got %v %v", r.a, r.err)
	}
	// The prompter still works: the answer goes to the next prompt.
	res = tm.prompt(context.Background(), p, req, d)
	tm.waitFor("Answer: ")
	tm.typeText("s\r")
	if r := <-res; r.a != AnswerAllowSession || r.err != nil {
		t.Errorf("after a cancel: %v %v", r.a, r.err)
	}
}

func TestTTYPrompterShowsEscapesInert(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	req, d := askTouch()
	req.Tool, req.Describe = "Ba\u202esh", "touch x\x1b[2J\x1b]0;owned\x07"
	d.Reason = "why\rnot"
	res := tm.prompt(context.Background(), p, req, d)
	tm.waitFor(`riot: Ba\u202esh wants to: touch x\u001b[2J\u001b]0;owned\u0007` + "\r\n")
	tm.waitFor(`  why it asks: why\u000dnot` + "\r\n")
	tm.waitFor("Answer: ")
	tm.typeText("n\r")
	<-res
	if out := tm.all.String(); strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("raw control characters reached the terminal: %q", out)
	}
}

func TestTTYPrompterOneAtATime(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	req, d := askTouch()
	first := tm.prompt(context.Background(), p, req, d)
	tm.waitFor("Answer: ")
	second := tm.prompt(context.Background(), p, req, d)
	tm.typeText("y\r")
	r1 := <-first
	tm.waitFor("Answer: ")
	tm.typeText("n\r")
	r2 := <-second
	if r1.a != AnswerAllowOnce || r2.a != AnswerDeny {
		t.Errorf("got %v then %v", r1.a, r2.a)
	}
	if n := strings.Count(tm.all.String(), "riot: Bash wants to"); n != 2 {
		t.Errorf("%d prompts shown", n)
	}
}

// stepReader hands out one chunk per Read, and says when Read is called,
// so a test knows when the prompter has taken a line.
type stepReader struct {
	data  chan string
	reads chan struct{}
}

func (s *stepReader) Read(b []byte) (int, error) {
	s.reads <- struct{}{}
	d, ok := <-s.data
	if !ok {
		return 0, os.ErrClosed
	}
	return copy(b, d), nil
}

func TestTTYPrompterDiscardsTypeAhead(t *testing.T) {
	in := &stepReader{data: make(chan string), reads: make(chan struct{}, 1)}
	defer close(in.data)
	outR, outW := io.Pipe()
	defer outR.Close()
	p := &TTYPrompter{In: in, Out: outW}
	shown := func() { // reads the prompter's output through "Answer: "
		t.Helper()
		var seen []byte
		buf := make([]byte, 1024)
		for !bytes.HasSuffix(seen, []byte("Answer: ")) {
			n, err := outR.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, buf[:n]...)
		}
	}
	req, d := askTouch()
	res := make(chan promptResult, 1)
	ask := func() {
		go func() {
			a, err := p.Prompt(context.Background(), req, d)
			res <- promptResult{a, err}
		}()
	}
	ask()
	shown()
	<-in.reads
	in.data <- "y\n"
	if r := <-res; r.a != AnswerAllowOnce {
		t.Fatalf("first answer %v", r.a)
	}
	<-in.reads
	in.data <- "a\n" // typed while no prompt is shown
	<-in.reads       // the line is queued
	ask()
	shown()
	in.data <- "n\n"
	if r := <-res; r.a != AnswerDeny {
		t.Errorf("a line typed before the prompt answered it: %v", r.a)
	}
}

func TestStdioPrompter(t *testing.T) {
	tty := isatty.IsTerminal(os.Stdin.Fd()) && isatty.IsTerminal(os.Stderr.Fd())
	_, isTTY := StdioPrompter().(*TTYPrompter)
	if isTTY != tty {
		t.Errorf("StdioPrompter is a TTYPrompter: %v; stdin and stderr are terminals: %v", isTTY, tty)
	}
}

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		in       string
		withRule bool
		a        Answer
		ok       bool
	}{
		{"y\n", true, AnswerAllowOnce, true},
		{"\n", false, AnswerDeny, true},
		{"s", true, AnswerAllowSession, true},
		{"s", false, AnswerAllowSession, false},
		{"3", false, AnswerAllowAlways, false},
		{"x", true, AnswerDeny, false},
	} {
		if a, ok := parseAnswer(c.in, c.withRule); a != c.a || ok != c.ok {
			t.Errorf("parseAnswer(%q, %v) = %v %v", c.in, c.withRule, a, ok)
		}
	}
}

func TestPromptTextWithoutDescription(t *testing.T) {
	if got := promptText(Request{Tool: "T"}, Decision{Reason: "r"}); !strings.Contains(got, "riot: T wants to: (no description)\n") {
		t.Errorf("prompt %q", got)
	}
}
