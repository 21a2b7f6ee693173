package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestParseMessage(t *testing.T) {
	for _, c := range []struct {
		line string
		code int64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, 0},
		{` {"jsonrpc":"2.0","id":1,"method":"ping"} `, 0},
		{`{bad`, jsonrpc.CodeParseError},
		{``, jsonrpc.CodeParseError},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}x`, jsonrpc.CodeParseError},
		{`{"foo":1}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":["x"]}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest},
		{`[]`, jsonrpc.CodeInvalidRequest},
		{`"x"`, jsonrpc.CodeInvalidRequest},
		{`null`, jsonrpc.CodeInvalidRequest},
	} {
		msg, code, reason := parseMessage([]byte(c.line))
		if code != c.code || (code == 0) != (msg != nil) || (code != 0) == (reason == "") {
			t.Errorf("%s: %v %d %q, want code %d", c.line, msg, code, reason, c.code)
		}
	}
}

// FuzzParseMessage: any line is either a message the SDK decodes, or an
// answer with the right code; never a panic.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{bad`, `{"jsonrpc":"2.0","id":1,"result":{}}`, `[]`, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, code, reason := parseMessage(line)
		switch {
		case msg != nil:
			if code != 0 || reason != "" {
				t.Fatalf("a message with an error: %d %q", code, reason)
			}
			if _, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line)); err != nil {
				t.Fatalf("accepted a line the SDK cannot decode: %v", err)
			}
		case !json.Valid(line):
			if code != jsonrpc.CodeParseError {
				t.Fatalf("invalid JSON answered %d", code)
			}
		default:
			if code != jsonrpc.CodeInvalidRequest || reason == "" {
				t.Fatalf("valid JSON answered %d %q", code, reason)
			}
		}
	})
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("a", maxLine+1)
	br := bufio.NewReaderSize(strings.NewReader("one\r\n"+long+"\ntwo"), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
		eof     bool
	}{{"one", false, false}, {"", true, false}, {"two", false, true}} {
		line, tooLong, err := readLine(br)
		if string(line) != want.line || tooLong != want.tooLong || errors.Is(err, io.EOF) != want.eof {
			t.Fatalf("readLine = %.20q %v %v, want %q %v eof=%v", line, tooLong, err, want.line, want.tooLong, want.eof)
		}
	}
	// A line of exactly maxLine bytes is read.
	exact := strings.Repeat("b", maxLine)
	line, tooLong, _ := readLine(bufio.NewReader(strings.NewReader(exact + "\n")))
	if tooLong || len(line) != maxLine {
		t.Fatalf("a line of maxLine bytes: %d bytes, too long %v", len(line), tooLong)
	}
}

// The connection answers a bad line with id null and goes on to the next.
func TestStdioConnKeepsServing(t *testing.T) {
	var out bytes.Buffer
	conn, err := (&stdioTransport{r: strings.NewReader("{bad\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), w: &out}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "ping" {
		t.Fatalf("read %#v", msg)
	}
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v", err)
	}
	if got := out.String(); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON. Send one JSON-RPC message per line."}}`+"\n" {
		t.Fatalf("wrote %q", got)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(context.Background()); err == nil {
		t.Fatal("a read after close")
	}
}

// The response to a cancelled request in flight is dropped; other
// responses, and cancellations of what is not in flight, pass.
func TestCancelFilter(t *testing.T) {
	var out bytes.Buffer
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":"s","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"3"}}`,
	}, "\n") + "\n"
	conn, _ := (&stdioTransport{r: strings.NewReader(in), w: &out}).Connect(context.Background())
	for range 7 {
		if _, err := conn.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []any{int64(1), "s", int64(3), int64(9)} {
		var jid jsonrpc.ID
		switch v := id.(type) {
		case int64:
			jid, _ = jsonrpc.MakeID(float64(v))
		case string:
			jid, _ = jsonrpc.MakeID(v)
		}
		if err := conn.Write(context.Background(), &jsonrpc.Response{ID: jid, Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	// 1 and "s" were cancelled in flight; 3 was cancelled by a string id,
	// which is another request; 9 was never in flight.
	got := out.String()
	if strings.Contains(got, `"id":1,`) || strings.Contains(got, `"id":"s"`) || !strings.Contains(got, `"id":3,`) || !strings.Contains(got, `"id":9,`) {
		t.Fatalf("wrote %s", got)
	}
	// An id answered once is forgotten.
	f := conn.(*cancelFilter)
	if len(f.inFlight) != 0 {
		t.Fatalf("still tracked: %v", f.inFlight)
	}
}
