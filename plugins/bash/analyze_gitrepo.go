package bash

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// gitRepo is the repository a git command in some directory acts on, found as git finds it: a .git directory or
// file up the tree (a file points at the real git dir, as in a submodule or a linked worktree), the main
// repository's directory of a linked worktree (commondir), and core.worktree. Its config is read with every
// include, whatever the include's condition, since the condition may hold.
type gitRepo struct {
	gitDir    string
	commonDir string
	top       string // the work tree's top level; "" in a bare repository
	config    []gitSetting
	// problem says why the repository cannot be judged (an unreadable config, a .git file riot cannot read), or "".
	problem string
}

type gitSetting struct {
	key   string // section[.subsection].name, section and name lowercased as git compares them
	value string
	file  string
}

// maxIncludes bounds the config files read for one repository, includes included.
const maxIncludes = 16

// findRepo finds the repository for dir, or nil when dir is in none.
func findRepo(dir string) *gitRepo {
	for d := dir; ; d = filepath.Dir(d) {
		if r := openRepo(d); r != nil {
			return r
		}
		if d == "/" || d == "." {
			break
		}
	}
	if isGitDir(dir) { // a bare repository, or a git dir itself
		r := &gitRepo{gitDir: dir}
		r.load()
		return r
	}
	return nil
}

// openRepo opens the repository whose work tree's top level is dir (dir holds a .git directory or file), or
// returns nil.
func openRepo(dir string) *gitRepo {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return nil
	}
	r := &gitRepo{top: dir, gitDir: dotgit}
	if !fi.IsDir() {
		r.gitDir, r.problem = readGitFile(dotgit)
	}
	r.load()
	return r
}

// readGitFile reads a `gitdir: PATH` file.
func readGitFile(path string) (string, string) {
	b, err := readRegular(path, 1<<16)
	v, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if err != nil || !ok {
		return "", fmt.Sprintf("riot cannot read the .git file %s to find the repository, so it cannot tell what git would read or run.", path)
	}
	v = strings.TrimSpace(v)
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(path), v)
	}
	return v, ""
}

func isGitDir(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// load finds the common dir and the work tree, and reads the config.
func (r *gitRepo) load() {
	if r.problem != "" {
		return
	}
	r.commonDir = r.gitDir
	if b, err := readRegular(filepath.Join(r.gitDir, "commondir"), 1<<16); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(r.gitDir, c)
		}
		r.commonDir = c
	}
	// git reads config.worktree when extensions.worktreeConfig is set, in the main worktree as in a linked one;
	// it is read whatever the extension says, since reading more can only make the analysis stricter.
	files := []string{filepath.Join(r.commonDir, "config"), filepath.Join(r.gitDir, "config.worktree")}
	for i := 0; i < len(files); i++ {
		if i == maxIncludes {
			r.problem = "The repository's config includes more files than riot reads, so it cannot tell what git would run."
			return
		}
		settings, err := readGitConfig(files[i])
		if err != nil {
			r.problem = fmt.Sprintf("riot cannot read the repository's config %s, so it cannot tell what git would run.", files[i])
			return
		}
		for _, s := range settings {
			r.config = append(r.config, s)
			if isInclude(s.key) {
				files = append(files, includePath(s.value, files[i]))
			}
			if s.key == "core.worktree" {
				wt := s.value
				if !filepath.IsAbs(wt) {
					wt = filepath.Join(r.gitDir, wt)
				}
				r.top = wt
			}
		}
	}
}

// isInclude reports whether a key includes a file: include.path, or includeIf.<condition>.path whatever the
// condition, since the condition may hold.
func isInclude(key string) bool {
	return key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")
}

// includePath resolves an include's path: ~/ is the home directory, a relative path is beside the including file.
func includePath(p, from string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(filepath.Dir(from), p)
	}
	return p
}

// readGitConfig reads one config file. A missing file has no settings; one riot cannot read is an error. The
// parse is lenient on values (only keys and whether a value names a program matter) and strict on structure:
// a line it cannot place is an error, not a line to skip.
func readGitConfig(path string) ([]gitSetting, error) {
	b, err := readRegular(path, 1<<20)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []gitSetting
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, "\\") && sc.Scan() { // a continued value
			line = line[:len(line)-1] + strings.TrimSpace(sc.Text())
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s: bad section %q", path, line)
			}
			section = gitSection(line[1:end])
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if section == "" {
			return nil, fmt.Errorf("%s: a setting outside a section", path)
		}
		name, value, _ := strings.Cut(line, "=")
		out = append(out, gitSetting{
			key: section + "." + strings.ToLower(strings.TrimSpace(name)), value: gitValue(value), file: path,
		})
	}
	return out, sc.Err()
}

// gitSection turns `core`, `remote "origin"` or `branch.main` into the key prefix.
func gitSection(s string) string {
	name, sub, quoted := strings.Cut(s, " ")
	if !quoted {
		if n, rest, dotted := strings.Cut(s, "."); dotted {
			return strings.ToLower(n) + "." + rest
		}
		return strings.ToLower(s)
	}
	sub = strings.TrimSpace(sub)
	sub = strings.TrimSuffix(strings.TrimPrefix(sub, `"`), `"`)
	return strings.ToLower(name) + "." + strings.ReplaceAll(sub, `\"`, `"`)
}

// gitValue strips a trailing comment and the quotes of a value, roughly as git does.
func gitValue(v string) string {
	v = strings.TrimSpace(v)
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case !inQuote && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitProgramKey reports whether a config key names a program git may run (or, for core.fsmonitor = true, a
// daemon it starts): the fsmonitor, hooks, pagers, editors, ssh and proxy commands, credential and gpg helpers,
// external diff and textconv drivers, filters, merge drivers, ! aliases.
func gitProgramKey(key, value string) bool {
	switch key {
	case "core.fsmonitor":
		switch strings.ToLower(value) {
		case "false", "no", "off", "0", "":
			return false
		}
		return true
	case "core.hookspath", "core.pager", "core.sshcommand", "core.editor", "core.askpass", "core.gitproxy",
		"core.alternaterefscommand", "diff.external", "sequence.editor", "credential.helper", "gpg.program",
		"uploadpack.packobjectshook", "interactive.difffilter", "web.browser", "log.showsignature":
		return true
	}
	section, rest, _ := strings.Cut(key, ".")
	name := rest[strings.LastIndexByte(rest, '.')+1:]
	switch section {
	case "filter", "pager", "browser", "difftool", "mergetool":
		return true
	case "alias":
		return strings.HasPrefix(strings.TrimSpace(value), "!")
	case "diff":
		return name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "credential":
		return name == "helper"
	case "gpg":
		return name == "program"
	case "remote":
		return name == "uploadpack" || name == "receivepack" || name == "proxy"
	case "submodule":
		return name == "update" && strings.HasPrefix(strings.TrimSpace(value), "!")
	case "man":
		return name == "cmd" || name == "path"
	}
	return false
}

// tracked returns the paths in the repository's index, relative to the top level. ok is false when the index
// cannot be read (no index is an empty one).
func (r *gitRepo) tracked(limit int) (names []string, ok bool) {
	ok = r.indexEntries(limit, func(name []byte, _ uint32) { names = append(names, string(name)) })
	return names, ok
}

// gitlinkMode is the mode of an index entry that records a submodule's commit.
const gitlinkMode = 0o160000

// gitlinks returns the paths of the submodules the index records (gitlinks), relative to the top level: git
// looks into each one that is populated (status, diff, and a patch with --submodule=diff), with that
// repository's own config. ok is false when the index cannot be read.
func (r *gitRepo) gitlinks() (names []string, ok bool) {
	ok = r.indexEntries(-1, func(name []byte, mode uint32) {
		if mode&0o170000 == gitlinkMode {
			names = append(names, string(name))
		}
	})
	return names, ok
}

// indexEntries calls fn with the name and mode of each entry of the index, at most limit of them (no bound
// when negative: the file's size bounds it). The name is only valid during the call: no string is made for
// an entry the caller does not keep, since a large repository's index is read for every git command. It returns false when the index cannot be read whole: a split
// index (its entries are in another file) or a sparse one (a directory entry stands for the entries below it)
// is not read whole either.
func (r *gitRepo) indexEntries(limit int, fn func(name []byte, mode uint32)) bool {
	b, err := readRegular(filepath.Join(r.gitDir, "index"), 256<<20)
	if os.IsNotExist(err) {
		return true
	}
	if err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	count := int(binary.BigEndian.Uint32(b[8:12]))
	if version < 2 || version > 4 || limit >= 0 && count > limit {
		return false
	}
	hashLen := 20
	for _, s := range r.config {
		if s.key == "extensions.objectformat" && strings.EqualFold(s.value, "sha256") {
			hashLen = 32
		}
	}
	i := 12
	var name []byte
	for n := 0; n < count; n++ {
		start := i
		i += 40 + hashLen // stat data, then the object name
		if i+2 > len(b) {
			return false
		}
		mode := binary.BigEndian.Uint32(b[start+24 : start+28])
		flags := binary.BigEndian.Uint16(b[i : i+2])
		i += 2
		if version >= 3 && flags&0x4000 != 0 {
			i += 2
		}
		strip := 0
		if version == 4 {
			var ok bool
			if strip, i, ok = indexVarint(b, i); !ok || strip > len(name) {
				return false
			}
		}
		if i > len(b) {
			return false
		}
		end := bytes.IndexByte(b[i:], 0)
		if end < 0 {
			return false
		}
		if version == 4 { // the name shares all but strip bytes of the previous one
			name = append(name[:len(name)-strip], b[i:i+end]...)
		} else {
			name = b[i : i+end]
		}
		i += end + 1
		if version < 4 { // NULs pad the entry to a multiple of 8 bytes
			i = start + (i-start+7)/8*8
		}
		if mode&0o170000 == 0o040000 { // a sparse directory entry
			return false
		}
		fn(name, mode)
	}
	// The extensions, then the checksum. A split index's "link" names the shared index that holds the entries.
	for i+8 <= len(b)-hashLen {
		if sig := string(b[i : i+4]); sig == "link" || sig == "sdir" {
			return false
		}
		size := int(binary.BigEndian.Uint32(b[i+4 : i+8]))
		if size < 0 || size > len(b) {
			return false
		}
		i += 8 + size
	}
	return true
}

// indexVarint reads the offset varint of index version 4.
func indexVarint(b []byte, i int) (int, int, bool) {
	if i >= len(b) {
		return 0, i, false
	}
	c := b[i]
	i++
	v := int(c & 127)
	for c&128 != 0 {
		if i >= len(b) || v > 1<<24 {
			return 0, i, false
		}
		c = b[i]
		i++
		v = (v+1)<<7 | int(c&127)
	}
	return v, i, true
}

// readRegular reads a regular file of at most max bytes. A repository is the model's to shape: a FIFO or a
// device in place of its config must not hang the analysis, nor a huge file fill memory.
func readRegular(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, fmt.Errorf("%s is not a regular file of at most %d bytes", path, max)
	}
	return os.ReadFile(path)
}
