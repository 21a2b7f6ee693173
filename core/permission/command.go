package permission

import (
	"regexp"
	"strings"
	"sync"
)

// cmdPattern is a command specifier: exact ("npm test"), a word prefix
// ("git log:*" or "git log *", which match "git log" and "git log -p" but
// not "git logx"), a plain prefix ("ls*", which matches "lsof"), or a
// pattern with * anywhere ("git * main"), where * matches any text.
type cmdPattern struct {
	parts []string // the literal text between the stars
	word  bool     // the pattern also matches when followed by " anything"
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
	return cmdPattern{parts: strings.Split(s, "*"), word: word}
}

// wildcard reports whether the pattern matches more than one command.
func (c cmdPattern) wildcard() bool { return c.word || len(c.parts) > 1 }

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

// benignRedirect is an output redirection that writes nothing anywhere:
// to /dev/null, or between the standard streams.
// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var benignRedirect = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)(&>>?|[0-9]?>>?)\s*/dev/null(\s|$)|(^|\s)[0-9]?>&[0-9-](\s|$)`)
})

// chains reports whether a command subject holds shell syntax that can run
// or write something beyond the command a wildcard rule names: a
// separator, a pipe, a substitution, or an output redirection other than
// to /dev/null. Such a subject is allowed only by an exact or a bare rule:
// `Bash(echo:*)` must not allow `echo x > ~/.bashrc` nor `echo $(rm x)`.
// Quoted text is not told apart, so `grep "a|b" f` asks too.
func chains(cmd string) bool {
	for {
		loc := benignRedirect().FindStringIndex(cmd)
		if loc == nil {
			break
		}
		cmd = cmd[:loc[0]] + " " + cmd[loc[1]:]
	}
	return strings.ContainsAny(cmd, ";&|`><\n\r") || strings.Contains(cmd, "$(")
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
// x`) for tools whose verb is the second word. Flags end the prefix.
func commandPrefix(cmd string) string {
	words := strings.Fields(cmd)
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
