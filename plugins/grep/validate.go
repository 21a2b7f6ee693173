package grep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp/syntax"
	"strings"

	"github.com/riot-tools/riot/internal/textdist"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
	"github.com/riot-tools/riot/plugins/grep/internal/search"
)

// ValidateInput rejects, before any search, what cannot work: an empty or
// uncompilable pattern (each kind of regexp error with a hint of its own),
// flags outside the mode they belong to, negative numbers, an unknown
// type, a bad glob, and a path that does not exist. The path is checked
// here only inside the workspace fence: outside it, whether a path exists
// is itself something the permission chain has not yet allowed Grep to
// tell, so Call checks it after the chain has run.
func (g *Grep) ValidateInput(_ context.Context, in Input, env *plugin.Env) plugin.Validation {
	if msg := g.checkInput(in); msg != "" {
		return plugin.Rejected(msg)
	}
	abs := absPath(in.path(), env)
	if !env.InFence(abs) {
		return plugin.Accepted()
	}
	if msg := checkPath(in.path(), env.Shown(abs), abs); msg != "" {
		return plugin.Rejected(msg)
	}
	return plugin.Accepted()
}

// checkInput checks everything but the path's existence.
func (g *Grep) checkInput(in Input) string {
	if in.Pattern == "" {
		return "`pattern` is empty.\nPass a regular expression to search for. To list files, use Bash (`ls`, `find`) instead."
	}
	switch in.OutputMode {
	case "", modeFiles, modeContent, modeCount:
	default:
		return fmt.Sprintf("`output_mode` %q is not a mode Grep has.\nUse one of %q (the default), %q or %q.", in.OutputMode, modeFiles, modeContent, modeCount)
	}
	if msg := checkFlags(in); msg != "" {
		return msg
	}
	if in.Type != "" {
		if _, ok := g.types[in.Type]; !ok {
			return unknownType(in.Type, g.types)
		}
	}
	if in.Glob != "" {
		if _, err := ignore.CompileOverride(in.Glob); err != nil {
			return fmt.Sprintf("`glob` %q is not a valid glob: %s.\nFix it, or leave `glob` out and filter with `type`.", in.Glob, globError(err))
		}
	}
	if _, err := search.Compile(in.Pattern, search.PatternOptions{IgnoreCase: in.IgnoreCase, Multiline: in.Multiline}); err != nil {
		return patternHint(in.Pattern, err)
	}
	return ""
}

// checkFlags rejects context and line-number flags outside content mode,
// and negative numbers.
func checkFlags(in Input) string {
	if in.mode() != modeContent {
		for _, f := range []struct {
			name string
			set  bool
		}{{"-A", in.After != nil}, {"-B", in.Before != nil}, {"-C", in.Context != nil}, {"-n", in.LineNumber != nil}} {
			if f.set {
				return fmt.Sprintf("`%s` applies only with `output_mode: \"content\"`, and this call's mode is %q.\nAdd `output_mode: \"content\"` to see matching lines, or leave `%s` out.", f.name, in.mode(), f.name)
			}
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		hint string
	}{
		{"-A", in.After, "the number of lines to show after each match"},
		{"-B", in.Before, "the number of lines to show before each match"},
		{"-C", in.Context, "the number of lines to show around each match"},
		{"head_limit", in.HeadLimit, "the most entries to show, or 0 for no limit"},
		{"offset", in.Offset, "the number of entries to skip, or leave it out to start at the first"},
	} {
		if f.v != nil && *f.v < 0 {
			return fmt.Sprintf("`%s` is %d, but it cannot be negative.\nPass %s.", f.name, *f.v, f.hint)
		}
	}
	return ""
}

// checkPath reports a path that does not exist, or that is neither a
// directory nor a regular file (a pipe would block a search). given is
// the path as the model wrote it, shown is abs as the model knows it.
func checkPath(given, shown, abs string) string {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("`path` %s does not exist (resolved to %s).\nPass an existing file or directory, or leave `path` out to search the working directory.", given, shown)
	case err != nil:
		return fmt.Sprintf("`path` %s cannot be searched: it cannot be accessed (resolved to %s).\nSearch a path you can read.", given, shown)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return fmt.Sprintf("`path` %s is not a regular file or a directory (resolved to %s).\nPass a file or directory to search.", given, shown)
	}
	return ""
}

// patternHint turns a compile error into a correction: what is wrong, then
// what to write instead.
func patternHint(pattern string, err error) string {
	if errors.Is(err, search.ErrNegatedUnicodeClass) {
		return "The pattern puts \\W or \\S inside a negated class, such as [^\\W_]. Grep gives \\w, \\d, \\s and \\b rg's Unicode meaning, and Go's RE2 cannot negate a class that holds the complement of one.\n" +
			"Write the class without the negation: [^\\W] is \\w, [^\\S] is \\s, and for [^\\W_] (letters and digits) use [\\p{L}\\p{M}\\p{Nd}]."
	}
	if errors.Is(err, search.ErrNewline) {
		return "The pattern matches a newline (`\\n`), but Grep searches one line at a time.\nSet `multiline: true` to match across lines, or drop the newline from the pattern."
	}
	var se *syntax.Error
	if !errors.As(err, &se) {
		return fmt.Sprintf("The pattern %q does not compile.\nSimplify it; Grep takes Go RE2 syntax.", pattern)
	}
	cause := fmt.Sprintf("The pattern does not compile: %s", se.Code)
	if se.Expr != "" {
		cause += fmt.Sprintf(" at `%s`", se.Expr)
	}
	return cause + ".\n" + syntaxHint(se)
}

// syntaxHint is the correction for one kind of regexp/syntax error.
func syntaxHint(se *syntax.Error) string {
	expr := se.Expr
	switch se.Code {
	case syntax.ErrMissingParen:
		return "Escape a literal `(` as `\\(`, or close the group with `)`."
	case syntax.ErrUnexpectedParen:
		return "Escape a literal `)` as `\\)`, or open the group with `(`."
	case syntax.ErrMissingBracket:
		return "Escape a literal `[` as `\\[`, or close the class with `]`."
	case syntax.ErrInvalidPerlOp:
		switch {
		case strings.HasPrefix(expr, "(?=") || strings.HasPrefix(expr, "(?!"):
			return lookaroundHint
		case strings.HasPrefix(expr, "(?>"):
			return "Go's RE2 has no atomic groups; write the group as a plain `(?:...)`."
		default:
			return "Go's RE2 supports only the flags i, m, s and U, as in `(?i)`; escape a literal `(` as `\\(`."
		}
	case syntax.ErrInvalidNamedCapture:
		if strings.HasPrefix(expr, "(?<=") || strings.HasPrefix(expr, "(?<!") {
			return lookaroundHint
		}
		return "Write a named group as `(?P<name>...)` or `(?<name>...)`, with a name of letters, digits and underscores."
	case syntax.ErrInvalidEscape:
		return escapeHint(expr)
	case syntax.ErrInvalidRepeatSize:
		return "Go's RE2 allows repetition counts up to 1000; use `+` or `*`, or a count of 1000 or less."
	case syntax.ErrMissingRepeatArgument:
		return fmt.Sprintf("`%s` has nothing before it to repeat. This is a regular expression, not a glob: write `.*` for any text and `\\%s` for a literal `%s`. To choose files by name, use `glob`.", expr, expr, expr)
	case syntax.ErrInvalidRepeatOp:
		return fmt.Sprintf("`%s` repeats a repetition; Go's RE2 has no possessive quantifiers. Keep one operator, or escape a literal one with `\\`.", expr)
	case syntax.ErrInvalidCharRange:
		return "Put the lower end of a range first, and escape a literal `-` in a class as `\\-`. Unicode classes are written `\\pL` or `\\p{Greek}`."
	case syntax.ErrInvalidCharClass:
		return "The POSIX classes are [[:alpha:]], [[:digit:]], [[:space:]], [[:upper:]], [[:lower:]], [[:alnum:]], [[:punct:]] and the like."
	case syntax.ErrTrailingBackslash:
		return "Escape a literal backslash as `\\\\`."
	case syntax.ErrInvalidUTF8:
		return "Send the pattern as valid UTF-8."
	case syntax.ErrLarge, syntax.ErrNestingDepth:
		return "Simplify the pattern: it is too large or too deeply nested for Go's RE2."
	default:
		return "Grep takes Go RE2 syntax; fix the pattern and retry."
	}
}

const lookaroundHint = "Go's RE2 has no lookaround; match more broadly and filter with a second pattern. (Lookahead `(?=`, `(?!` and lookbehind `(?<=`, `(?<!` are not supported.)"

// escapeHint explains an escape RE2 does not have.
func escapeHint(expr string) string {
	if len(expr) == 2 && expr[1] >= '1' && expr[1] <= '9' {
		return fmt.Sprintf("Go's RE2 has no backreferences such as `%s`; match the candidates more broadly (for example `(\\w+) \\w+`) and compare them in the results, or spell out the repeated text.", expr)
	}
	switch expr {
	case `\Z`:
		return "Use `$` for the end of a line, or `\\z` for the end of the text."
	case `\h`:
		return "Use `[ \\t]` for horizontal space."
	case `\e`:
		return "Use `\\x1b` for the escape character."
	case `\K`, `\G`:
		return "Go's RE2 has no `\\K` or `\\G`; match the whole text instead."
	}
	return "Go's RE2 knows the escapes \\d \\D \\w \\W \\s \\S \\b \\B \\A \\z \\pL \\x{hex} \\n \\t and backslash before punctuation; escape a literal backslash as `\\\\`."
}

func globError(err error) string {
	switch {
	case errors.Is(err, ignore.ErrUnclosedClass):
		return "a `[` character class is not closed with `]` (escape a literal `[` as `\\[`)"
	case errors.Is(err, ignore.ErrUnclosedAlt):
		return "a `{` alternation is not closed with `}` (escape a literal `{` as `\\{`)"
	case errors.Is(err, ignore.ErrEmptyGlob):
		return "it selects nothing"
	default:
		return "it cannot be compiled"
	}
}

// typeAlias maps names models use for types to rg's names.
func typeAlias(name string) string {
	switch name {
	case "golang":
		return "go"
	case "python":
		return "py"
	case "javascript", "jsx", "node":
		return "js"
	case "typescript", "tsx":
		return "ts"
	case "rs":
		return "rust"
	case "c++", "cxx", "cc", "hpp":
		return "cpp"
	case "shell", "bash":
		return "sh"
	case "yml":
		return "yaml"
	case "rb":
		return "ruby"
	case "kt":
		return "kotlin"
	case "dockerfile":
		return "docker"
	case "csharp", "c#":
		return "cs"
	case "text":
		return "txt"
	case "makefile":
		return "make"
	case "terraform":
		return "tf"
	case "htm":
		return "html"
	case "proto":
		return "protobuf"
	}
	return ""
}

func unknownType(name string, types ignore.Types) string {
	names := types.Names()
	suggest := ""
	if alias := typeAlias(strings.ToLower(name)); alias != "" {
		suggest = alias
	} else if _, ok := types[strings.ToLower(name)]; ok {
		suggest = strings.ToLower(name)
	} else {
		best := 3
		for _, n := range names {
			if d := textdist.Levenshtein(strings.ToLower(name), n); d < best {
				best, suggest = d, n
			}
		}
	}
	msg := fmt.Sprintf("`type` %q is not a file type Grep knows.", name)
	if suggest != "" {
		msg += fmt.Sprintf(" Did you mean %q?", suggest)
	}
	return msg + "\nUse one of: " + strings.Join(names, ", ") + ". Or use `glob` instead, such as *.ext."
}
