package ignore

import (
	"os"
	"path/filepath"
	"strings"
)

// GlobalExcludesPath finds the global git excludes file the way ripgrep
// 13 does: core.excludesFile from $HOME/.gitconfig, else from
// $XDG_CONFIG_HOME/git/config (~/.config/git/config), else git's default,
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore). Like ripgrep it
// reads no include.path, no system config and no GIT_CONFIG_* variables.
// getenv is os.Getenv outside tests. It returns "" when there is no home.
func GlobalExcludesPath(getenv func(string) string) string {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	for _, c := range configs {
		data, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		if p := excludesFileFrom(string(data), home); p != "" {
			return p
		}
	}
	if xdg == "" {
		return ""
	}
	return filepath.Join(xdg, "git", "ignore")
}

// excludesFileFrom reads core.excludesFile from gitconfig text. Section
// and key names are case-insensitive, as in git.
func excludesFileFrom(config, home string) string {
	inCore := false
	value := ""
	for _, line := range strings.Split(config, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "["); ok {
			name, after, closed := strings.Cut(rest, "]")
			inCore = closed && strings.EqualFold(strings.TrimSpace(name), "core")
			line = strings.TrimSpace(after)
		}
		if !inCore || line == "" {
			continue
		}
		key, val, found := strings.Cut(line, "=")
		if !found || !strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			continue
		}
		// The last assignment wins, as in git.
		value = gitconfigValue(val)
	}
	if value == "" {
		return ""
	}
	if value == "~" || strings.HasPrefix(value, "~/") {
		if home == "" {
			return ""
		}
		value = filepath.Join(home, value[1:])
	}
	return value
}

// gitconfigValue unquotes a value and drops a trailing comment.
func gitconfigValue(v string) string {
	var b strings.Builder
	quoted := false
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
