package sessionhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost/attach"
)

// Hello is what a client says before its turn (attach.Hello).
type Hello = attach.Hello

// clientFrame is one line from a client as the host reads it: exactly one
// of a hello (with the turn's calls), an answer, a cancel or a stop. A
// client writes it as attach.ClientFrame, whose answer is untyped.
type clientFrame struct {
	Hello  *Hello             `json:"hello,omitempty"`
	Uses   []core.ToolUse     `json:"uses,omitempty"`
	Answer *permission.Answer `json:"answer,omitempty"`
	Cancel bool               `json:"cancel,omitempty"`
	Stop   bool               `json:"stop,omitempty"`
}

// hostFrame is one line from the host, as the host writes it; a client
// reads it as attach's hostLine.
type hostFrame struct {
	// Refused says why the host will not run the turn; the client runs it
	// itself.
	Refused string `json:"refused,omitempty"`
	// Error says why the host could not read a frame of the client's:
	// before the turn was taken the client runs it itself, as when
	// refused; during it the turn is cancelled.
	Error string `json:"error,omitempty"`
	// Local says to run the turn in the client, without a warning.
	Local    bool              `json:"local,omitempty"`
	Prompt   *promptFrame      `json:"prompt,omitempty"`
	Progress *core.Progress    `json:"progress,omitempty"`
	Results  []core.ToolResult `json:"results,omitempty"`
	// Output is the results rendered as the hello's Render asked, sent
	// instead of Results.
	Output string `json:"output,omitempty"`
	// Warning is a line the client prints before the results, as it would
	// running the turn itself (the settings an untrusted workspace's files
	// had ignored).
	Warning string `json:"warning,omitempty"`
	Done    bool   `json:"done,omitempty"`
	Stopped bool   `json:"stopped,omitempty"`
}

// promptFrame is a permission prompt, or, with Network set, riot's
// question about a host a sandboxed command connects to.
type promptFrame struct {
	Request  permission.Request  `json:"request"`
	Decision permission.Decision `json:"decision"`
	// Network is a network question: Request and Decision are then empty.
	Network *permission.NetworkQuestion `json:"network,omitempty"`
}

// maxFrame bounds one line from a client (attach.MaxFrame).
const maxFrame = attach.MaxFrame

// FrameError is a line from a client that the host cannot read. Its text
// says what was wrong, for the client's error frame.
type FrameError struct{ Msg string }

func (e *FrameError) Error() string { return e.Msg }

func frameErr(format string, args ...any) error {
	return &FrameError{Msg: fmt.Sprintf(format, args...)}
}

// frameReader reads a client's frames: JSON lines of at most max bytes.
type frameReader struct {
	r   *bufio.Reader
	max int
}

// frameBuffer is the read buffer of a client's connection. A longer line
// is read in pieces (line); a hello fits, and a host allocating 64 KiB
// per connection collected garbage every few turns.
const frameBuffer = 4 << 10

// newFrameReader reads frames from r. Its buffer is no larger than a frame
// may be, so that a line over the limit is refused as soon as it is.
func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, min(frameBuffer, max+1)), max: max}
}

// next reads and decodes the next frame. io.EOF means the client hung up
// between frames; a *FrameError, that the line cannot be a frame; any
// other error is the connection's.
func (fr *frameReader) next() (clientFrame, error) {
	line, err := fr.line()
	if err != nil {
		return clientFrame{}, err
	}
	return decodeFrame(line)
}

// line reads one line without its newline. A line longer than max is an
// error as soon as that is known, without reading the rest of it.
func (fr *frameReader) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := fr.r.ReadSlice('\n')
		n := len(buf) + len(chunk)
		if err == nil {
			n-- // the newline
		}
		if n > fr.max {
			return nil, frameErr("a frame is longer than the host's limit of %d bytes; send smaller inputs", fr.max)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			return nil, frameErr("the connection ended in the middle of a frame; end each frame with a newline")
		default:
			return nil, err
		}
	}
}

// decodeFrame reads one line as a frame: valid UTF-8, one JSON object of
// known fields and types, holding exactly one kind of frame.
func decodeFrame(line []byte) (clientFrame, error) {
	var f clientFrame
	if !utf8.Valid(line) {
		return f, frameErr("a frame is not valid UTF-8; send JSON text")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return clientFrame{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return clientFrame{}, frameErr("a frame holds more than one JSON value; send one object per line")
	}
	kinds := 0
	for _, set := range []bool{f.Hello != nil || f.Uses != nil, f.Answer != nil, f.Cancel, f.Stop} {
		if set {
			kinds++
		}
	}
	// Ifs, not a switch: mutation testing reaches the conditions of ifs.
	if kinds != 1 {
		return clientFrame{}, frameErr("a frame must be exactly one of a hello with its calls, an answer, a cancel or a stop; this one has %d", kinds)
	}
	if f.Uses != nil && f.Hello == nil {
		return clientFrame{}, frameErr("a frame has calls but no hello; send them with the hello")
	}
	if f.Answer != nil && (*f.Answer < permission.AnswerDeny || *f.Answer > permission.AnswerAllowAlways) {
		return clientFrame{}, frameErr("an answer frame holds %d, which is no answer; send 0 (deny) to 3 (always allow)", *f.Answer)
	}
	return f, nil
}

// jsonType names the JSON value a Go type is read from, in words, so that
// a message names no Go type.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another JSON value"
}

// decodeError says in words why a line is not a frame.
func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return frameErr("a frame is not JSON (at byte %d); send one JSON object per line", syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return frameErr("a frame is a JSON %s, not an object; send one JSON object per line", typ.Value)
		}
		return frameErr("a frame's field %s is a JSON %s, where the host reads %s", field, typ.Value, jsonType(typ.Type))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return frameErr("a frame is empty or cut short; send one whole JSON object per line")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return frameErr("a frame has a field the host does not know (%s); is the client another riot build?", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return frameErr("a frame cannot be read as JSON; send one JSON object per line")
}
