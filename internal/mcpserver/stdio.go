package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine is the longest JSON-RPC line read; a longer one is answered as
// an invalid request and skipped.
const maxLine = 16 << 20

// stdioTransport is newline-delimited JSON-RPC on a reader and a writer.
// Unlike the SDK's IOTransport, a line that is not a JSON-RPC message is
// answered with a JSON-RPC error (id null) and the connection keeps
// serving, as JSON-RPC 2.0 requires; the SDK's ends the session.
type stdioTransport struct {
	r io.Reader
	w io.Writer
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{w: t.w, incoming: make(chan jsonrpc.Message), readErr: make(chan error, 1), closed: make(chan struct{})}
	go c.readLoop(t.r)
	return newCancelFilter(c), nil
}

type stdioConn struct {
	writeMu sync.Mutex
	w       io.Writer

	incoming chan jsonrpc.Message
	readErr  chan error

	closeOnce sync.Once
	closed    chan struct{}
}

// readLoop reads lines until the reader ends. It runs in its own goroutine
// so that Close unblocks a Read even while stdin blocks.
func (c *stdioConn) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			c.reject(jsonrpc.CodeInvalidRequest, "Invalid request: the message is longer than 16 MiB.")
		} else if len(bytes.TrimSpace(line)) > 0 {
			msg, code, reason := parseMessage(line)
			if msg == nil {
				c.reject(code, reason)
			} else {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr <- err
			return
		}
	}
}

// readLine reads one line without its newline. A line over maxLine is
// consumed and reported as too long, so one bad message costs only itself.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		content := chunk
		if err == nil {
			content = bytes.TrimRight(chunk, "\r\n")
		}
		if len(line)+len(content) > maxLine {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// parseMessage decodes one line as a JSON-RPC 2.0 message. When it is not
// one, it returns the error code and message to answer with: parse error
// for text that is not JSON, invalid request for JSON that is not a
// message. Batches are invalid: MCP removed them in 2025-06-18.
func parseMessage(line []byte) (jsonrpc.Message, int64, string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON. Send one JSON-RPC message per line."
	}
	var envelope struct {
		JSONRPC *string          `json:"jsonrpc"`
		Method  *json.RawMessage `json:"method"`
		ID      *json.RawMessage `json:"id"`
		Result  *json.RawMessage `json:"result"`
		Error   *json.RawMessage `json:"error"`
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid request: a message must be a JSON object (batches are not supported)."
	}
	if err := json.Unmarshal(trimmed, &envelope); err != nil || envelope.JSONRPC == nil || *envelope.JSONRPC != "2.0" {
		return nil, jsonrpc.CodeInvalidRequest, `Invalid request: a message must have "jsonrpc": "2.0".`
	}
	if envelope.Method == nil && envelope.Result == nil && envelope.Error == nil {
		return nil, jsonrpc.CodeInvalidRequest, `Invalid request: a message must have a "method", or be a response with a "result" or an "error".`
	}
	if envelope.Method != nil {
		var m string
		if json.Unmarshal(*envelope.Method, &m) != nil || m == "" {
			return nil, jsonrpc.CodeInvalidRequest, `Invalid request: "method" must be a non-empty string.`
		}
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, `Invalid request: "id" must be a string or an integer.`
	}
	return msg, 0, ""
}

// reject answers a line that is not a message, with id null: the id of
// what cannot be parsed cannot be known.
func (c *stdioConn) reject(code int64, message string) {
	line, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   any    `json:"error"`
	}{"2.0", nil, &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	// A failed write means the client is gone; the read side ends too.
	_ = c.writeLine(line)
}

func (c *stdioConn) writeLine(line []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(line, '\n'))
	return err
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case err := <-c.readErr:
		c.readErr <- err
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
