package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmdPattern is a command specifier: exact ("npm test"), a word prefix
// ("git log:*" or "git log *", which match "git log" and "git log -p" but
// not "git logx"), a plain prefix ("ls*", which matches "lsof"), or a
// pattern with * anywhere ("git * main"), where * matches any text.
//
// A command is matched on its parsed words (plainWords): an exact or word
// prefix pattern compares whole words after quote removal, so
// `python3:*` covers `python3 -c 'import a; print(1)'`, whose third word
// holds a quoted `;`; any other pattern is matched against the words
// joined by one space.
type cmdPattern struct {
	parts []string // the literal text between the stars
	word  bool     // the pattern also matches when followed by " anything"
	// words are the pattern's own words when it has no star but a
	// trailing word prefix and is itself a plain command; nil otherwise.
	words []string
}

func compileCommand(spec string) cmdPattern {
	s := normalizeCommand(spec)
	word := false
	switch {
	case strings.HasSuffix(s, ":*"):
		s, word = strings.TrimSpace(strings.TrimSuffix(s, ":*")), true
	case strings.HasSuffix(s, " *"):
		s, word = strings.TrimSuffix(s, " *"), true
	}
	c := cmdPattern{parts: strings.Split(s, "*"), word: word}
	if len(c.parts) == 1 {
		c.words, _ = plainWords(s)
	}
	return c
}

// wildcard reports whether the pattern matches more than one command.
func (c cmdPattern) wildcard() bool { return c.word || len(c.parts) > 1 }

// command is a command subject as the rules see it: its text, and its
// words when it is one plain command (nil when it chains).
type command struct {
	text  string
	words []string
	// inv are the commands it may run, read when a restrictive rule
	// first needs them (invoked.go).
	inv *invocations
}

func parseCommandSubject(s string) command {
	words, _ := plainWords(s)
	return command{text: s, words: words, inv: &invocations{}}
}

// allows reports whether the pattern, as an allow rule, covers the
// command: a wildcard pattern only a plain command, on its words; an
// exact pattern the same words, or the same text when either chains
// (`Bash(echo x > f)` allows exactly that).
//
// A pattern with a star inside is matched on a plain command's text too,
// where it was written with the command's quotes: `Bash(grep 'a.*b' f)`,
// as a suggestion prints it, allows the command it was printed for.
func (c cmdPattern) allows(cmd command) bool {
	if cmd.words != nil && (c.matchWords(cmd.words) || len(c.parts) > 1 && c.match(cmd.text)) {
		return true
	}
	return !c.wildcard() && c.match(cmd.text)
}

// restricts reports whether the pattern, as a deny or ask rule, matches
// the command: on its words, on its words joined, on its text as it came,
// or on any command it may run (restrictsInvoked), whichever matches, so
// a doubt falls on the side of not allowing.
func (c cmdPattern) restricts(cmd command) bool {
	return c.match(cmd.text) || cmd.words != nil && (c.matchWords(cmd.words) || c.match(strings.Join(cmd.words, " "))) ||
		c.restrictsInvoked(cmd)
}

// matchWords matches a plain command's words: whole words for an exact or
// word prefix pattern, the words joined by one space for the others.
func (c cmdPattern) matchWords(words []string) bool {
	if c.words == nil {
		if len(c.parts) == 1 {
			return false // an exact pattern that is not a plain command: matched on text only
		}
		return c.match(strings.Join(words, " "))
	}
	if len(words) < len(c.words) || !c.word && len(words) != len(c.words) {
		return false
	}
	for i, w := range c.words {
		if words[i] != w {
			return false
		}
	}
	return true
}

// match matches the text of a command, white space collapsed.
func (c cmdPattern) match(cmd string) bool {
	cmd = normalizeCommand(cmd)
	if starMatch(c.parts, cmd) {
		return true
	}
	if !c.word {
		return false
	}
	parts := append([]string(nil), c.parts...)
	parts[len(parts)-1] += " "
	return starMatch(append(parts, ""), cmd)
}

// starMatch matches s against literal parts joined by stars.
func starMatch(parts []string, s string) bool {
	if len(parts) == 1 {
		return s == parts[0]
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	mid := s[len(first) : len(s)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(mid, p)
		if i < 0 {
			return false
		}
		mid = mid[i+len(p):]
	}
	return true
}

// normalizeCommand collapses runs of white space, as the Bash plugin does
// for its subjects, so "git  log" and "git log" are one command.
func normalizeCommand(s string) string { return strings.Join(strings.Fields(s), " ") }

// chains reports whether a command subject is more than one plain command
// (see plainWords): a separator, a pipe, a substitution, or a redirection
// other than to /dev/null. Such a subject is allowed only by an exact or a
// bare rule: `Bash(echo:*)` must not allow `echo x > ~/.bashrc` nor
// `echo $(rm x)`, while `grep 'a|b' f` is one command.
func chains(cmd string) bool {
	_, ok := plainWords(cmd)
	return !ok
}

// ruleWords are a plain command's words as a rule writes them: parsed,
// then quoted again where bash needs it, up to the first word with a star
// (a wildcard in a rule), the first word kept. ok is false for a command
// that is not plain, which no prefix rule allows.
func ruleWords(cmd string) (words []string, ok bool) {
	words, ok = plainWords(cmd)
	for i, w := range words {
		if strings.Contains(w, "*") {
			return words[:max(i, 1)], ok
		}
		if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
			words[i] = q
		}
	}
	return words, ok
}

// twoWordTools are commands whose second word is the real verb, so a
// suggestion names both: `Bash(git push:*)`, not `Bash(git:*)`.
var twoWordTools = map[string]bool{
	"git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "npx": true,
	"cargo": true, "go": true, "docker": true, "podman": true, "kubectl": true,
	"helm": true, "pip": true, "pip3": true, "uv": true, "poetry": true,
	"gh": true, "brew": true, "apt": true, "apt-get": true, "dotnet": true,
	"mvn": true, "gradle": true, "terraform": true, "systemctl": true,
	"rustup": true, "deno": true, "conda": true, "gcloud": true, "aws": true, "az": true,
}

// runners run a named script, so the script is the third word:
// `Bash(npm run test:*)`.
var runners = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true}

// commandPrefix is the narrowest sensible prefix of a command for a
// suggested rule: the first word, or the first two (three for `npm run
// x`) for tools whose verb is the second word. Flags end the prefix. A
// plain command's words are its parsed ones, quoted again where the rule
// needs it (`Bash('my tool':*)`), and a word with a star ends the prefix
// too, since a star in a rule is a wildcard.
func commandPrefix(cmd string) string {
	words, plain := ruleWords(cmd)
	if !plain {
		words = strings.Fields(cmd)
	}
	if len(words) == 0 {
		return ""
	}
	n := 1
	if len(words) > 1 && twoWordTools[words[0]] {
		n = 2
		if len(words) > 2 && runners[words[0]] && words[1] == "run" {
			n = 3
		}
	}
	for i := 1; i < n; i++ {
		if strings.HasPrefix(words[i], "-") {
			n = i
			break
		}
	}
	return strings.Join(words[:n], " ")
}
