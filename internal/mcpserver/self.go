package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/riot-tools/riot/core/mcpsource"
)

// errSelf is riot refusing to serve within an MCP server of a riot.
type errSelf struct{ msg string }

func (e *errSelf) Error() string { return e.msg }

// RefuseSelf refuses to serve when this process is an MCP server of a
// riot (mcpsource.SelfEnv in getenv), before anything is built: riot never
// serves itself as its own tool source, and must not start what would
// start it again. On stdio (r and w set) it first answers the client's
// requests with the refusal. It returns the refusal, or nil to serve.
func RefuseSelf(ctx context.Context, getenv func(string) string, r io.Reader, w io.Writer) error {
	by, ok := mcpsource.StartedByRiot(getenv)
	if !ok {
		return nil
	}
	refusal := &errSelf{msg: mcpsource.Refusal(by)}
	if r != nil && w != nil {
		answerRefusal(ctx, refusal, r, w)
	}
	return refusal
}

// answerRefusal answers each request on r with the refusal, as a JSON-RPC
// error the riot that started this one recognises, until the client's
// initialize (the last a client tries) or the end of r.
func answerRefusal(ctx context.Context, refusal *errSelf, r io.Reader, w io.Writer) {
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			if !tooLong && len(line) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case line, ok := <-lines:
			if !ok {
				return
			}
			msg, _, _ := parseMessage(line)
			req, isReq := msg.(*jsonrpc.Request)
			if !isReq || !req.IsCall() {
				continue
			}
			out, err := json.Marshal(struct {
				JSONRPC string         `json:"jsonrpc"`
				ID      any            `json:"id"`
				Error   *jsonrpc.Error `json:"error"`
			}{"2.0", req.ID.Raw(), &jsonrpc.Error{Code: mcpsource.SelfCode, Message: "riot: " + refusal.msg}})
			if err != nil {
				return
			}
			if _, err := w.Write(append(out, '\n')); err != nil || req.Method == "initialize" {
				return
			}
		}
	}
}
