// Package toolsearch indexes tool definitions for the ToolSearch tool: the
// words of each tool's name, description and parameters for a BM25
// keyword search, and their text for a regular expression search. An
// index is built once for a set of tools and answers queries without
// allocating per tool.
package toolsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Tool is one tool as the search sees it.
type Tool struct {
	Name        string
	Description string
	// Params are the parameters' names and descriptions, from the input
	// schema's top-level properties.
	Params []Param
}

// Param is one parameter of a tool.
type Param struct {
	Name        string
	Description string
}

// FromSchema is a Tool with the parameters of its JSON input schema. A
// schema that is not an object with properties has none.
func FromSchema(name, description string, schema []byte) Tool {
	t := Tool{Name: name, Description: description}
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return t
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.Properties {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Params = append(t.Params, Param{Name: n, Description: s.Properties[n].Description})
	}
	return t
}

// MaxPattern is the longest regular expression Search takes, as
// Anthropic's regex tool search takes.
const MaxPattern = 200

// The BM25 parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
	// nameWeight counts each word of a tool's name this many times: a
	// query word in the name says more than one in a long description.
	nameWeight = 3
)

// Index is a set of tools prepared for searching. It is immutable and
// safe for concurrent use.
type Index struct {
	tools []Tool
	names []string
	// text is each tool's searchable text, lowercased, for the regex mode.
	text []string
	// bm25 is built on the first keyword search: a one-shot host that
	// searches by regex never pays for it.
	bm25 func() *bm25
}

// bm25 is the keyword index: by word, the tools that hold it with its
// weighted count, and each tool's weighted length.
type bm25 struct {
	postings map[string][]posting
	docLen   []float64
	avgLen   float64
}

type posting struct {
	doc  int32
	freq float32
}

// New indexes tools, in order: results of equal rank keep it.
func New(tools []Tool) *Index {
	ix := &Index{tools: tools, names: make([]string, len(tools)), text: make([]string, len(tools))}
	var sb strings.Builder
	for i, t := range tools {
		ix.names[i] = t.Name
		sb.Reset()
		sb.WriteString(t.Name)
		sb.WriteByte('\n')
		sb.WriteString(t.Description)
		for _, p := range t.Params {
			sb.WriteByte('\n')
			sb.WriteString(p.Name)
			sb.WriteString(": ")
			sb.WriteString(p.Description)
		}
		ix.text[i] = strings.ToLower(sb.String())
	}
	ix.bm25 = sync.OnceValue(ix.buildBM25)
	return ix
}

func (ix *Index) buildBM25() *bm25 {
	x := &bm25{postings: map[string][]posting{}, docLen: make([]float64, len(ix.tools))}
	counts := map[string]float32{}
	var total float64
	for i, t := range ix.tools {
		clear(counts)
		n := 0
		add := func(s string, weight int) {
			eachWord(s, func(w string) {
				if isStop(w) {
					return
				}
				counts[w] += float32(weight)
				n += weight
			})
		}
		add(t.Name, nameWeight)
		add(t.Description, 1)
		for _, p := range t.Params {
			add(p.Name, 2)
			add(p.Description, 1)
		}
		for w, c := range counts {
			x.postings[w] = append(x.postings[w], posting{doc: int32(i), freq: c})
		}
		x.docLen[i] = float64(n)
		total += float64(n)
	}
	if len(ix.tools) > 0 {
		x.avgLen = total / float64(len(ix.tools))
	}
	return x
}

// Len is how many tools the index holds.
func (ix *Index) Len() int { return len(ix.names) }

// BM25 ranks the tools by the words of query, best first, and returns at
// most limit names; a tool that holds none of its words is not returned.
func (ix *Index) BM25(query string, limit int) []string {
	x := ix.bm25()
	words := slices.DeleteFunc(Words(query), isStop)
	slices.Sort(words)
	words = slices.Compact(words)
	scores := make([]float64, len(ix.names))
	var docs []int32
	n := float64(len(ix.names))
	for _, w := range words {
		ps := x.postings[w]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			if scores[p.doc] == 0 {
				docs = append(docs, p.doc)
			}
			f := float64(p.freq)
			scores[p.doc] += idf * f * (k1 + 1) / (f + k1*(1-b+b*x.docLen[p.doc]/x.avgLen))
		}
	}
	slices.SortFunc(docs, func(x, y int32) int {
		if c := cmpFloat(scores[y], scores[x]); c != 0 {
			return c
		}
		return int(x - y)
	})
	return ix.namesOf(docs, limit)
}

// Regexp returns at most limit names of the tools whose text the regular
// expression matches, case-insensitively, ^ and $ at each line: those
// whose name it matches first, each group in index order. The error says, to the model, how to
// fix the pattern.
func (ix *Index) Regexp(pattern string, limit int) ([]string, error) {
	re, need, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	var inName, inText []int32
	for i, text := range ix.text {
		if !need.holds(text) {
			continue
		}
		nameEnd := len(ix.names[i])
		loc := re.FindStringIndex(text)
		switch {
		case loc == nil:
		case loc[0] < nameEnd:
			inName = append(inName, int32(i))
		default:
			inText = append(inText, int32(i))
		}
		if len(inName) >= limit {
			break
		}
	}
	return ix.namesOf(append(inName, inText...), limit), nil
}

// Compile compiles a regex search's pattern to match text the index has
// lowercased: the pattern's literals are lowercased too, rather than the
// whole pattern matched case-insensitively, so that a literal in it keeps
// the regexp package's fast scan for it.
func Compile(pattern string) (*regexp.Regexp, error) {
	re, _, err := compile(pattern)
	return re, err
}

func compile(pattern string) (*regexp.Regexp, literals, error) {
	switch {
	case strings.TrimSpace(pattern) == "":
		return nil, nil, fmt.Errorf("`query` is empty. Give a regular expression that a deferred tool's name, description or parameters would match, such as \"github.*issue\"")
	case utf8.RuneCountInString(pattern) > MaxPattern:
		return nil, nil, fmt.Errorf("`query` is %d characters; a regular expression may have at most %d. Shorten it, or search with mode \"bm25\" and a few keywords", utf8.RuneCountInString(pattern), MaxPattern)
	}
	// ^ and $ match at each line: the name is the text's first line, so
	// "^mcp__x__y$" matches that tool's name.
	re, err := syntax.Parse(pattern, syntax.Perl&^syntax.OneLine|syntax.FoldCase)
	if err != nil {
		return nil, nil, fmt.Errorf("`query` is not a regular expression riot can use (Go's RE2 syntax, which has no lookaround or backreferences): %s. Fix the pattern, or search with mode \"bm25\" and a few keywords", describeSyntaxError(err))
	}
	lowerLiterals(re)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, nil, fmt.Errorf("`query` is not a regular expression riot can use: %s. Fix the pattern, or search with mode \"bm25\" and a few keywords", describeSyntaxError(err))
	}
	return compiled, required(re), nil
}

// literals is what a text must contain for a pattern to match it: any one
// of its sets, each of every string in it. Go's regexp scans a text without
// a literal prefix slowly; strings.Contains rules most texts out first.
// No sets, or an empty set, rules nothing out.
type literals [][]string

func (l literals) holds(text string) bool {
	if len(l) == 0 {
		return true
	}
	for _, set := range l {
		all := true
		for _, s := range set {
			if !strings.Contains(text, s) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// maxSets bounds the alternatives required keeps: beyond it, a part of a
// concatenation is left out, which only rules out less.
const maxSets = 16

// required is what every text re matches contains.
func required(re *syntax.Regexp) literals {
	anything := literals{{}}
	switch re.Op {
	case syntax.OpLiteral:
		return literals{{string(re.Rune)}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out literals
		for _, sub := range re.Sub {
			r := required(sub)
			if slices.ContainsFunc(r, func(set []string) bool { return len(set) == 0 }) {
				return anything
			}
			out = append(out, r...)
		}
		if len(out) > maxSets {
			return anything
		}
		return out
	case syntax.OpConcat:
		out := anything
		for _, sub := range re.Sub {
			r := required(sub)
			if len(out)*len(r) > maxSets {
				continue
			}
			var next literals
			for _, a := range out {
				for _, b := range r {
					next = append(next, append(slices.Clip(a), b...))
				}
			}
			out = next
		}
		return out
	}
	return anything
}

// describeSyntaxError is the parse error without the package's prefix.
func describeSyntaxError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s in `%s`", se.Code, se.Expr)
	}
	return err.Error()
}

// lowerLiterals makes re's literals lowercase and exact: the text it runs
// on is lowercase, and the search ignores case, even under (?-i).
func lowerLiterals(re *syntax.Regexp) {
	if re.Op == syntax.OpLiteral {
		for i, r := range re.Rune {
			re.Rune[i] = unicode.ToLower(r)
		}
		re.Flags &^= syntax.FoldCase
	}
	for _, sub := range re.Sub {
		lowerLiterals(sub)
	}
}

func (ix *Index) namesOf(docs []int32, limit int) []string {
	out := make([]string, 0, min(limit, len(docs)))
	for _, d := range docs[:min(limit, len(docs))] {
		out = append(out, ix.names[d])
	}
	return out
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Words are the search words of s: lowercase runs of letters and digits,
// split also where camelCase changes case, each with a plural s dropped,
// so that "createIssues", "create_issue" and "Create issue" share theirs.
func Words(s string) []string {
	var out []string
	eachWord(s, func(w string) { out = append(out, w) })
	return out
}

// eachWord calls f with each of Words(s), allocating only for a word that
// is not lowercase ASCII already.
func eachWord(s string, f func(string)) {
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 {
			f(stem(lower(s[start:end])))
			start = -1
		}
	}
	for i, r := range s {
		alnum := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		switch {
		case !alnum:
			flush(i)
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		}
		prev = r
	}
	flush(len(s))
}

func lower(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// isStop reports whether w says nothing about which tool is meant.
func isStop(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "from", "by", "with",
		"is", "are", "be", "it", "its", "this", "that", "as", "if", "i", "me", "my":
		return true
	}
	return false
}

// stem drops a plural s: the one inflection tool words differ by most.
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// ToolName is the name of the tool that searches: riot's ToolSearch.
const ToolName = "ToolSearch"

// Found is ToolSearch's UI payload: the names of the tools it found, best
// first, from which riot run makes each API's form of them.
type Found struct {
	ToolReferences []string `json:"tool_references"`
}
