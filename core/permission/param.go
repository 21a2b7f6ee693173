package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/textdist"
)

// paramPattern is the parameter reading of a specifier NAME:VALUE, as in
// Claude Code's Tool(param:value): the call's top-level parameter NAME,
// matched against VALUE, where * matches any text and anything else is
// literal.
type paramPattern struct {
	name  string
	parts []string // VALUE split at its stars
}

// specifierParams are the parameters that builtin tools' own specifiers
// already match, better than their text can: Bash(...) every simple
// command of the call, Read(...) the path as the kernel resolves it. A
// parameter rule on them would match only the text as written, which
// `ls; rm x` or `src/../../x` slip past, so NAME:* keeps the specifier's
// meaning and any other value is an error.
var specifierParams = map[string]string{
	"Bash": "command", "Read": "file_path", "Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path",
	"NotebookEdit": "notebook_path", "Grep": "path", "Glob": "path",
}

// paramSpec splits a specifier NAME:VALUE whose NAME can be a parameter
// name: letters, digits and _ - . $ @ (Grep's -i included), nothing a
// command or a path glob needs first. The first colon splits, so the value
// may hold colons.
func paramSpec(spec string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(spec, ":")
	if !ok || name == "" || value == "" {
		return "", "", false
	}
	for _, c := range name {
		if !isToolChar(c) && c != '$' && c != '@' {
			return "", "", false
		}
	}
	return name, value, true
}

// compileParam is the rule's parameter reading, or nil when it has none.
// The error is for the user.
func compileParam(r Rule) (*paramPattern, string) {
	name, value, ok := paramSpec(r.Spec)
	if !ok {
		return nil, ""
	}
	if name == specifierParams[r.Tool] {
		if value == "*" {
			return nil, "" // the specifier's word prefix, as before: Bash(command:*) is `command -v x`
		}
		return nil, fmt.Sprintf("%s(...) already matches %s, on every %s of the call; a parameter rule would see only its text as written. Write %s(%s)",
			r.Tool, name, map[bool]string{true: "simple command", false: "path, resolved,"}[r.Tool == "Bash"], r.Tool, value)
	}
	return &paramPattern{name: name, parts: strings.Split(value, "*")}, ""
}

// callInput is a call's top-level parameters, decoded once per decision.
type callInput map[string]json.RawMessage

func decodeInput(raw json.RawMessage) callInput {
	var in callInput
	if json.Unmarshal(raw, &in) != nil {
		return nil
	}
	return in
}

// matches reports whether the call sets the parameter to a matching value.
// A parameter the call does not set (or sets to null) matches nothing,
// whatever the rule. Strings match as their text, numbers and booleans as
// their JSON text; an object or array only a restrictive rule matches, as
// its compact JSON text: allowing by the text of a structure would let a
// field the pattern does not look at through.
func (pp *paramPattern) matches(in callInput, restrictive bool) (string, bool) {
	raw, ok := in[pp.name]
	raw = bytes.TrimSpace(raw)
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var v string
	switch raw[0] {
	case '"':
		if json.Unmarshal(raw, &v) != nil {
			return "", false
		}
	case '{', '[':
		if !restrictive {
			return "", false
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return "", false
		}
		v = b.String()
	default:
		v = string(raw)
	}
	return v, starMatch(pp.parts, v)
}

// CheckTool checks the rules that name tool against its parameters (the
// top-level properties of its input schema), once they are known: a
// parameter rule on a parameter the tool does not take, or a specifier on
// an MCP tool, which has no subjects for it to match, is a *config.Error
// naming the rule's source and the nearest parameter names. For other
// tools a NAME:VALUE whose NAME is no parameter is the tool's own
// specifier (Bash(python3:*)), unless NAME is one edit from a parameter.
// A server's rule mcp__NAME(param:value) is checked on the tools that
// take the parameter only. params is asked only when a rule names the
// tool, since reading a schema costs and most tools have no such rule;
// nil from it means not known, and nothing is checked.
func (p *Policy) CheckTool(tool string, params func() []string) error {
	mcp := strings.HasPrefix(tool, "mcp__")
	var names []string // params(), asked only once a rule names the tool
	for _, list := range [][]*compiled{p.deny, p.ask, p.allowRules()} {
		for _, r := range list {
			if r.Spec == "" || r.Tool != tool && (!mcp || !namesTool(r.Tool, tool)) {
				continue
			}
			if names == nil {
				if names = params(); names == nil {
					return nil // the schema does not say: not checked
				}
			}
			if err := r.checkParams(tool, names, mcp); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *compiled) checkParams(tool string, params []string, mcp bool) error {
	bad := func(msg string) error {
		what := "permission rule"
		if r.cond {
			what = "the hook's if"
		}
		return &config.Error{Source: r.src.Source, Msg: fmt.Sprintf("%s %q: %s", what, r.src.Text, msg)}
	}
	if r.param == nil {
		if mcp {
			return bad(fmt.Sprintf("an MCP tool's calls are matched by their parameters: write %s(PARAM:VALUE), such as %s(%s:*)%s",
				r.Tool, r.Tool, firstOr(params, "name"), takes(tool, params)))
		}
		return nil
	}
	if slices.Contains(params, r.param.name) || r.Tool != tool {
		return nil
	}
	near := nearest(r.param.name, params)
	if !mcp && len(near) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s takes no parameter %q", tool, r.param.name)
	if len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(near, " or "))
	}
	return bad(msg + takes(tool, params))
}

func firstOr(params []string, def string) string {
	if len(params) > 0 {
		return params[0]
	}
	return def
}

func takes(tool string, params []string) string {
	if len(params) == 0 {
		return fmt.Sprintf(" (%s takes no parameters)", tool)
	}
	return fmt.Sprintf(" (%s takes %s)", tool, strings.Join(params, ", "))
}

// nearest are the parameter names closest to name, within a third of its
// length (at least one edit).
func nearest(name string, params []string) []string {
	best, limit := -1, max(1, len(name)/3)
	var out []string
	for _, c := range params {
		d := textdist.OSA(strings.ToLower(name), strings.ToLower(c))
		switch {
		case d > limit || best >= 0 && d > best:
		case d == best:
			out = append(out, c)
		default:
			best, out = d, []string{c}
		}
	}
	return out
}
