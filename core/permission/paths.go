package permission

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/internal/paths"
)

// fileSystem is what path resolution reads; tests inject failures.
type fileSystem = paths.FS

type osFS = paths.OS

// resolvePath is paths.Resolve: symlinks followed before each `..`.
func resolvePath(fsys fileSystem, p string) (string, error) { return paths.Resolve(fsys, p) }

// resolved is a path subject in both its forms.
type resolved struct {
	lexical  string // absolute and clean, `~` expanded, symlinks kept
	physical string // symlinks resolved
}

// resolveSubject makes a path subject absolute (against the working
// directory, with `~` expanded) and resolves it. The `..` of the path are
// applied during resolution, not before: `src/up/../x`, where src/up links
// out of the workspace, is outside, though cleaning it first would give
// src/x.
func (p *Policy) resolveSubject(v string) (resolved, error) {
	if v == "" {
		return resolved{}, errors.New("the path is empty")
	}
	if p.home == "" && (v == "~" || strings.HasPrefix(v, "~/")) {
		return resolved{}, errors.New("it is under ~, and riot cannot find your home directory (set HOME)")
	}
	raw := p.absolute(v)
	phys, err := resolvePath(p.fs, raw)
	if err != nil {
		return resolved{}, err
	}
	return resolved{lexical: lexicalForm(p.fs, raw), physical: phys}, nil
}

// lexicalForm is the path as written, made clean the way the kernel reads
// it: `src/up/../x` is outside/x when src/up links there, not src/x, which
// would be a different file for the rules and the protected names to
// judge. Where that cannot be worked out, the plain cleaned form is kept:
// the physical form, or the error, decides then.
func lexicalForm(fsys fileSystem, raw string) string {
	if c, err := paths.Clean(fsys, raw); err == nil {
		return c
	}
	return filepath.Clean(raw)
}

// noHome stands for the home directory in a path's written form when
// there is none.
const noHome = "/~"

// absolute expands `~` and joins a relative v to the working directory,
// without cleaning it.
func (p *Policy) absolute(v string) string {
	switch {
	case p.home == "" && (v == "~" || strings.HasPrefix(v, "~/")):
		// No home: the path cannot be resolved, so it asks; as /~/…, a
		// rule that matches at any depth (Read(**/.env)) still denies it,
		// and no rule anchored elsewhere matches it by accident.
		return noHome + v[1:]
	case v == "~":
		return p.home
	case strings.HasPrefix(v, "~/"):
		return p.home + v[1:]
	case !filepath.IsAbs(v):
		return p.roots[0].lexical + "/" + v
	}
	return v
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}

func withinAny(p string, roots []resolved) bool {
	for _, r := range roots {
		if within(p, r.physical) {
			return true
		}
	}
	return false
}

// Protected paths: a change to one can run code later, grant permissions
// or leak secrets, so a call that is not read-only and touches one asks in
// every mode but bypassPermissions.
var (
	// protectedDirs are protected at any depth, with all they hold.
	protectedDirs = map[string]bool{
		".git": true, ".riot": true, ".ssh": true, ".gnupg": true,
		".vscode": true, ".idea": true, ".claude": true,
	}
	// protectedFiles are protected at any depth.
	protectedFiles = map[string]bool{
		".env": true, ".envrc": true, ".gitconfig": true, ".gitmodules": true,
		".npmrc": true, ".netrc": true,
	}
	// envTemplates are .env.* files that hold no secrets and are meant to
	// be committed and edited.
	envTemplates = map[string]bool{
		".env.example": true, ".env.sample": true, ".env.template": true, ".env.dist": true,
	}
	// homeProtected are protected directly under the home directory: shell
	// startup files, and config whose change runs code or grants rights.
	homeProtected = []string{
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
		".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
		".config/fish", ".config/git", ".config/riot",
	}
)

// protectedBy returns the protected path that p is or lies in, or "".
// Names match without regard to case: on a case-insensitive filesystem
// (macOS, Windows, a mounted FAT or CIFS volume) `.GIT/config` is the
// repository's config, and `~/.BashRC` the shell's startup file, and a
// case-sensitive one loses nothing by asking about them too.
func (p *Policy) protectedBy(path string) string {
	for _, h := range p.protect {
		if within(strings.ToLower(path), strings.ToLower(h)) {
			return h
		}
	}
	for dir := path; ; dir = filepath.Dir(dir) {
		base := strings.ToLower(filepath.Base(dir))
		if protectedDirs[base] {
			return dir
		}
		if dir == path && (protectedFiles[base] || strings.HasPrefix(base, ".env.") && !envTemplates[base]) {
			return dir
		}
		if dir == "/" || dir == "." {
			return ""
		}
	}
}

// commandMentionsProtected finds a protected path named by a word of a
// command, such as `echo x >> ~/.bashrc`: the Bash plugin declares only
// the paths a command reads, so this catches writes it does not declare.
// It is a heuristic on the words, erring towards asking.
func (p *Policy) commandMentionsProtected(cmd string) string {
	words := strings.Fields(cmd)
	if parsed, ok := plainWords(cmd); ok {
		// The words as bash reads them first: `'a b/.git/hooks'` is one.
		words = append(parsed, words...)
	}
	for _, w := range words {
		w = strings.Trim(w, `'"`)
		w = strings.TrimLeft(w, "0123456789&<>|;(")
		if i := strings.LastIndexByte(w, '='); i >= 0 {
			w = w[i+1:]
		}
		w = strings.Trim(w, `'"`)
		if w == "" || strings.Contains(w, "://") {
			continue
		}
		// Both the kernel's reading of the word's `..` and the textual one:
		// `lnk/../.bashrc` is ~/.bashrc when lnk points into the home.
		raw := p.absolute(w)
		for _, form := range []string{lexicalForm(p.fs, raw), filepath.Clean(raw)} {
			if by := p.protectedBy(form); by != "" {
				return by
			}
		}
	}
	return ""
}
