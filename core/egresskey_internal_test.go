package core

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/riot-tools/riot/internal/egress"
)

// TestEgressMarksUseTheProxysKey drives the real proxy with names no rule
// covers, written as a command may send them (mixed case, punycode, a port
// other than 443), and checks that each refusal's key, as denialNote looks it
// up, is the Rule of the question the proxy asked: the key askEgress
// marks. Were they to differ, a name nobody could be asked about would be
// reported without the line that allows it.
func TestEgressMarksUseTheProxysKey(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]bool{}
	p := egress.New(egress.Options{
		Ask: func(_ context.Context, q egress.Question) egress.Answer {
			mu.Lock()
			asked[q.Rule] = true
			mu.Unlock()
			return egress.AnswerUnasked
		},
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	t.Cleanup(func() {
		_ = p.Close()
		<-served
	})
	const caller = "call#1"
	user, pass := p.Register(caller)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	targets := []string{"Example.COM:443", "XN--bcher-kva.Example:443", "api.example.org:8443", "WWW.Example.Net:80"}
	for _, target := range targets {
		conn, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(conn, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\nProxy-Authorization: "+auth+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		_ = resp.Body.Close()
		_ = conn.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("CONNECT %s was let through", target)
		}
	}
	denials := p.Denials(caller)
	if len(denials) != len(targets) {
		t.Fatalf("got %d refusals for %d targets: %+v", len(denials), len(targets), denials)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != len(targets) {
		t.Fatalf("the proxy asked %d questions for %d targets: %v %+v", len(asked), len(targets), asked, denials)
	}
	for _, d := range denials {
		if key := egressRuleKey(d.Host, d.Port); !asked[key] {
			t.Errorf("the refusal of %s:%d is looked up as %q, which is no question's Rule (%v)", d.Host, d.Port, key, asked)
		}
	}
}
