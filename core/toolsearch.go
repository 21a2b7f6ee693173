package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/invopop/jsonschema"

	"github.com/riot-tools/riot/core/mcpsource"
	"github.com/riot-tools/riot/internal/toolsearch"
	"github.com/riot-tools/riot/shared"
)

// ToolSearchName is the host tool that finds deferred tools.
const ToolSearchName = toolsearch.ToolName

// The bounds of one search's results.
const (
	defaultSearchResults = 5
	maxSearchResults     = 20
)

// searchInput is ToolSearch's input.
type searchInput struct {
	Query      string `json:"query" jsonschema_description:"Keywords (mode bm25), or a regular expression in RE2 syntax, matched without regard to case (mode regex)."`
	Mode       string `json:"mode,omitempty" jsonschema:"enum=bm25,enum=regex" jsonschema_description:"bm25 (the default) ranks tools by the keywords of query; regex matches query against each tool's name, description and parameters."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"How many tools to return at most, best first: 5 unless given."`
}

const searchPrompt = `Finds deferred tools: tools of MCP servers whose definitions are left out of your tools list until a search finds them. Search when you need a capability that none of your listed tools has (an issue tracker, a database, a chat service, a cloud API).

- mode "bm25" (the default) ranks the deferred tools by the keywords of query, such as "create github issue".
- mode "regex" matches query, a regular expression in RE2 syntax and without regard to case, against each tool's name, description and parameters, such as "github.*issue" or "^mcp__slack__".

It returns at most max_results tools (5 unless given, at most 20), best first. Each tool it returns can be called from then on like a listed one.

NEVER search for a tool that is already in your tools list: call it.
NEVER guess a deferred tool's parameters: search for it first, and call it as the definition it returns says.
NEVER repeat a search that found nothing with the same query: use other keywords, or a broader pattern.`

// toolSearch is the host's ToolSearch tool, with what deferring needs:
// which MCP servers are deferred, decided once per host, and the search
// index of their tools, built again only when the registry has changed.
type toolSearch struct {
	h *Host
	// changed counts the registry's changes by MCP servers' list_changed,
	// which the index is compared against.
	changed atomic.Int64

	mu sync.Mutex
	// deferred is each MCP server's decision, made when its tools are first
	// listed: a server's tools never move between the sections of tools[].
	deferred map[*pluginProc]bool
	index    *searchIndex
}

// searchIndex is the index of the deferred tools at one registry state.
type searchIndex struct {
	changed int64
	tools   []*tool
	ix      *toolsearch.Index
}

// addToolSearch serves ToolSearch, first among the host's own tool
// sources so that no plugin takes its name, and so right after the
// builtins in tools[]. It is there whether or not any tool is deferred:
// an MCP server's tools coming or going must not change tools[] before
// the deferred tools, the prompt cache's prefix.
func (h *Host) addToolSearch() {
	if !h.opts.ToolSearch {
		return
	}
	h.search = &toolSearch{h: h, deferred: map[*pluginProc]bool{}}
	notify := h.opts.OnToolsChanged
	h.opts.OnToolsChanged = func() {
		h.search.changed.Add(1)
		if notify != nil {
			notify()
		}
	}
	spec := PluginSpec{Name: "riot", impl: h.search}
	h.plugins = append(h.plugins, &pluginProc{h: h, spec: spec, log: h.log.Named(spec.Name), fileLog: h.fileLog.Named(spec.Name)})
}

// order is tools[] with the deferred tools after all others, each section
// in registry order, and which plugins' tools are deferred. Without
// ToolSearch nothing is deferred.
func (s *toolSearch) order(tools []*tool) ([]*tool, map[*pluginProc]bool) {
	if s == nil {
		return tools, nil
	}
	deferred := s.decide(tools)
	out := make([]*tool, 0, len(tools))
	for _, t := range tools {
		if !deferred[t.plugin] {
			out = append(out, t)
		}
	}
	for _, t := range tools {
		if deferred[t.plugin] {
			out = append(out, t)
		}
	}
	return out, deferred
}

// decide makes the decision of each MCP server in tools not decided yet,
// by its defer_loading or by how many tools it serves against [mcp]
// defer_threshold, and returns every decision.
func (s *toolSearch) decide(tools []*tool) map[*pluginProc]bool {
	counts := map[*pluginProc]int{}
	for _, t := range tools {
		if _, ok := t.plugin.spec.impl.(*mcpsource.Source); ok {
			counts[t.plugin]++
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, n := range counts {
		if _, ok := s.deferred[p]; ok {
			continue
		}
		name := p.spec.impl.(*mcpsource.Source).Name()
		for _, srv := range s.h.cfg.MCPServers {
			if srv.Name == name {
				s.deferred[p] = srv.Deferred(n, s.h.cfg.MCP.DeferThreshold)
			}
		}
	}
	return maps.Clone(s.deferred)
}

// current is the index of the deferred tools the model may see, built
// again when an MCP server has listed new tools since the last.
func (s *toolSearch) current() *searchIndex {
	changed := s.changed.Load()
	s.mu.Lock()
	idx := s.index
	s.mu.Unlock()
	if idx != nil && idx.changed == changed {
		return idx
	}
	// The registry with what MCP servers added since New, the first
	// index included: changed was read first, so an addition after it
	// builds the index again at the next search.
	ordered, deferred := s.order(s.h.toolList())
	idx = &searchIndex{changed: changed}
	var docs []toolsearch.Tool
	for _, t := range ordered {
		if deferred[t.plugin] && !s.h.policy.Hidden(t.spec.Name) {
			idx.tools = append(idx.tools, t)
			docs = append(docs, toolsearch.FromSchema(t.spec.Name, t.spec.Prompt, t.spec.InputSchema))
		}
	}
	idx.ix = toolsearch.New(docs)
	s.mu.Lock()
	s.index = idx
	s.mu.Unlock()
	return idx
}

// Manifest serves the one tool.
func (s *toolSearch) Manifest(context.Context) (shared.Manifest, error) {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	schema := r.Reflect(&searchInput{})
	schema.Version, schema.ID = "", ""
	raw, err := json.Marshal(schema)
	if err != nil {
		return shared.Manifest{}, err
	}
	return shared.Manifest{Tools: []shared.ToolSpec{{
		Name: ToolSearchName, Prompt: searchPrompt, InputSchema: raw,
		Annotations: &shared.Annotations{Title: "Tool search", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true},
	}}, StartsNoProcesses: true}, nil
}

// Prepare checks the query, a regular expression's syntax included, so
// that a bad one is a correction before any search.
func (s *toolSearch) Prepare(_ context.Context, req shared.PrepareRequest) (shared.PrepareAnswer, error) {
	in, msg := decodeSearch(req.Input)
	if msg != "" {
		return shared.PrepareAnswer{Rejected: msg}, nil
	}
	return shared.PrepareAnswer{
		Describe: fmt.Sprintf("Search the deferred tools for %q (%s)", in.Query, in.Mode),
		ReadOnly: true, ConcurrencySafe: true, Permission: shared.PermissionPassthrough,
	}, nil
}

// decodeSearch reads and checks the input, with the defaults filled in,
// or says to the model what to fix.
func decodeSearch(input []byte) (searchInput, string) {
	var in searchInput
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, "The input of ToolSearch must be an object with query, and optionally mode and max_results. Send it again in that shape."
	}
	if in.Mode == "" {
		in.Mode = "bm25"
	}
	if in.MaxResults == 0 {
		in.MaxResults = defaultSearchResults
	}
	switch {
	case in.MaxResults < 1 || in.MaxResults > maxSearchResults:
		return in, fmt.Sprintf("`max_results` must be from 1 to %d. Ask for fewer tools, and search again with other words if none fits.", maxSearchResults)
	case in.Mode == "regex":
		if _, err := toolsearch.Compile(in.Query); err != nil {
			return in, err.Error() + "."
		}
	case in.Mode != "bm25":
		return in, "`mode` must be \"bm25\" or \"regex\"."
	case strings.TrimSpace(in.Query) == "" || len(toolsearch.Words(in.Query)) == 0:
		return in, "`query` has no keywords. Give a few words that a deferred tool's name or description would have, such as \"create github issue\"."
	}
	return in, ""
}

// Call searches and returns the tools found as OpenAI's function
// definitions, which riot run sends as they are for OpenAI, and their
// names in the UI payload (toolsearch.Found), from which it makes
// Anthropic's tool_reference blocks.
func (s *toolSearch) Call(_ context.Context, req shared.CallRequest, send func(shared.CallEvent) error) error {
	in, msg := decodeSearch(req.Input)
	if msg != "" {
		return send(shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, Message: msg}})
	}
	idx := s.current()
	var names []string
	if in.Mode == "regex" {
		var err error
		if names, err = idx.ix.Regexp(in.Query, in.MaxResults); err != nil {
			return send(shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, Message: err.Error() + "."}})
		}
	} else {
		names = idx.ix.BM25(in.Query, in.MaxResults)
	}
	text, err := s.definitions(idx, names)
	if err != nil {
		return send(shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, Message: "A found tool's input schema is not JSON, so it cannot be shown. Search with other words, or tell the user that the tool's server lists a broken schema."}})
	}
	switch {
	case idx.ix.Len() == 0:
		text = "No tools are deferred: every tool there is is already in your tools list. Call the one you need from there."
	case len(names) == 0:
		text = fmt.Sprintf("No deferred tool matches %q in mode %s (%d tools are deferred). Search again with other keywords, or a broader regular expression in mode regex.", in.Query, in.Mode, idx.ix.Len())
	}
	ui, err := json.Marshal(toolsearch.Found{ToolReferences: names})
	if err != nil {
		return err
	}
	if err := send(shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: []byte(text)}}); err != nil {
		return err
	}
	return send(shared.CallEvent{Final: &shared.Final{Status: shared.StatusOK, UIPayload: ui}})
}

// definitions are the named tools as OpenAI's tools[] holds them.
func (s *toolSearch) definitions(idx *searchIndex, names []string) (string, error) {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type definition struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	out := make([]definition, 0, len(names))
	for _, name := range names {
		for _, t := range idx.tools {
			if t.spec.Name == name {
				out = append(out, definition{Type: "function", Function: function{Name: name, Description: t.spec.Prompt, Parameters: t.spec.InputSchema}})
				break
			}
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}
