package permission

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func askHost() NetworkQuestion {
	return NetworkQuestion{Host: "example.com", Port: 443, Rule: "example.com:443", Tool: "Bash", Describe: "npm install"}
}

// The question about a host offers the session, always and no; "once" is
// no answer, since the proxy remembers what it is told for the session.
func TestTTYPrompterAsksAboutAHost(t *testing.T) {
	for _, c := range []struct {
		name  string
		typed []string
		want  Answer
	}{
		{"s", []string{"s"}, AnswerAllowSession},
		{"session", []string{" Session "}, AnswerAllowSession},
		{"a", []string{"a"}, AnswerAllowAlways},
		{"always", []string{"always"}, AnswerAllowAlways},
		{"n", []string{"n"}, AnswerDeny},
		{"Enter denies", []string{""}, AnswerDeny},
		{"y is no answer", []string{"y", "s"}, AnswerAllowSession},
		{"once is no answer", []string{"once", "1", "n"}, AnswerDeny},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := newTerm(t)
			p := &TTYPrompter{In: tm.tty, Out: tm.tty}
			res := make(chan promptResult, 1)
			go func() {
				a, err := p.PromptNetwork(context.Background(), askHost())
				res <- promptResult{a, err}
			}()
			tm.waitFor("riot: a command of Bash: npm install\r\n")
			tm.waitFor("  wants to connect to example.com:443, which no [sandbox.network] rule allows.\r\n")
			tm.waitFor("  [s] allow example.com:443 for this session\r\n")
			tm.waitFor(`  [a] always allow: add "example.com:443" to allowed_domains under [sandbox.network] in .riot/config.local.toml` + "\r\n")
			tm.waitFor("  [n] deny (the default)\r\n")
			for i, line := range c.typed {
				tm.waitFor("Answer: ")
				tm.typeText(line + "\r")
				if i < len(c.typed)-1 {
					tm.waitFor("Type s, a or n, then Enter.")
				}
			}
			if r := <-res; r.a != c.want || r.err != nil {
				t.Errorf("got %v %v, want %v", r.a, r.err, c.want)
			}
		})
	}
}

// A host's name from a command is shown escaped, never acted on by the
// terminal; a cancelled question denies.
func TestTTYPrompterHostIsPrintable(t *testing.T) {
	tm := newTerm(t)
	p := &TTYPrompter{In: tm.tty, Out: tm.tty}
	q := askHost()
	q.Describe = "curl \x1b[2Jx"
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan promptResult, 1)
	go func() {
		a, err := p.PromptNetwork(ctx, q)
		res <- promptResult{a, err}
	}()
	tm.waitFor(`curl \u001b[2Jx`)
	tm.waitFor("Answer: ")
	cancel()
	tm.waitFor("riot: denied (cancelled).")
	if r := <-res; r.a != AnswerDeny || !errors.Is(r.err, context.Canceled) {
		t.Errorf("got %v %v", r.a, r.err)
	}
}

func TestNoTTYCannotAskAboutAHost(t *testing.T) {
	np, ok := NoTTYPrompter().(NetworkPrompter)
	if !ok {
		t.Fatal("NoTTYPrompter does not answer network questions")
	}
	if a, err := np.PromptNetwork(context.Background(), askHost()); a != AnswerDeny || !errors.Is(err, ErrCannotAsk) {
		t.Errorf("got %v %v", a, err)
	}
}

func TestNetworkAnswerFailsClosed(t *testing.T) {
	for a, want := range map[Answer]Answer{
		AnswerAllowSession: AnswerAllowSession, AnswerAllowAlways: AnswerAllowAlways,
		AnswerAllowOnce: AnswerDeny, AnswerDeny: AnswerDeny, Answer(99): AnswerDeny,
	} {
		if got := NetworkAnswer(a); got != want {
			t.Errorf("NetworkAnswer(%v) = %v, want %v", a, got, want)
		}
	}
	if m := NetworkMessage(NetworkQuestion{Host: "::1", Port: 22, Rule: "[::1]:22", Tool: "Bash"}); !strings.Contains(m, "connect to [::1]:22") {
		t.Errorf("message: %s", m)
	}
}

func TestCommandMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, command string
		want             bool
	}{
		{"docker *", "docker build .", true},
		{"docker *", "docker", true},
		{"docker *", "dockerd", false},
		{"docker:*", "docker  ps", true},
		{"docker *", "docker ps && rm -rf ~", false},
		{"docker *", "docker ps > /etc/x", false},
		{"docker *", "docker ps 2>/dev/null", true},
		{"docker ps; rm x", "docker ps; rm x", true},
		{"make test", "make test", true},
		{"make test", "make test2", false},
	} {
		if got := CommandMatches(c.pattern, c.command); got != c.want {
			t.Errorf("CommandMatches(%q, %q) = %v, want %v", c.pattern, c.command, got, c.want)
		}
	}
}
