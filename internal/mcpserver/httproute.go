package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessRevision is the first revision served statelessly: from
// 2026-07-28 on, a request carries its protocol version and capabilities
// itself and needs no session.
const statelessRevision = "2026-07-28"

// maxHTTPBody bounds the body riot reads to route a POST, as the SDK
// bounds what it reads by default.
const maxHTTPBody = mcp.DefaultMaxRequestBodyBytes

// httpRoute sends each request to the handler of its revision: 2026-07-28
// and later to a stateless one, earlier revisions to a stateful one, with
// what the SDK's stateful handler leaves out of the transport section: a
// request without Mcp-Session-Id where a session is required is HTTP 400,
// and a request the client cancelled is not answered.
type httpRoute struct {
	stateful, stateless http.Handler

	mu sync.Mutex
	// calls are the requests in flight, by session and id; true once the
	// client cancelled one.
	calls map[httpCall]bool
}

type httpCall struct {
	session string
	id      jsonrpc.ID
}

func newHTTPRoute(server *mcp.Server) *httpRoute {
	get := func(*http.Request) *mcp.Server { return server }
	return &httpRoute{
		stateful:  mcp.NewStreamableHTTPHandler(get, nil),
		stateless: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}),
		calls:     map[httpCall]bool{},
	}
}

func (h *httpRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Protocol-Version") >= statelessRevision {
		h.stateless.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		h.stateful.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
	if err != nil {
		http.Error(w, "Bad Request: the body could not be read.", http.StatusBadRequest)
		return
	}
	if len(body) > maxHTTPBody {
		http.Error(w, "Request Entity Too Large: send one JSON-RPC message of at most 4 MiB.", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// What is not one message the SDK answers itself.
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(body))
	if err != nil {
		h.stateful.ServeHTTP(w, r)
		return
	}
	session := r.Header.Get("Mcp-Session-Id")
	req, isReq := msg.(*jsonrpc.Request)
	if session == "" && (!isReq || req.Method != "initialize") {
		noSession(w, req)
		return
	}
	if isReq && req.Method == "notifications/cancelled" {
		h.cancel(session, req.Params)
	}
	if isReq && req.IsCall() {
		call := httpCall{session, req.ID}
		h.mu.Lock()
		h.calls[call] = false
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.calls, call)
			h.mu.Unlock()
		}()
		w = &unanswered{ResponseWriter: w, id: req.ID, cancelled: func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.calls[call]
		}}
	}
	h.stateful.ServeHTTP(w, r)
}

// cancel marks a request of session cancelled, if it is in flight: its
// response is then not sent.
func (h *httpRoute) cancel(session string, params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.calls[httpCall{session, id}]; ok {
		h.calls[httpCall{session, id}] = true
	}
}

// noSession answers a message without the session a stateful revision
// requires: HTTP 400, with a JSON-RPC error that says what to do.
func noSession(w http.ResponseWriter, req *jsonrpc.Request) {
	var id any
	if req != nil && req.IsCall() {
		id = req.ID.Raw()
	}
	body, _ := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id, &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidRequest,
		Message: "Bad Request: this request has no Mcp-Session-Id header. Send initialize first and the Mcp-Session-Id it returns with every later request, or speak protocol 2026-07-28 (Mcp-Protocol-Version header), which needs no session.",
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// unanswered drops the response to its request once the client cancelled
// the request: the specification says a server SHOULD NOT answer one, and
// the SDK always does. The SDK writes each server-sent event, or a JSON
// response, in one Write.
type unanswered struct {
	http.ResponseWriter
	id        jsonrpc.ID
	cancelled func() bool
}

func (u *unanswered) Write(p []byte) (int, error) {
	if u.cancelled() && answers(p, u.id) {
		return len(p), nil
	}
	return u.ResponseWriter.Write(p)
}

func (u *unanswered) Unwrap() http.ResponseWriter { return u.ResponseWriter }

func (u *unanswered) Flush() {
	if f, ok := u.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// answers reports whether p, a server-sent event or a JSON body, is the
// response to id.
func answers(p []byte, id jsonrpc.ID) bool {
	data := bytes.TrimSpace(p)
	if !bytes.HasPrefix(data, []byte("{")) {
		var joined []byte
		for line := range bytes.Lines(p) {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				joined = append(joined, bytes.TrimSpace(rest)...)
			}
		}
		data = joined
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return false
	}
	resp, ok := msg.(*jsonrpc.Response)
	return ok && resp.ID == id
}
