package turnio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Kind names the kind of a JSON value in words, for messages that say
// what was found instead of what riot expected.
func Kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// InputProblem says why input cannot be tool's input from the command
// line (riot call's and riot explain's argument), or "" when it can: it
// must be one JSON object.
func InputProblem(tool string, input []byte) string {
	if p := SyntaxProblem(input); p != "" {
		return fmt.Sprintf("the input of %s is not valid JSON: %s. Give a JSON object, such as '{\"file_path\":\"README.md\"}' for Read", tool, p)
	}
	if k := Kind(input); k != "an object" {
		return fmt.Sprintf("the input of %s is %s; give a JSON object, such as '{\"file_path\":\"README.md\"}' for Read", tool, k)
	}
	return ""
}

// SyntaxProblem says where and how data fails to be one JSON value, in
// riot's words: the line and column, and what stood there. It is "" for
// valid JSON.
func SyntaxProblem(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	err := dec.Decode(&v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
		if len(rest) == 0 {
			return ""
		}
		line, col := position(data, len(data)-len(rest))
		return fmt.Sprintf("more text follows the JSON value, at line %d, column %d: give exactly one value", line, col)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		line, col := position(data, len(data))
		return fmt.Sprintf("it ends early, at line %d, column %d: close every string, object and array", line, col)
	case errors.As(err, &se):
		// Offset counts the byte that broke the syntax.
		at := max(int(se.Offset)-1, 0)
		line, col := position(data, at)
		r, _ := utf8.DecodeRune(data[at:])
		return fmt.Sprintf("%q at line %d, column %d cannot stand there", string(r), line, col)
	default:
		return "it cannot be read as JSON"
	}
}

// position is the 1-based line and column of byte off.
func position(data []byte, off int) (line, col int) {
	line, col = 1, 1
	for _, b := range data[:min(off, len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else if b&0xC0 != 0x80 { // a rune's first byte
			col++
		}
	}
	return line, col
}
