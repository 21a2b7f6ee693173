package mcpserver

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultsPrefix begins the URI of every spilled result.
const resultsPrefix = "riot://results/"

// maxResourceBytes caps what one resources/read returns; a spilled result
// is cut there, and the cut is said in the text.
const maxResourceBytes = 64 << 20

func resultURI(session, call string) string {
	return resultsPrefix + url.PathEscape(session) + "/" + url.PathEscape(call)
}

// addResults serves spilled results read-only under
// riot://results/<session>/<call id>, for the calls this server ran in its
// host's session only, so a client on another machine can fetch what the
// preview left out.
func (s *Server) addResults() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "riot://results/{session}/{call}",
		Name:        "riot-results",
		Title:       "Spilled tool results",
		Description: "The full output of a tool call whose result was over its budget; the call's result links it.",
		MIMEType:    "text/plain",
	}, s.readResult)
}

func (s *Server) readResult(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	call, ok := resultCall(uri, s.host.SessionID())
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	s.spillMu.Lock()
	path, ok := s.spills[call]
	s.spillMu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return readResultFile(uri, path)
}

// keepSpill records where a call's spilled output went, if the host put
// it in this session's results directory, and returns the call's result
// URI; "" when there is nothing to link.
func (s *Server) keepSpill(callID, path string) string {
	if filepath.Dir(path) != filepath.Clean(s.host.ResultsDir()) || !callIDOK(callID) {
		return ""
	}
	s.spillMu.Lock()
	s.spills[callID] = path
	s.spillMu.Unlock()
	return resultURI(s.host.SessionID(), callID)
}

// readResultFile reads one spilled result: a regular file, never through a
// symbolic link, cut at maxResourceBytes with the cut said in the text.
func readResultFile(uri, path string) (*mcp.ReadResourceResult, error) {
	// O_NOFOLLOW: a link planted in the results directory is not followed.
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text := string(data)
	if len(data) > maxResourceBytes {
		text = string(data[:maxResourceBytes]) + resourceCut
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}

// resourceCut ends a result cut at maxResourceBytes.
const resourceCut = "\n[riot: this result is longer than 64 MiB; the rest is cut.]\n"

// resultCall is the call id a result URI names, or reports that it names
// none of session's results: another session, or anything but one call id.
func resultCall(uri, session string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, resultsPrefix)
	if !ok {
		return "", false
	}
	sessEsc, callEsc, ok := strings.Cut(rest, "/")
	if !ok {
		return "", false
	}
	sess, err1 := url.PathUnescape(sessEsc)
	call, err2 := url.PathUnescape(callEsc)
	if err1 != nil || err2 != nil || sess != session || !callIDOK(call) {
		return "", false
	}
	return call, true
}

// callIDOK accepts the file names the host gives spilled results: letters,
// digits, '-', '_' and '.', not starting with '.'.
func callIDOK(id string) bool {
	if id == "" || id[0] == '.' || len(id) > 200 {
		return false
	}
	for _, r := range id {
		if r != '-' && r != '_' && r != '.' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
