package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelFilter drops the response to a request the client cancelled: the
// specification says a server SHOULD NOT answer one, and the SDK always
// does. It tracks the requests in flight, so a cancellation that comes
// after the answer, or names an unknown id, drops nothing.
type cancelFilter struct {
	mcp.Connection

	mu       sync.Mutex
	inFlight map[jsonrpc.ID]bool // request id → cancelled
}

func newCancelFilter(c mcp.Connection) *cancelFilter {
	return &cancelFilter{Connection: c, inFlight: map[jsonrpc.ID]bool{}}
}

func (f *cancelFilter) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := f.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		f.mu.Lock()
		switch {
		case req.IsCall():
			f.inFlight[req.ID] = false
		case req.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					if _, ok := f.inFlight[id]; ok {
						f.inFlight[id] = true
					}
				}
			}
		}
		f.mu.Unlock()
	}
	return msg, err
}

func (f *cancelFilter) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		f.mu.Lock()
		cancelled, known := f.inFlight[resp.ID]
		delete(f.inFlight, resp.ID)
		f.mu.Unlock()
		if known && cancelled {
			return nil
		}
	}
	return f.Connection.Write(ctx, msg)
}
